import { definePlugin, registryResolverToken } from '@pro-context/kernel';
import {
  type PypiPluginOptions,
  type PypiPluginOptionsInput,
  pypiOptionsToken,
  pypiPluginOptionsSchema,
  pypiUrlOf,
} from './options.js';
import { PypiRegistryResolver } from './resolver.js';

type ValidatedOptions = Omit<PypiPluginOptions, 'url'> & { url?: string };

/**
 * The pypi plugin: binds {@link PypiRegistryResolver} as the registry resolver of the `pypi` ecosystem.
 * Options come from the `registries.pypi` config section or `kernel.use(pypiPlugin, options)`; without a
 * `url` option, `PRO_CONTEXT_PYPI_URL` (read when the plugin registers) or `https://pypi.org`.
 */
export const pypiPlugin = definePlugin<ValidatedOptions, PypiPluginOptionsInput>({
  id: 'pypi',
  version: '0.1.0',
  description: 'Python package versions and metadata from PyPI',
  kernel: '^0.1.0',
  configKey: 'registries.pypi',
  optionsSchema: pypiPluginOptionsSchema,
  register(context, options) {
    if (!options.enabled) return;
    context.bindValue(pypiOptionsToken, { ...options, url: pypiUrlOf(options.url) });
    context.bindClass(registryResolverToken, PypiRegistryResolver);
  },
});

export default pypiPlugin;

import { definePlugin, registryResolverToken } from '@pro-context/kernel';
import {
  DEFAULT_PYPI_URL,
  PYPI_URL_ENV,
  type PypiPluginOptions,
  type PypiPluginOptionsInput,
  pypiOptionsToken,
  pypiPluginOptionsSchema,
} from './options.js';
import { PypiRegistryResolver } from './resolver.js';

type ValidatedOptions = Omit<PypiPluginOptions, 'url'> & { url?: string };

/**
 * The pypi plugin: binds {@link PypiRegistryResolver} as the registry resolver of the `pypi` ecosystem.
 * Options come from the `registries.pypi` config section (`PRO_CONTEXT_PYPI_URL` sets `registries.pypi.url`,
 * applied by the kernel) or `kernel.use(pypiPlugin, options)`; without a `url`, `https://pypi.org`.
 */
export const pypiPlugin = definePlugin<ValidatedOptions, PypiPluginOptionsInput>({
  id: 'pypi',
  version: '0.1.0',
  description: 'Python package versions and metadata from PyPI',
  kernel: '^0.1.0',
  configKey: 'registries.pypi',
  optionsSchema: pypiPluginOptionsSchema,
  environment: [{ variable: PYPI_URL_ENV, key: 'registries.pypi.url' }],
  register(context, options) {
    if (!options.enabled) return;
    context.bindValue(pypiOptionsToken, { ...options, url: options.url ?? DEFAULT_PYPI_URL });
    context.bindClass(registryResolverToken, PypiRegistryResolver);
  },
});

export default pypiPlugin;

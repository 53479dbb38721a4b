import { definePlugin, registryResolverToken } from '@pro-context/kernel';
import {
  NPM_URL_ENV,
  type NpmPluginOptions,
  type NpmPluginOptionsInput,
  npmEnvironmentToken,
  npmOptionsToken,
  npmPluginOptionsSchema,
  processNpmEnvironment,
} from './options.js';
import { NpmRegistryResolver } from './resolver.js';

/**
 * The npm plugin: binds {@link NpmRegistryResolver} as the registry resolver of the `npm` ecosystem.
 * Options come from the `registries.npm` config section (`PRO_CONTEXT_NPM_URL` sets `registries.npm.url`,
 * applied by the kernel) or `kernel.use(npmPlugin, options)`. The registry is the `url` option, else the one
 * the user's npm configuration names, found on first use (the process's environment, working directory and
 * home directory are captured here).
 */
export const npmPlugin = definePlugin<NpmPluginOptions, NpmPluginOptionsInput>({
  id: 'npm',
  version: '0.1.0',
  description: 'JavaScript package versions and metadata from the npm registry of your npm configuration',
  kernel: '^0.1.0',
  configKey: 'registries.npm',
  optionsSchema: npmPluginOptionsSchema,
  environment: [{ variable: NPM_URL_ENV, key: 'registries.npm.url' }],
  register(context, options) {
    if (!options.enabled) return;
    const environment = processNpmEnvironment();
    // the kernel applied PRO_CONTEXT_NPM_URL to `url` (declared above): not read a second time here
    delete environment.env[NPM_URL_ENV];
    context.bindValue(npmOptionsToken, options);
    context.bindValue(npmEnvironmentToken, environment);
    context.bindClass(registryResolverToken, NpmRegistryResolver);
  },
});

export default npmPlugin;

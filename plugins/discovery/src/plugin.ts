import {
  cacheStoreToken,
  definePlugin,
  kernelTokens,
  libraryProviderToken,
  registryResolverToken,
} from '@pro-context/kernel';
import {
  type DiscoveryPluginOptions,
  type DiscoveryPluginOptionsInput,
  discoveryOptionsToken,
  discoveryPluginOptionsSchema,
} from './options.js';
import { DiscoveryLibraryProvider } from './provider.js';

/**
 * The discovery plugin: binds {@link DiscoveryLibraryProvider} (priority 200) as a library provider. It uses
 * the installed `RegistryResolver`s (pypi, npm), the kernel's HTTP client and the `CacheStore`; without a
 * registry installed it finds nothing. Options come from the `discovery` config section.
 */
export const discoveryPlugin = definePlugin<DiscoveryPluginOptions, DiscoveryPluginOptionsInput>({
  id: 'discovery',
  version: '0.1.0',
  description: 'Docs discovery for packages nobody listed: registry metadata, then llms.txt probing',
  kernel: '^0.1.0',
  configKey: 'discovery',
  optionsSchema: discoveryPluginOptionsSchema,
  register(context, options) {
    if (!options.enabled) return;
    context.bindValue(discoveryOptionsToken, options);
    context.bindFactory(
      libraryProviderToken,
      (resolver) =>
        new DiscoveryLibraryProvider({
          options,
          registries: resolver.resolveAll(registryResolverToken),
          http: resolver.resolve(kernelTokens.http),
          cache: resolver.resolve(cacheStoreToken),
          logger: resolver.resolve(kernelTokens.logger),
        }),
    );
  },
});

export default discoveryPlugin;

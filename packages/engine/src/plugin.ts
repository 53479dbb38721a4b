import { createRequire } from 'node:module';
import {
  cacheStoreToken,
  createToken,
  definePlugin,
  docsFallbackToken,
  kernelTokens,
  libraryProviderToken,
  registryResolverToken,
  searchBackendToken,
  sourceAdapterToken,
  type ToolPlugin,
  toolPluginToken,
} from '@pro-context/kernel';
import { settingsDeclarations } from '@pro-context/plugin-kit';
import { DocsEngine } from './engine.js';
import { ConfigLibraryProvider } from './libraries/config-provider.js';
import { type EngineOptions, engineOptionsSchema } from './options.js';
import { enginePrompts } from './prompts.js';
import { indexLeaseToken, replicaEventsToken } from './replicas.js';
import { rerankerToken } from './reranking.js';
import { engineResources, engineResourceTemplates } from './resources.js';
import { librariesConfigSection, projectConfigSection } from './settings.js';
import { withDocsFallback } from './tools/fallback.js';
import { docsTools } from './tools/tools.js';

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

/** The engine service: call it directly (CLI, embedding) or through its MCP tools. */
export const docsEngineToken = createToken<DocsEngine>('engine.docsEngine');

/** The docs engine as a plugin: binds {@link docsEngineToken} and a `ToolPlugin` with its tools, resources and prompts. */
export const enginePlugin = definePlugin<EngineOptions, unknown>({
  id: 'engine',
  version,
  description: 'The docs engine: resolve-library, get-docs, search-docs, read-page, list-libraries.',
  kernel: '^0.1.0',
  configKey: 'engine',
  optionsSchema: engineOptionsSchema,
  configSections: [librariesConfigSection, projectConfigSection],
  provides: [libraryProviderToken, docsEngineToken, toolPluginToken],
  needs: [cacheStoreToken, searchBackendToken],
  register(context, options) {
    // the configuration's libraries are the first library provider (priority 0: config wins)
    context.bindFactory(
      libraryProviderToken,
      (resolver) =>
        new ConfigLibraryProvider(
          resolver.resolve(kernelTokens.config),
          settingsDeclarations(resolver.resolveAll(sourceAdapterToken)),
          resolver.resolve(kernelTokens.logger).child({ component: 'engine' }),
        ),
    );
    context.bindFactory(docsEngineToken, (resolver) => {
      const events = resolver.resolve(kernelTokens.events);
      return new DocsEngine({
        providers: resolver.resolveAll(libraryProviderToken),
        options,
        cache: resolver.resolve(cacheStoreToken),
        search: resolver.resolve(searchBackendToken),
        adapters: resolver.resolveAll(sourceAdapterToken),
        registries: resolver.resolveAll(registryResolverToken),
        http: resolver.resolve(kernelTokens.http),
        allowlist: resolver.resolve(kernelTokens.allowlist),
        logger: resolver.resolve(kernelTokens.logger).child({ component: 'engine' }),
        revisions: resolver.resolve(kernelTokens.revisions),
        // replicas sharing one store (a plugin such as postgres-store binds these; unbound: one process)
        ...(resolver.isBound(indexLeaseToken) ? { leases: resolver.resolve(indexLeaseToken) } : {}),
        ...(resolver.isBound(replicaEventsToken) ? { replicaEvents: resolver.resolve(replicaEventsToken) } : {}),
        // a model reranking get-docs' best sections (an optional plugin binds it; unbound: lexical alone)
        ...(resolver.isBound(rerankerToken) ? { reranker: resolver.resolve(rerankerToken) } : {}),
        onLibraryResolved: (libraryId) => events.emit('resources.changed', { reason: `resolved ${libraryId}` }),
      });
    });
    context.bindFactory(toolPluginToken, (resolver): ToolPlugin => {
      const engine = resolver.resolve(docsEngineToken);
      const cache = resolver.resolve(cacheStoreToken);
      return {
        id: 'engine',
        // Context7 (any DocsFallback a plugin binds) answers what the engine cannot (issue #26)
        tools: () =>
          withDocsFallback(
            docsTools(engine),
            () => (resolver.isBound(docsFallbackToken) ? resolver.resolve(docsFallbackToken) : undefined),
            (id) => engine.libraries().find((l) => l.id.toLowerCase() === id.toLowerCase())?.name,
          ),
        resources: () => engineResources(engine, cache, version),
        resourceTemplates: () => engineResourceTemplates(engine),
        // every prompt that takes a libraryId completes it from the known libraries
        prompts: () =>
          enginePrompts.map((prompt) =>
            prompt.arguments.libraryId
              ? {
                  ...prompt,
                  complete: {
                    libraryId: (prefix: string) =>
                      engine
                        .libraries()
                        .map((l) => l.id)
                        .filter((id) => id.startsWith(prefix))
                        .slice(0, 50),
                  },
                }
              : prompt,
          ),
      };
    });
  },
  start(context) {
    // fail at start-up, not at the first tool call, when a required contract is missing
    context.resolve(docsEngineToken);
  },
  background(context) {
    // the library catalog is read on first use, so that start-up does not wait for it: read it now, once the
    // first answers are out, so that the first tool call does not either
    context.resolve(docsEngineToken).loadCatalog();
  },
  async stop(context) {
    const engine = context.resolve(docsEngineToken);
    engine.close();
    await engine.idle();
    await engine.stopWorkers();
  },
});

export default enginePlugin;

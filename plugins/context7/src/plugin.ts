import { createRequire } from 'node:module';
import {
  type AnyPlugin,
  cacheStoreToken,
  createToken,
  definePlugin,
  docsFallbackToken,
  kernelTokens,
  type ToolDefinition,
  type ToolPlugin,
  toolPluginToken,
  type z,
} from '@pro-context/kernel';
import { withoutBlankKey } from '@pro-context/plugin-kit';
import { Context7Client } from './client.js';
import { DocumentationTools, definitionCaller } from './documentation-tools.js';
import { context7Errors, context7Messages } from './errors.js';
import { context7Fallback } from './fallback.js';
import {
  CONTEXT7_API_KEY_ENV,
  CONTEXT7_URL_ENV,
  type Context7PluginOptions,
  type Context7PluginOptionsInput,
  context7OptionsToken,
  context7PluginOptionsSchema,
  DEFAULT_CONTEXT7_URL,
} from './options.js';
import { context7Tools } from './tools.js';

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

/** The Context7 client of a kernel, for other plugins (Codex7's `get-context7-docs`). */
export const context7ClientToken = createToken<Context7Client>('context7.client');

type ValidatedOptions = z.output<typeof context7PluginOptionsSchema>;

/** The base URL: the `url` option (which `PRO_CONTEXT_CONTEXT7_URL` sets), else Context7's. */
function urlOf(options: ValidatedOptions): string {
  return options.url ?? DEFAULT_CONTEXT7_URL;
}

/**
 * The context7 plugin. With `tools: true` (the `context7` plugin) it binds the client and a `ToolPlugin` with
 * `context7.search` and `context7.doc`; with `tools: false` (the client other plugins build on) only the
 * client, so an agent sees one Context7 surface. Both read the `context7` config section and the same
 * variables, and both have the id `context7` (a kernel holds one of them).
 */
export function createContext7Plugin(settings: { tools: boolean }): AnyPlugin {
  return definePlugin<ValidatedOptions, Context7PluginOptionsInput>({
    id: 'context7',
    version,
    description: settings.tools
      ? "Context7's hosted documentation index: context7.search, context7.doc, search_documentation, resolve_library"
      : "Context7's hosted documentation index (client only, for other plugins' tools)",
    kernel: '^0.1.0',
    configKey: 'context7',
    optionsSchema: context7PluginOptionsSchema,
    environment: [
      { variable: CONTEXT7_URL_ENV, key: 'context7.url' },
      { variable: CONTEXT7_API_KEY_ENV, key: 'context7.apiKey', secret: true },
    ],
    errors: context7Errors.errors,
    register(context, options) {
      // the missing-key rule of remote tools: a blank key (an empty `export CONTEXT7_API_KEY=" "`) is no key
      const resolved: Context7PluginOptions = { ...withoutBlankKey(options), url: urlOf(options) };
      context.bindValue(context7OptionsToken, resolved);
      context.bindFactory(
        context7ClientToken,
        (resolver) =>
          new Context7Client(resolved, resolver.resolve(kernelTokens.http), resolver.resolve(cacheStoreToken)),
      );
      // the docs engine's fallback (issue #26), bound with or without a key: without one, the tools that
      // consult it name CONTEXT7_API_KEY instead of saying that nothing matched
      context.bindFactory(docsFallbackToken, (resolver) => context7Fallback(resolver.resolve(context7ClientToken)));
      if (!settings.tools) return;
      context.bindFactory(toolPluginToken, (resolver): ToolPlugin => {
        const client = resolver.resolve(context7ClientToken);
        // seed 004's search_documentation and resolve_library: the docs engine's tools first, then Context7
        let engine: ToolDefinition[] | undefined;
        const engineTools = definitionCaller(() => {
          engine ??= resolver
            .resolveAll(toolPluginToken)
            .flatMap((plugin) => (plugin.id === 'engine' ? plugin.tools() : []));
          return engine;
        });
        const documentation = new DocumentationTools(engineTools, resolver.resolve(docsFallbackToken));
        const tools = [...context7Tools(client), ...documentation.definitions()];
        return { id: 'context7', tools: () => tools };
      });
    },
    start(context) {
      if (!context.isBound(cacheStoreToken)) {
        throw context7Messages.create('NO_CACHE', {});
      }
    },
  });
}

/** Context7's tools (`context7.search`, `context7.doc`) and client. */
export const context7Plugin: AnyPlugin = createContext7Plugin({ tools: true });

/** Context7's client alone (id `context7`), for plugins with their own Context7 tools, such as codex7. */
export const context7ClientPlugin: AnyPlugin = createContext7Plugin({ tools: false });

export default context7Plugin;

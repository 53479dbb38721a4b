import { createRequire } from 'node:module';
import { docsEngineToken } from '@pro-context/engine/api';
import {
  definePlugin,
  docsFallbackToken,
  searchBackendToken,
  type ToolPlugin,
  toolPluginToken,
} from '@pro-context/kernel';
import { codex7Errors } from './errors.js';
import { codex7Tools } from './tools.js';

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

/**
 * The codex7 plugin (seed 002): `resolve-library-id` says which tool fits a library, `get-library-docs`
 * serves the docs engine's (local) libraries, `get-context7-docs` passes one topic to Context7. It needs the
 * docs engine (through its API, `@pro-context/engine/api`) and the kernel's `DocsFallback`, which the `context7`
 * plugin binds (`context7ClientPlugin`: Context7 without tools of its own); it imports neither.
 */
export const codex7Plugin = definePlugin({
  id: 'codex7',
  version,
  description: "Codex7's tools: resolve-library-id, get-library-docs (local), get-context7-docs (Context7)",
  kernel: '^0.1.0',
  dependsOn: ['engine', 'context7'],
  errors: codex7Errors.errors,
  register(context) {
    context.bindFactory(toolPluginToken, (resolver): ToolPlugin => {
      const tools = codex7Tools(
        resolver.resolve(docsEngineToken),
        resolver.resolve(searchBackendToken),
        resolver.resolve(docsFallbackToken),
      );
      return { id: 'codex7', tools: () => tools };
    });
  },
});

export default codex7Plugin;

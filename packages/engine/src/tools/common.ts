import type { FetchContext, ToolContext } from '@pro-context/kernel';

/** The docs tools' annotations: they read, never write, and read the open web. */
export const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };

/** Adapter progress → MCP progress notifications. */
export function fetchContext(context: ToolContext): FetchContext {
  return {
    signal: context.signal,
    progress: (done, total, message) => void context.progress({ progress: done, total, message }),
  };
}

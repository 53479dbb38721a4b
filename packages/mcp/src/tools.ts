import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestParamsSchema,
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type RequestId,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { type ToolResultReuse, z } from '@pro-context/kernel';
import type { ToolRunner } from '@pro-context/tool-runner';

/** Where a `tools/call`'s `arguments` that are no object wait for the handler (see {@link CallToolRequestLenientSchema}). */
const ARGUMENTS_NOT_AN_OBJECT = 'pro-context/argumentsNotAnObject';

/**
 * `tools/call` as the SDK's schema reads it, except that `arguments` may be any JSON value: one that is not an
 * object (an array, a string, a number, null) is moved aside, so the request passes the SDK's checks and the
 * tool runner answers it with `INVALID_INPUT` in plain words, not a -32603 carrying a zod dump.
 */
const CallToolRequestLenientSchema = CallToolRequestSchema.extend({
  params: z.preprocess((params) => {
    if (typeof params !== 'object' || params === null || !('arguments' in params)) return params;
    const { arguments: args, ...rest } = params as { arguments?: unknown };
    if (args === undefined || (typeof args === 'object' && args !== null && !Array.isArray(args))) return params;
    return { ...rest, [ARGUMENTS_NOT_AN_OBJECT]: { value: args } };
  }, CallToolRequestParamsSchema.loose()),
});

/** What the tool handlers of one session need beside the runner. */
export interface ToolSession {
  /** The session a request belongs to (its transport's id, else the server's own). */
  sessionIdOf(extra: { sessionId?: string | undefined }): string;
  /** See `McpSessionOptions.onToolReuse`. */
  onToolReuse?: ((requestId: RequestId, tool: string, reuse: ToolResultReuse) => void) | undefined;
}

/**
 * `tools/list` (the runner's listing) and `tools/call` (run by the runner: catalog errors as `isError` results,
 * progress as `notifications/progress`, the caller from the transport's auth info).
 */
export function serveTools(server: McpServer, runner: ToolRunner, session: ToolSession): void {
  // read on first tools/list (the runner builds the JSON Schemas then)
  server.server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: runner.tools as Tool[] }));
  server.server.setRequestHandler(CallToolRequestLenientSchema, async (request, extra): Promise<CallToolResult> => {
    const progressToken = extra._meta?.progressToken;
    const misplaced = (request.params as { [ARGUMENTS_NOT_AN_OBJECT]?: { value: unknown } })[ARGUMENTS_NOT_AN_OBJECT];
    const args = misplaced ? misplaced.value : (request.params.arguments ?? {});
    const outcome = await runner.call(request.params.name, args, {
      signal: extra.signal,
      sessionId: session.sessionIdOf(extra),
      ...(extra.authInfo ? { caller: { clientId: extra.authInfo.clientId, scopes: extra.authInfo.scopes } } : {}),
      ...(progressToken === undefined
        ? {}
        : {
            progress: (update) =>
              extra.sendNotification({ method: 'notifications/progress', params: { progressToken, ...update } }),
          }),
    });
    if (!outcome.ok) return { isError: true, content: [{ type: 'text', text: outcome.text }] };
    if (outcome.reuse) session.onToolReuse?.(extra.requestId, request.params.name, outcome.reuse);
    return { content: [{ type: 'text', text: outcome.text }], structuredContent: outcome.structured };
  });
}

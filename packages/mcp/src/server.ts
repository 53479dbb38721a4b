import { randomUUID } from 'node:crypto';
import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestParamsSchema,
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  type LoggingLevel,
  McpError,
  type RequestId,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  type Tool,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import {
  type LogLevel,
  type LogRecord,
  type LogSinkHandle,
  type PromptDefinition,
  type ResourceDefinition,
  type ResourceTemplateDefinition,
  type StartedKernel,
  type ToolPlugin,
  type ToolResultReuse,
  toolPluginToken,
  toProContextError,
  z,
} from '@pro-context/kernel';
import { redactAnswer } from '@pro-context/logging';
import { createToolRunner, errorPayloadText, type ToolRunner } from '@pro-context/tool-runner';

/** MCP's JSON-RPC error code for a resource that does not exist (the SDK has no constant for it). */
const RESOURCE_NOT_FOUND = -32002;

/** Options of {@link createMcpBinding} and {@link createMcpServer}. */
export interface McpServerOptions {
  /** Server name announced to clients (default `'pro-context'`). */
  name?: string;
  /** Server version announced to clients. */
  version: string;
  /** Instructions for the agent, sent at initialize. */
  instructions?: string;
  /**
   * Forward log records to each session as MCP `notifications/message` (default true): the records of that
   * session's own calls and server-wide ones, never another session's. A session's `logging/setLevel` sets
   * its own threshold; until then it gets `warning` and above.
   */
  forwardLogs?: boolean;
  /** The tool runner to use, when the process already made one for this kernel (default: a new one). */
  runner?: ToolRunner;
}

/** Options of {@link McpBinding.createServer}: one session. */
export interface McpSessionOptions {
  /**
   * The session's id when its transport has none (stdio, in-memory): its calls' log records carry it and only
   * this session receives them. Default: a random UUID. A transport's own `sessionId` takes precedence.
   */
  sessionId?: string;
  /**
   * Offer `resources/subscribe` (default true): the session gets `notifications/resources/updated` for the
   * resources it subscribed to. Off for a server that has no session to notify (stateless HTTP).
   */
  subscriptions?: boolean;
  /**
   * Told, before the answer is sent, of each successful `tools/call` whose tool gave `ToolResult.reuse`: the
   * JSON-RPC id of the request, the tool and its `reuse` (`{ revision, until }`), as data. For a host that keeps
   * answers to serve again (the HTTP host's answer memo); nothing of it reaches the client.
   */
  onToolReuse?: (requestId: RequestId, tool: string, reuse: ToolResultReuse) => void;
}

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

/** Most resources one session may subscribe to. */
const MAX_SUBSCRIPTIONS = 100;

/** A server bound to a kernel, plus the function that unbinds it. */
export interface BoundMcpServer {
  server: McpServer;
  /** Detaches the kernel listeners (log forwarding, list-changed). Called when the transport closes, too. */
  dispose(): void;
}

/** A kernel bound to MCP once per process: makes one MCP server per session (transport). */
export interface McpBinding {
  /** The runner every session's tool calls go through. */
  readonly runner: ToolRunner;
  /** Makes the MCP server of one session; connect it to that session's transport. */
  createServer(session?: McpSessionOptions): BoundMcpServer;
}

const mcpLevel: Record<LogRecord['level'], LoggingLevel> = {
  debug: 'debug',
  info: 'info',
  warn: 'warning',
  error: 'error',
};
const mcpSeverity: LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];
/** The lowest kernel level whose records can pass an MCP level (above `error`, the forwarder drops them all). */
const kernelFloor: Record<LoggingLevel, LogLevel> = {
  debug: 'debug',
  info: 'info',
  notice: 'warn',
  warning: 'warn',
  error: 'error',
  critical: 'error',
  alert: 'error',
  emergency: 'error',
};

/** Catalog error → MCP tool error result carrying `{ code, message, recoverable, suggestion, retryAfter }`. */
export function errorResult(error: unknown): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: errorPayloadText(error) }] };
}

/**
 * Binds a started kernel to MCP, once per process: the tool runner (tool names checked once, here), the tool
 * listing and every `ToolPlugin`'s resources, resource templates and prompts. Its `createServer` then makes
 * one MCP server per session: tools run by the runner (catalog errors as `isError` results), resources,
 * resource templates (with completions and `list_changed` notifications), prompts, progress notifications
 * and MCP logging routed to the session.
 */
export function createMcpBinding(kernel: StartedKernel, options: McpServerOptions): McpBinding {
  const runner = options.runner ?? createToolRunner(kernel);
  const plugins: ToolPlugin[] = kernel.resolveAll(toolPluginToken);
  // read on first tools/list (the runner builds the JSON Schemas then)
  const listed = () => runner.tools as Tool[];
  const resources: ResourceDefinition[] = plugins.flatMap((p) => p.resources?.() ?? []);
  const templates: ResourceTemplateDefinition[] = plugins.flatMap((p) => p.resourceTemplates?.() ?? []);
  const prompts: PromptDefinition[] = plugins.flatMap((p) => p.prompts?.() ?? []);

  function createServer(session: McpSessionOptions = {}): BoundMcpServer {
    const server = new McpServer(
      { name: options.name ?? 'pro-context', version: options.version },
      {
        capabilities: { logging: {}, tools: { listChanged: true } },
        ...(options.instructions ? { instructions: options.instructions } : {}),
      },
    );
    const ownId = session.sessionId ?? randomUUID();
    const sessionIdOf = (extra?: { sessionId?: string | undefined }) =>
      extra?.sessionId ?? server.server.transport?.sessionId ?? ownId;
    const inSession = <T>(extra: { sessionId?: string | undefined }, fn: () => T): T =>
      kernel.logger.withBindings({ sessionId: sessionIdOf(extra) }, fn);
    const disposers: (() => void)[] = [];

    server.server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listed() }));
    server.server.setRequestHandler(CallToolRequestLenientSchema, async (request, extra): Promise<CallToolResult> => {
      const progressToken = extra._meta?.progressToken;
      const misplaced = (request.params as { [ARGUMENTS_NOT_AN_OBJECT]?: { value: unknown } })[ARGUMENTS_NOT_AN_OBJECT];
      const args = misplaced ? misplaced.value : (request.params.arguments ?? {});
      const outcome = await runner.call(request.params.name, args, {
        signal: extra.signal,
        sessionId: sessionIdOf(extra),
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

    for (const resource of resources) {
      server.registerResource(
        resource.name,
        resource.uri,
        {
          ...(resource.title ? { title: resource.title } : {}),
          ...(resource.description ? { description: resource.description } : {}),
          mimeType: resource.mimeType,
        },
        async (uri, extra) => {
          const contents = await inSession(extra, () => resource.read());
          return {
            contents: [
              { uri: uri.href, mimeType: contents.mimeType ?? resource.mimeType, text: redactAnswer(contents.text) },
            ],
          };
        },
      );
    }
    for (const template of templates) {
      const complete = template.complete
        ? Object.fromEntries(
            Object.entries(template.complete).map(([name, fn]) => [name, async (value: string) => fn(value)]),
          )
        : undefined;
      server.registerResource(
        template.name,
        new ResourceTemplate(template.uriTemplate, {
          list: async (extra) => ({
            resources: (await inSession(extra, () => template.list())).map((r) => ({
              uri: r.uri,
              name: r.name,
              ...(r.title ? { title: r.title } : {}),
              ...(r.description ? { description: r.description } : {}),
              mimeType: r.mimeType ?? template.mimeType,
            })),
          }),
          ...(complete ? { complete } : {}),
        }),
        {
          ...(template.title ? { title: template.title } : {}),
          ...(template.description ? { description: template.description } : {}),
          mimeType: template.mimeType,
        },
        async (uri, variables, extra) => {
          const flat = Object.fromEntries(
            Object.entries(variables).map(([k, v]) => [k, decodeURIComponent(Array.isArray(v) ? v.join(',') : v)]),
          );
          try {
            const contents = await inSession(extra, () => template.read(uri.href, flat));
            return {
              contents: [
                { uri: uri.href, mimeType: contents.mimeType ?? template.mimeType, text: redactAnswer(contents.text) },
              ],
            };
          } catch (error) {
            const payload = toProContextError(error).toPayload();
            // MCP's "resource not found" (-32002) when the URI names nothing we have; the catalog payload rides along
            const notFound = payload.code === 'LIBRARY_NOT_FOUND' || payload.code === 'PAGE_NOT_FOUND';
            throw new McpError(
              notFound ? RESOURCE_NOT_FOUND : ErrorCode.InternalError,
              `${payload.code}: ${payload.message} ${payload.suggestion}`,
              payload,
            );
          }
        },
      );
    }
    for (const prompt of prompts) {
      const argsSchema = Object.fromEntries(
        Object.entries(prompt.arguments).map(([name, arg]) => {
          const complete = prompt.complete?.[name];
          const base = z.string();
          // the SDK looks for the completer on the field (and, to offer completion, inside an optional one)
          if (complete) completable(base, async (value: string) => complete(value));
          const field = arg.required ? base.describe(arg.description) : base.optional().describe(arg.description);
          if (complete) completable(field, async (value: string | undefined) => complete(value ?? ''));
          return [name, field];
        }),
      );
      server.registerPrompt(
        prompt.name,
        { ...(prompt.title ? { title: prompt.title } : {}), description: prompt.description, argsSchema },
        (args: Record<string, string | undefined>) => ({
          description: prompt.description,
          messages: [{ role: 'user' as const, content: { type: 'text' as const, text: prompt.render(args) } }],
        }),
      );
    }

    // resources/subscribe: the kernel says when the resources changed (a library resolved or refreshed, which
    // changes pro-context://health and that library's TOC), not which; every subscribed resource is told
    // it may have changed, and the client reads it again
    const subscribed = new Set<string>();
    if ((session.subscriptions ?? true) && resources.length + templates.length > 0) {
      server.server.registerCapabilities({ resources: { subscribe: true, listChanged: true } });
      server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
        if (!subscribed.has(request.params.uri) && subscribed.size >= MAX_SUBSCRIPTIONS)
          throw new McpError(ErrorCode.InvalidParams, `At most ${MAX_SUBSCRIPTIONS} subscriptions per session.`);
        subscribed.add(request.params.uri);
        return {};
      });
      server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
        subscribed.delete(request.params.uri);
        return {};
      });
    }
    disposers.push(
      kernel.events.on('resources.changed', () => {
        void server.sendResourceListChanged();
        if (!server.isConnected()) return;
        for (const uri of subscribed) void server.server.sendResourceUpdated({ uri }).catch(() => undefined);
      }),
    );
    disposers.push(kernel.events.on('tools.changed', () => void server.sendToolListChanged()));

    // the session's own threshold (`logging/setLevel`); until it says one, `warning`
    let sessionLevel: LoggingLevel | undefined;
    let sink: LogSinkHandle | undefined;
    server.server.setRequestHandler(SetLevelRequestSchema, async (request) => {
      sessionLevel = request.params.level;
      sink?.setLevel(kernelFloor[sessionLevel]);
      return {};
    });
    if (options.forwardLogs ?? true) {
      const forward = (record: LogRecord) => {
        if (!server.isConnected()) return;
        const level = mcpLevel[record.level];
        if (sessionLevel && mcpSeverity.indexOf(level) < mcpSeverity.indexOf(sessionLevel)) return;
        const { level: _level, msg, time: _time, ...data } = record;
        void server.sendLoggingMessage({ level, logger: 'pro-context', data: { msg, ...data } }).catch(() => undefined);
      };
      // MCP: nothing but the initialize response may reach the client before it says `initialized`; the
      // transport's session id (Streamable HTTP) is known by then
      const previous = server.server.oninitialized;
      server.server.oninitialized = () => {
        if (!sink && !disposed) {
          sink = kernel.logger.addSink(forward, {
            sessionId: sessionIdOf(),
            // until the client sets its level, `warning` and above: not an `info` record on every call
            level: kernelFloor[sessionLevel ?? 'warning'],
          });
          disposers.push(sink);
        }
        previous?.();
      };
    }

    let disposed = false;
    const dispose = () => {
      disposed = true;
      for (const detach of disposers.splice(0)) detach();
    };
    const previousClose = server.server.onclose;
    server.server.onclose = () => {
      dispose();
      previousClose?.();
    };
    return { server, dispose };
  }

  return { runner, createServer };
}

/**
 * Builds the MCP server of one session for a started kernel: `createMcpBinding(kernel, options).createServer()`.
 * A host serving many sessions makes the binding once and calls its `createServer` per session.
 */
export function createMcpServer(kernel: StartedKernel, options: McpServerOptions): BoundMcpServer {
  return createMcpBinding(kernel, options).createServer();
}

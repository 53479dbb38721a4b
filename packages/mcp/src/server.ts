import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, RequestId } from '@modelcontextprotocol/sdk/types.js';
import {
  type PromptDefinition,
  type ResourceDefinition,
  type ResourceTemplateDefinition,
  type StartedKernel,
  type ToolPlugin,
  type ToolResultReuse,
  toolPluginToken,
} from '@pro-context/kernel';
import { createToolRunner, errorPayloadText, type ToolRunner } from '@pro-context/tool-runner';
import { serveLogging } from './logging.js';
import { servePrompts } from './prompts.js';
import { type InSession, serveResources, serveResourceTemplates, serveSubscriptions } from './resources.js';
import { serveTools } from './tools.js';

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
  const offered: Offered = {
    resources: plugins.flatMap((p) => p.resources?.() ?? []),
    templates: plugins.flatMap((p) => p.resourceTemplates?.() ?? []),
    prompts: plugins.flatMap((p) => p.prompts?.() ?? []),
  };
  return { runner, createServer: (session = {}) => createSessionServer(kernel, options, runner, offered, session) };
}

/** What every plugin offers beside its tools, read once per process. */
interface Offered {
  resources: ResourceDefinition[];
  templates: ResourceTemplateDefinition[];
  prompts: PromptDefinition[];
}

/** The MCP server of one session: tools, resources, templates, prompts, subscriptions and logging. */
function createSessionServer(
  kernel: StartedKernel,
  options: McpServerOptions,
  runner: ToolRunner,
  offered: Offered,
  session: McpSessionOptions,
): BoundMcpServer {
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
  const inSession: InSession = (extra, fn) => kernel.logger.withBindings({ sessionId: sessionIdOf(extra) }, fn);
  const disposers: (() => void)[] = [];
  let disposed = false;

  serveTools(server, runner, { sessionIdOf, onToolReuse: session.onToolReuse });
  serveResources(server, offered.resources, inSession);
  serveResourceTemplates(server, offered.templates, inSession);
  servePrompts(server, offered.prompts);
  const subscribable = offered.resources.length + offered.templates.length > 0;
  disposers.push(serveSubscriptions(server, kernel, (session.subscriptions ?? true) && subscribable));
  disposers.push(kernel.events.on('tools.changed', () => void server.sendToolListChanged()));
  serveLogging(server, kernel, options.forwardLogs ?? true, {
    sessionId: () => sessionIdOf(),
    disposed: () => disposed,
    onDispose: (detach) => disposers.push(detach),
  });

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

/**
 * Builds the MCP server of one session for a started kernel: `createMcpBinding(kernel, options).createServer()`.
 * A host serving many sessions makes the binding once and calls its `createServer` per session.
 */
export function createMcpServer(kernel: StartedKernel, options: McpServerOptions): BoundMcpServer {
  return createMcpBinding(kernel, options).createServer();
}

import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  type LoggingLevel,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import {
  type LogRecord,
  ProContextError,
  type StartedKernel,
  type ToolContext,
  type ToolDefinition,
  type ToolPlugin,
  toolPluginToken,
  toProContextError,
} from '@pro-context/kernel';
import * as z from 'zod';

/** MCP's JSON-RPC error code for a resource that does not exist (the SDK has no constant for it). */
const RESOURCE_NOT_FOUND = -32002;

/** Options of {@link createMcpServer}. */
export interface McpServerOptions {
  /** Server name announced to clients (default `'pro-context'`). */
  name?: string;
  /** Server version announced to clients. */
  version: string;
  /** Instructions for the agent, sent at initialize. */
  instructions?: string;
  /**
   * Forward the kernel's log records to the client as MCP `notifications/message` (default true). The client
   * can raise the threshold with `logging/setLevel`.
   */
  forwardLogs?: boolean;
}

/** A server bound to a kernel, plus the function that unbinds it. */
export interface BoundMcpServer {
  server: McpServer;
  /** Detaches the kernel listeners (log forwarding, list-changed). Call when the transport closes. */
  dispose(): void;
}

const mcpLevel: Record<LogRecord['level'], LoggingLevel> = {
  debug: 'debug',
  info: 'info',
  warn: 'warning',
  error: 'error',
};

/** Catalog error → MCP tool error result carrying `{ code, message, recoverable, suggestion, retryAfter }`. */
export function errorResult(error: unknown): CallToolResult {
  const payload = toProContextError(error).toPayload();
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(payload, null, 2) }] };
}

function issuesMessage(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'arguments'}: ${issue.message}`)
    .join('; ');
}

/**
 * The catalog's `INVALID_INPUT` for arguments a tool's input schema refused, naming each bad argument: what
 * an agent gets over MCP, and what the CLI prints for the same input.
 */
export function invalidArgumentsError(toolName: string, error: z.ZodError): ProContextError {
  return new ProContextError('INVALID_INPUT', `Invalid arguments for ${toolName}: ${issuesMessage(error)}.`, {
    details: { issues: error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })) },
  });
}

function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Tool['inputSchema'] {
  return z.toJSONSchema(schema, { target: 'draft-7', io, unrepresentable: 'any' }) as Tool['inputSchema'];
}

/**
 * Builds an MCP server exposing every `ToolPlugin` of a started kernel: tools (validated in and out
 * against their zod schemas; catalog errors as `isError` results), resources, resource templates (with
 * completions and `list_changed` notifications), prompts, progress notifications and MCP logging.
 */
export function createMcpServer(kernel: StartedKernel, options: McpServerOptions): BoundMcpServer {
  const plugins: ToolPlugin[] = kernel.resolveAll(toolPluginToken);
  const server = new McpServer(
    { name: options.name ?? 'pro-context', version: options.version },
    {
      capabilities: { logging: {}, tools: { listChanged: true } },
      ...(options.instructions ? { instructions: options.instructions } : {}),
    },
  );
  const disposers: (() => void)[] = [];

  const tools = new Map<string, { tool: ToolDefinition; plugin: string }>();
  for (const plugin of plugins) {
    for (const tool of plugin.tools()) {
      const existing = tools.get(tool.name);
      if (existing) {
        throw new ProContextError(
          'CONTRACT_CONFLICT',
          `Tool '${tool.name}' is contributed by plugin '${existing.plugin}' and by plugin '${plugin.id}'.`,
          { suggestion: 'Tool names must be unique; remove or rename one of them.' },
        );
      }
      if (!/^[A-Za-z0-9._-]{1,128}$/.test(tool.name)) {
        throw new ProContextError(
          'PLUGIN_INVALID',
          `Tool name '${tool.name}' of plugin '${plugin.id}' breaks MCP's naming rules.`,
          {
            suggestion: 'Use 1-128 characters from A-Z, a-z, 0-9, dot, underscore and hyphen.',
          },
        );
      }
      tools.set(tool.name, { tool, plugin: plugin.id });
    }
  }

  const listed: Tool[] = [...tools.values()].map(({ tool }) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchemaOf(tool.inputSchema, 'input'),
    outputSchema: jsonSchemaOf(tool.outputSchema, 'output') as Tool['outputSchema'],
    ...(tool.annotations ? { annotations: { title: tool.title, ...tool.annotations } } : {}),
  }));
  server.server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listed }));
  server.server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const entry = tools.get(request.params.name);
    if (!entry) {
      return errorResult(
        new ProContextError('INVALID_INPUT', `Unknown tool '${request.params.name}'.`, {
          suggestion: `Available tools: ${[...tools.keys()].join(', ')}.`,
        }),
      );
    }
    const { tool } = entry;
    const parsed = tool.inputSchema.safeParse(request.params.arguments ?? {});
    if (!parsed.success) {
      return errorResult(invalidArgumentsError(tool.name, parsed.error));
    }
    const progressToken = extra._meta?.progressToken;
    const logger = kernel.logger.child({ tool: tool.name, ...(extra.sessionId ? { sessionId: extra.sessionId } : {}) });
    const context: ToolContext = {
      signal: extra.signal,
      logger,
      ...(extra.sessionId ? { sessionId: extra.sessionId } : {}),
      ...(extra.authInfo ? { caller: { clientId: extra.authInfo.clientId, scopes: extra.authInfo.scopes } } : {}),
      async progress(update) {
        if (progressToken === undefined) return;
        await extra
          .sendNotification({
            method: 'notifications/progress',
            params: { progressToken, ...update },
          })
          .catch(() => undefined);
      },
    };
    try {
      const result = await tool.handler(parsed.data, context);
      const checked = tool.outputSchema.safeParse(result.structured);
      if (!checked.success) {
        logger.error('tool returned content that breaks its output schema', {
          issues: issuesMessage(checked.error),
        });
        return errorResult(new ProContextError('INTERNAL_ERROR', `${tool.name} produced an invalid result.`));
      }
      return {
        content: [{ type: 'text', text: result.text }],
        structuredContent: checked.data as Record<string, unknown>,
      };
    } catch (error) {
      const coded = toProContextError(error);
      if (coded.code === 'INTERNAL_ERROR')
        logger.error('tool failed', { error, cause: (coded.cause as Error)?.message });
      return errorResult(coded);
    }
  });

  for (const plugin of plugins) {
    for (const resource of plugin.resources?.() ?? []) {
      server.registerResource(
        resource.name,
        resource.uri,
        {
          ...(resource.title ? { title: resource.title } : {}),
          ...(resource.description ? { description: resource.description } : {}),
          mimeType: resource.mimeType,
        },
        async (uri) => {
          const contents = await resource.read();
          return {
            contents: [{ uri: uri.href, mimeType: contents.mimeType ?? resource.mimeType, text: contents.text }],
          };
        },
      );
    }
    for (const template of plugin.resourceTemplates?.() ?? []) {
      const complete = template.complete
        ? Object.fromEntries(
            Object.entries(template.complete).map(([name, fn]) => [name, async (value: string) => fn(value)]),
          )
        : undefined;
      server.registerResource(
        template.name,
        new ResourceTemplate(template.uriTemplate, {
          list: async () => ({
            resources: (await template.list()).map((r) => ({
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
        async (uri, variables) => {
          const flat = Object.fromEntries(
            Object.entries(variables).map(([k, v]) => [k, decodeURIComponent(Array.isArray(v) ? v.join(',') : v)]),
          );
          try {
            const contents = await template.read(uri.href, flat);
            return {
              contents: [{ uri: uri.href, mimeType: contents.mimeType ?? template.mimeType, text: contents.text }],
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
    for (const prompt of plugin.prompts?.() ?? []) {
      const argsSchema = Object.fromEntries(
        Object.entries(prompt.arguments).map(([name, arg]) => [
          name,
          arg.required ? z.string().describe(arg.description) : z.string().optional().describe(arg.description),
        ]),
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
  }

  disposers.push(kernel.events.on('resources.changed', () => void server.sendResourceListChanged()));
  disposers.push(kernel.events.on('tools.changed', () => void server.sendToolListChanged()));
  if (options.forwardLogs ?? true) {
    // MCP: nothing but the initialize response may reach the client before it says `initialized`.
    let initialized = false;
    const previous = server.server.oninitialized;
    server.server.oninitialized = () => {
      initialized = true;
      previous?.();
    };
    disposers.push(
      kernel.logger.addSink((record) => {
        if (!initialized || !server.isConnected()) return;
        const { level, msg, time: _time, ...data } = record;
        void server
          .sendLoggingMessage({ level: mcpLevel[level], logger: 'pro-context', data: { msg, ...data } })
          .catch(() => undefined);
      }),
    );
  }

  return {
    server,
    dispose() {
      for (const dispose of disposers.splice(0)) dispose();
    },
  };
}

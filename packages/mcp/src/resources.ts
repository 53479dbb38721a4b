import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  ErrorCode,
  McpError,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import {
  type ResourceDefinition,
  type ResourceTemplateDefinition,
  type StartedKernel,
  toProContextError,
} from '@pro-context/kernel';
import { redactAnswer } from '@pro-context/logging';

/** MCP's JSON-RPC error code for a resource that does not exist (the SDK has no constant for it). */
const RESOURCE_NOT_FOUND = -32002;

/** Most resources one session may subscribe to. */
const MAX_SUBSCRIPTIONS = 100;

/** Runs a read in the session of the request (its log records carry the session's id). */
export type InSession = <T>(extra: { sessionId?: string | undefined }, fn: () => T) => T;

/** The fixed resources (their text masked with the kernel's `redactAnswer`). */
export function serveResources(server: McpServer, resources: readonly ResourceDefinition[], inSession: InSession) {
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
}

/** The resource templates: listing, completions, and reads (a URI naming nothing is MCP's -32002). */
export function serveResourceTemplates(
  server: McpServer,
  templates: readonly ResourceTemplateDefinition[],
  inSession: InSession,
): void {
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
      (uri, variables, extra) => readTemplate(template, uri, variables, (read) => inSession(extra, read)),
    );
  }
}

/** One read of a template's resource: its contents masked, or an `McpError` carrying the catalog payload. */
async function readTemplate(
  template: ResourceTemplateDefinition,
  uri: URL,
  variables: Record<string, string | string[]>,
  inSession: <T>(fn: () => T) => T,
) {
  const flat = Object.fromEntries(
    Object.entries(variables).map(([k, v]) => [k, decodeURIComponent(Array.isArray(v) ? v.join(',') : v)]),
  );
  try {
    const contents = await inSession(() => template.read(uri.href, flat));
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
}

/**
 * `resources/subscribe` (when `enabled` and there is a resource to subscribe to) and the notifications of
 * `resources.changed`: the kernel says when the resources changed (a library resolved or refreshed, which changes
 * pro-context://health and that library's TOC), not which; the list is said changed, every subscribed resource is
 * told it may have changed, and the client reads it again. Answers the detach of the kernel listener.
 */
export function serveSubscriptions(server: McpServer, kernel: StartedKernel, enabled: boolean): () => void {
  const subscribed = new Set<string>();
  if (enabled) {
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
  return kernel.events.on('resources.changed', () => {
    void server.sendResourceListChanged();
    if (!server.isConnected()) return;
    for (const uri of subscribed) void server.server.sendResourceUpdated({ uri }).catch(() => undefined);
  });
}

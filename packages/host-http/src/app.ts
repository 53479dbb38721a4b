import type { ServerResponse } from 'node:http';
import { type ResourceDefinition, type StartedKernel, toolPluginToken } from '@pro-context/kernel';
import { redactString } from '@pro-context/logging';
import express, { type Express, type RequestHandler } from 'express';
import { corsMiddleware } from './cors.js';
import { hostCheck } from './host-origin.js';
import type { HostMetrics } from './metrics.js';
import { type HostRequest, type Step, sendRpcError } from './respond.js';

/** What the Express routes are built from: the steps shared with the POST /mcp pipeline, and the handlers. */
export interface AppParts {
  kernel: StartedKernel;
  metrics: HostMetrics;
  /** Host names the Host header may carry (empty: no check). */
  allowedHosts: readonly string[];
  corsOrigins: readonly string[];
  origin: Step;
  /** In-flight tracking, API key, rate limit: the steps before a `/mcp` handler. */
  mcpSteps: readonly Step[];
  /** API key and rate limit, for `/metrics` when it needs a key; undefined: open. */
  metricsSteps: readonly Step[] | undefined;
  /** Serve `/metrics` on this app (not when it has a port of its own, or is off). */
  serveMetricsHere: boolean;
  /** `GET` and `DELETE /mcp` (stateful: the session's stream and its end; stateless: 405). */
  getOrDelete(req: HostRequest, res: ServerResponse): Promise<void> | void;
  /** `server` facts of `/health`. */
  serverFacts(): { transport: 'http'; stateless: boolean; sessions: number };
}

/** `GET /metrics`: the Prometheus text, label values masked like a log line before they leave. */
export function metricsHandler(metrics: HostMetrics): RequestHandler {
  return async (_req, res) => {
    res.set('Content-Type', metrics.registry.contentType).send(redactString(await metrics.registry.metrics()));
  };
}

/**
 * The Express app of every route but POST /mcp: the SDK's `hostHeaderValidation` (when hosts are listed), the
 * Origin check, the `cors` package (preflights), `GET /health` (no key), `GET /metrics`, `GET`/`DELETE /mcp`
 * behind the same steps as POST, and a JSON-RPC 404 for anything else. (Not the SDK's `createMcpExpressApp`:
 * it adds `express.json()` with a 100 kB limit in front of every route and warns on `console`; the host reads
 * bodies itself, with `maxBodyBytes`, and logs through the kernel's logger.)
 */
export function createApp(parts: AppParts): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  const host = hostCheck(parts.allowedHosts);
  if (host) app.use(host as RequestHandler);
  app.use(parts.origin as RequestHandler);
  app.use(corsMiddleware(parts.corsOrigins));

  const health: ResourceDefinition | undefined = parts.kernel
    .resolveAll(toolPluginToken)
    .flatMap((p) => p.resources?.() ?? [])
    .find((r) => r.uri === 'pro-context://health');
  app.get('/health', async (_req, res) => {
    const facts = health ? JSON.parse(redactString((await health.read()).text)) : { status: 'healthy' };
    res.json({ ...facts, server: parts.serverFacts() });
  });

  if (parts.serveMetricsHere)
    app.get(
      '/metrics',
      ...([...(parts.metricsSteps ?? [])] as unknown as RequestHandler[]),
      metricsHandler(parts.metrics),
    );

  const mcp = [...parts.mcpSteps] as unknown as RequestHandler[];
  const last: RequestHandler = (req, res) => void parts.getOrDelete(req as HostRequest, res);
  app.get('/mcp', ...mcp, last);
  app.delete('/mcp', ...mcp, last);
  app.use((_req, res) => sendRpcError(res, 404, -32601, 'Not found: the MCP endpoint is /mcp'));
  return app;
}

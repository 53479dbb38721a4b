import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type KeyStore, keyStoreToken, usageStoreToken } from '@pro-context/access';
import { type Logger, ProContextError, type StartedKernel } from '@pro-context/kernel';
import { createMcpBinding } from '@pro-context/mcp';
import { createToolRunner } from '@pro-context/tool-runner';
import express from 'express';
import { createApp, metricsHandler } from './app.js';
import { apiKeyStep } from './auth.js';
import { bodyStep } from './body.js';
import { corsHeaders } from './cors.js';
import { allowedHostsFor, hostCheck, originCheck } from './host-origin.js';
import { InFlight, listen, stopAccepting, urlOf } from './lifecycle.js';
import { batchStep, type LimitsContext, rateLimiterFor, rateLimitStep } from './limits.js';
import { isLoopback } from './loopback.js';
import { createAnswerMemo } from './memo.js';
import { HostMetrics, instrumentRunner } from './metrics.js';
import type { HttpHostOptions, HttpServerHandle } from './options.js';
import { type HostRequest, pathOf, pipeline, type Step } from './respond.js';
import { Sessions } from './sessions.js';
import { Stateless } from './stateless.js';
import { UsageRecorder } from './usage.js';

export type { HttpHostOptions, HttpServerHandle } from './options.js';

/** `server.auth: 'none'` is for a loopback bind only. */
function refuseOpenBind(host: string): never {
  throw new ProContextError(
    'CONFIG_INVALID',
    `server.auth is 'none' but server.host is ${host}: without API keys the server may only listen on a loopback address.`,
    { suggestion: "Set server.auth to 'apiKey' and create keys with pro-context-admin, or bind 127.0.0.1." },
  );
}

/** The parts of a host (before it listens). */
interface Host {
  kernel: StartedKernel;
  options: HttpHostOptions;
  logger: Logger;
  keys: KeyStore | undefined;
  usage: UsageRecorder | undefined;
  metrics: HostMetrics;
  memo: ReturnType<typeof createAnswerMemo>;
  sessions: Sessions | undefined;
  stateless: Stateless | undefined;
  inFlight: InFlight;
}

/** Usage, metrics, the memo, one runner and one MCP binding, and the sessions (or stateless) handler. */
async function assemble(kernel: StartedKernel, options: HttpHostOptions, logger: Logger): Promise<Host> {
  const keys = options.auth === 'none' ? undefined : kernel.resolve(keyStoreToken);
  const usageStore = keys && kernel.isBound(usageStoreToken) ? kernel.resolve(usageStoreToken) : undefined;
  const usage = usageStore ? new UsageRecorder(usageStore, logger) : undefined;
  const metrics = new HostMetrics(kernel, () => sessions?.size ?? 0);
  const memo = createAnswerMemo(options.answerMemo ?? {}, kernel.revisions, { metrics, usage, logger });
  const runner = instrumentRunner(options.runner ?? createToolRunner(kernel), metrics, usage);
  const binding = createMcpBinding(kernel, { ...options, runner });
  const sessions = options.stateless
    ? undefined
    : new Sessions(binding, memo?.hooks, logger, {
        maxSessions: options.maxSessions ?? 100,
        maxSessionsPerKey: options.maxSessionsPerKey ?? 10,
        idleMs: options.sessionIdleMs ?? 30 * 60_000,
      });
  const stateless = options.stateless ? await Stateless.start(binding, memo?.hooks, logger) : undefined;
  const inFlight = new InFlight(metrics, usage);
  return { kernel, options, logger, keys, usage, metrics, memo, sessions, stateless, inFlight };
}

/**
 * The request handler: POST /mcp (every MCP call) runs one pipeline of plain Node steps — Host (the SDK's
 * `hostHeaderValidation`), Origin, CORS headers, in-flight tracking, API key, rate limit, body, batch charge —
 * then the sessions (or stateless) handler, without Express's routing; every other route goes through the
 * Express app of `app.ts`, with the same steps.
 */
function frontOf(h: Host, loopback: boolean, host: string) {
  const { options, metrics, logger } = h;
  const allowedHosts = allowedHostsFor(loopback, options.allowedHosts ?? []);
  if (allowedHosts.length === 0)
    logger.warn(
      `listening on ${host} with no server.allowedHosts: the Host header is not checked (DNS-rebinding protection is off). List the names clients use in server.allowedHosts.`,
    );
  const corsOrigins = options.corsOrigins ?? ['*'];
  const origin = originCheck(corsOrigins, metrics);
  const limits: LimitsContext = {
    limiter: rateLimiterFor(h.kernel),
    defaultLimit: options.rateLimit ?? { maxRequestsPerMinute: 60, burstSize: 10 },
    metrics,
    usage: h.usage,
  };
  const keyAndLimit: Step[] = [apiKeyStep(h.keys, metrics), rateLimitStep(limits)];
  const handler: Step = (req, res) => void (h.sessions ?? (h.stateless as Stateless)).post(req, res);
  const hostStep = hostCheck(allowedHosts);
  const postMcp = pipeline(
    [
      ...(hostStep ? [hostStep] : []),
      origin,
      corsHeaders(corsOrigins),
      h.inFlight.step,
      ...keyAndLimit,
      bodyStep(options.maxBodyBytes ?? 1024 * 1024),
      batchStep(limits),
      handler,
    ],
    (error) => logger.error('request failed', { error }),
  );
  const metricsOptions = options.metrics ?? {};
  const app = createApp({
    kernel: h.kernel,
    metrics,
    allowedHosts,
    corsOrigins,
    origin,
    mcpSteps: [h.inFlight.step, ...keyAndLimit],
    metricsSteps: (metricsOptions.auth ?? 'apiKey') === 'apiKey' && h.keys ? keyAndLimit : undefined,
    serveMetricsHere: (metricsOptions.enabled ?? true) && metricsOptions.port === undefined,
    getOrDelete: (req, res) => (h.sessions ? h.sessions.existing(req, res) : h.stateless?.notAllowed(req, res)),
    serverFacts: () => ({ transport: 'http', stateless: options.stateless ?? false, sessions: h.sessions?.size ?? 0 }),
  });
  return (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'POST' && pathOf(req.url) === '/mcp') postMcp(req as HostRequest, res);
    else app(req, res);
  };
}

/**
 * The graceful stop: stop accepting, let in-flight requests finish (at most `shutdownGraceMs`), close the
 * sessions, the connections and the metrics port, flush usage, stop the kernel (unless `stopKernel: false`).
 */
function stopper(h: Host, server: Server, metricsServer: Server | undefined, resolveClosed: () => void) {
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= (async () => {
      const finish = stopAccepting(server);
      await h.inFlight.stop(h.options.shutdownGraceMs ?? 10_000);
      await h.sessions?.closeAll();
      await h.stateless?.close();
      await finish();
      if (metricsServer) await stopAccepting(metricsServer)();
      h.metrics.close();
      h.memo?.close();
      await h.usage?.close();
      if (h.options.stopKernel ?? true) await h.kernel.stop();
      h.logger.info('pro-context HTTP server stopped');
      resolveClosed();
    })();
    return closing;
  };
}

/**
 * Serves a started kernel as an MCP server over Streamable HTTP on `/mcp` (seed 001 §2.2, US-8, §10.3,
 * §10.4): stateful sessions (one MCP server per session from one binding) or stateless, Bearer API keys,
 * per-key token buckets, usage per key, Host/Origin checks, CORS, `GET /health` and `GET /metrics`.
 */
export async function serveHttp(kernel: StartedKernel, options: HttpHostOptions): Promise<HttpServerHandle> {
  const host = options.host ?? '127.0.0.1';
  const auth = options.auth ?? 'apiKey';
  const loopback = isLoopback(host);
  if (auth === 'none' && !loopback) refuseOpenBind(host);
  const h = await assemble(kernel, options, kernel.logger.child({ host: 'http' }));
  const server = await listen(frontOf(h, loopback, host), host, options.port ?? 3100, options);
  const metricsOptions = options.metrics ?? {};
  const metricsServer =
    (metricsOptions.enabled ?? true) && metricsOptions.port !== undefined
      ? await listen(express().get('/metrics', metricsHandler(h.metrics)), host, metricsOptions.port, options)
      : undefined;
  const url = urlOf(server, host);
  if (auth === 'none')
    h.logger.warn('API keys are off (server.auth: none): anyone who can reach this loopback port may use the server');
  let resolveClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  const close = stopper(h, server, metricsServer, () => resolveClosed());
  if (options.handleSignals) {
    const stop = () => void close().finally(() => process.exit(0));
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  }
  h.logger.info('pro-context HTTP server ready', {
    url: `${url}/mcp`,
    stateless: options.stateless ?? false,
    auth,
    plugins: kernel.plugins.map((p) => p.id),
  });
  return {
    url,
    port: (server.address() as AddressInfo).port,
    ...(metricsServer ? { metricsUrl: urlOf(metricsServer, host) } : {}),
    sessionCount: () => h.sessions?.size ?? 0,
    flushUsage: async () => h.usage?.flush(),
    close,
    closed,
  };
}

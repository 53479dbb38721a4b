import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import {
  type ApiKeyRecord,
  type KeyStore,
  keyStoreToken,
  type RateLimitSettings,
  type UsageStore,
  usageStoreToken,
} from '@pro-context/access';
import {
  type ErrorPayload,
  ProContextError,
  type ResourceDefinition,
  redactString,
  type StartedKernel,
  toolPluginToken,
} from '@pro-context/kernel';
import { type BoundMcpServer, createMcpBinding, type McpServerOptions } from '@pro-context/mcp';
import { createToolRunner, type ToolRunner } from '@pro-context/tool-runner';
import cors from 'cors';
import express, { type Request, type Response } from 'express';
import { readJsonBody } from './body.js';
import { checkAuthorization } from './keys.js';
import { isLoopback } from './loopback.js';
import { AnswerMemo, currentMemoSlot } from './memo.js';
import { HostMetrics } from './metrics.js';
import { TokenBuckets } from './rate-limit.js';
import { type HostRequest, type MemoHooks, SessionTransport, StatelessTransport } from './transport.js';
import { UsageRecorder } from './usage.js';

/** Options of {@link serveHttp}. */
export interface HttpHostOptions extends McpServerOptions {
  /** Bind address (default `127.0.0.1`). */
  host?: string;
  /** Port (default 3100; `0` picks a free one). */
  port?: number;
  /** One MCP server and transport per POST, no sessions (default false: stateful sessions). */
  stateless?: boolean;
  /** `apiKey` (default): Bearer API keys from the kernel's `KeyStore`. `none`: only on a loopback bind. */
  auth?: 'apiKey' | 'none';
  /**
   * Host names (without port) accepted besides the loopback names (DNS-rebinding protection). On a
   * non-loopback bind without any, the Host header is not checked (a warning says so).
   */
  allowedHosts?: string[];
  /** CORS origins (`*` = any). A request whose `Origin` is not among them gets 403. Default `['*']`. */
  corsOrigins?: string[];
  /** Default per-key token bucket (default 60 per minute, burst 10). */
  rateLimit?: RateLimitSettings;
  /** Most open sessions (default 100); an `initialize` beyond it gets 503. */
  maxSessions?: number;
  /**
   * Most open sessions of one API key (default 10): its `initialize` beyond it gets 429 `RATE_LIMITED`, so one
   * key cannot take every session slot. Not applied without keys (`auth: 'none'`).
   */
  maxSessionsPerKey?: number;
  /**
   * A client must send a request's headers within this time (default 10 s; Node's `headersTimeout`), or its
   * connection gets 408 and is closed (slow-header clients hold no connection longer).
   */
  headersTimeoutMs?: number;
  /** ... and the whole request, body included, within this time (default 30 s; Node's `requestTimeout`). */
  requestTimeoutMs?: number;
  /** An idle keep-alive connection is closed after this time (default 5 s; Node's `keepAliveTimeout`). */
  keepAliveTimeoutMs?: number;
  /** A session idle this long is closed (default 30 minutes). */
  sessionIdleMs?: number;
  /** Largest request body (default 1 MiB); larger gets 413. */
  maxBodyBytes?: number;
  /** `GET /metrics`: off, behind an API key (default), open, or on a port of its own (no key, same host). */
  metrics?: { enabled?: boolean; auth?: 'apiKey' | 'none'; port?: number };
  /** How long a shutdown waits for in-flight requests (default 10 s). */
  shutdownGraceMs?: number;
  /** Stop on SIGTERM/SIGINT: finish in-flight calls, close sessions, stop the kernel, exit (default false). */
  handleSignals?: boolean;
  /** Stop the kernel when the host closes (default true). */
  stopKernel?: boolean;
  /**
   * Serialized answers of tools that say they may be served again (get-docs from docs in memory), answered
   * without running the tool while the tool's check holds (default: on, 1000 answers, 16 MB).
   */
  answerMemo?: { enabled?: boolean; maxEntries?: number; maxMB?: number };
}

/** A running HTTP host. */
export interface HttpServerHandle {
  /** `http://host:port` (the MCP endpoint is `${url}/mcp`). */
  readonly url: string;
  readonly port: number;
  /** The metrics port's URL when `metrics.port` is set. */
  readonly metricsUrl?: string;
  /** Open sessions. */
  sessionCount(): number;
  /** Writes pending usage counters now. */
  flushUsage(): Promise<void>;
  /** Stops accepting, finishes in-flight requests, closes sessions, flushes usage (and stops the kernel). */
  close(): Promise<void>;
  readonly closed: Promise<void>;
}

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]', '::1'];

interface Session {
  transport: SessionTransport;
  bound: BoundMcpServer;
  keyId: string | undefined;
  lastSeen: number;
}

/** A request past the API-key check (Express's or a plain Node one: the POST path skips Express). */
interface AuthedRequest extends IncomingMessage {
  auth?: { token: string; clientId: string; scopes: string[]; extra?: Record<string, unknown> };
  apiKey?: ApiKeyRecord;
  body?: unknown;
}

/** Writes a JSON body (as Express's `res.json` did, with plain Node calls: the POST path has no Express). */
function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** A catalog error as an HTTP answer: JSON-RPC error shape (what MCP clients parse) carrying the payload. */
function sendError(res: ServerResponse, status: number, payload: ErrorPayload): void {
  sendJson(res, status, {
    jsonrpc: '2.0',
    error: { code: -32001, message: `${payload.code}: ${payload.message}`, data: payload },
    id: null,
  });
}

function sendRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}

/** The path of a request URL (no query). */
function pathOf(url: string | undefined): string {
  if (!url) return '/';
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

const EXPOSED_HEADERS = [
  'Mcp-Session-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'WWW-Authenticate',
];

const authRequired = () => new ProContextError('AUTH_REQUIRED', 'This server needs an API key.').toPayload();
const authInvalid = () =>
  new ProContextError('AUTH_INVALID', 'The API key is not valid: unknown, malformed or revoked.').toPayload();

/**
 * Serves a started kernel as an MCP server over Streamable HTTP on `/mcp` (seed 001 §2.2, US-8, §10.3,
 * §10.4): stateful sessions (one MCP server per session from one binding) or stateless, Bearer API keys,
 * per-key token buckets, usage per key, Host/Origin checks, CORS, `GET /health` and `GET /metrics`.
 */
export async function serveHttp(kernel: StartedKernel, options: HttpHostOptions): Promise<HttpServerHandle> {
  const host = options.host ?? '127.0.0.1';
  const auth = options.auth ?? 'apiKey';
  const loopback = isLoopback(host);
  const logger = kernel.logger.child({ host: 'http' });
  if (auth === 'none' && !loopback) {
    throw new ProContextError(
      'CONFIG_INVALID',
      `server.auth is 'none' but server.host is ${host}: without API keys the server may only listen on a loopback address.`,
      { suggestion: "Set server.auth to 'apiKey' and create keys with pro-context-admin, or bind 127.0.0.1." },
    );
  }
  const keys: KeyStore | undefined = auth === 'apiKey' ? kernel.resolve(keyStoreToken) : undefined;
  const usageStore: UsageStore | undefined =
    auth === 'apiKey' && kernel.isBound(usageStoreToken) ? kernel.resolve(usageStoreToken) : undefined;
  const usage = usageStore ? new UsageRecorder(usageStore, logger) : undefined;
  const defaultLimit = options.rateLimit ?? { maxRequestsPerMinute: 60, burstSize: 10 };
  const buckets = new TokenBuckets();
  const sessions = new Map<string, Session>();
  const metrics = new HostMetrics(kernel, () => sessions.size);
  const maxSessions = options.maxSessions ?? 100;
  const maxSessionsPerKey = options.maxSessionsPerKey ?? 10;
  /** Sessions being opened (an `initialize` under way, not in `sessions` yet), in all and per key. */
  let opening = 0;
  const openingByKey = new Map<string, number>();
  const idleMs = options.sessionIdleMs ?? 30 * 60_000;
  const corsOrigins = options.corsOrigins ?? ['*'];
  const anyOrigin = corsOrigins.includes('*');

  // one runner and one binding per process; every session's server comes from it (no tool registered twice)
  const inner: ToolRunner = options.runner ?? createToolRunner(kernel);
  const runner: ToolRunner = {
    get tools() {
      return inner.tools;
    },
    definition: (name) => inner.definition(name),
    async call(name, args, callOptions = {}) {
      const started = performance.now();
      const outcome = await inner.call(name, args, callOptions);
      const known = inner.definition(name) ? name : 'unknown';
      metrics.toolCalls.inc({ tool: known, outcome: outcome.ok ? 'ok' : String(outcome.error.code) });
      metrics.toolDuration.observe({ tool: known }, (performance.now() - started) / 1000);
      const keyId = callOptions.caller?.clientId;
      if (keyId && usage) usage.toolCall(keyId, known, !outcome.ok);
      // a directly answered tools/call of a tool that said its answer may be served again: the transport keeps it
      if (outcome.ok && outcome.reusable) {
        const slot = currentMemoSlot();
        if (slot && slot.tool === name) slot.reusable = outcome.reusable;
      }
      return outcome;
    },
  };
  const memoOptions = options.answerMemo ?? {};
  const answerMemo =
    (memoOptions.enabled ?? true)
      ? new AnswerMemo(memoOptions.maxEntries ?? 1000, (memoOptions.maxMB ?? 16) * 1024 * 1024)
      : undefined;
  // answers whose check no longer holds leave memory even when nobody asks for them again
  const memoSweep = answerMemo ? setInterval(() => answerMemo.sweep(), 30_000) : undefined;
  memoSweep?.unref();
  // a call answered from the memo counts as the call it repeats: metrics, usage, a log record
  const memoLogger = logger.child({ memo: true });
  const memo: MemoHooks | undefined = answerMemo && {
    store: answerMemo,
    onHit(tool, req, ms) {
      metrics.toolCalls.inc({ tool, outcome: 'ok' });
      metrics.toolDuration.observe({ tool }, ms / 1000);
      metrics.memoHits.inc({ tool });
      const keyId = req.auth?.clientId;
      if (keyId && usage) usage.toolCall(keyId, tool, false);
      memoLogger.info('tool call answered again from the answer memo', { tool });
    },
  };
  const binding = createMcpBinding(kernel, { ...options, runner });
  const health: ResourceDefinition | undefined = kernel
    .resolveAll(toolPluginToken)
    .flatMap((p) => p.resources?.() ?? [])
    .find((r) => r.uri === 'pro-context://health');

  let inFlight = 0;
  let shuttingDown = false;
  let drained: (() => void) | undefined;

  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);

  // DNS-rebinding protection: the Host header must name this server
  // loopback names always pass (a rebinding attack arrives with the attacker's name in Host, never these)
  const extraHosts = options.allowedHosts ?? [];
  const allowedHosts = loopback || extraHosts.length > 0 ? [...LOOPBACK_HOSTS, ...extraHosts] : [];
  /** DNS-rebinding protection (what the SDK's `hostHeaderValidation` does): a refused Host is answered 403 here. */
  const hostVerdicts = new Map<string, string | null>();
  const hostRefusal = (hostHeader: string | undefined): string | null => {
    if (!hostHeader) return 'Missing Host header';
    // the few Host values clients send, checked once each (`null`: allowed)
    const known = hostVerdicts.get(hostHeader);
    if (known !== undefined) return known;
    let verdict: string | null = null;
    try {
      const hostname = new URL(`http://${hostHeader}`).hostname;
      if (!allowedHosts.includes(hostname)) verdict = `Invalid Host: ${hostname}`;
    } catch {
      verdict = `Invalid Host header: ${hostHeader}`;
    }
    if (hostVerdicts.size >= 256) hostVerdicts.clear();
    hostVerdicts.set(hostHeader, verdict);
    return verdict;
  };
  const hostAllowed = (req: IncomingMessage, res: ServerResponse): boolean => {
    if (allowedHosts.length === 0) return true;
    const refusal = hostRefusal(req.headers.host);
    if (refusal === null) return true;
    sendRpcError(res, 403, -32000, refusal);
    return false;
  };
  if (allowedHosts.length > 0)
    app.use((req, res, next) => {
      if (hostAllowed(req, res)) next();
    });
  else
    logger.warn(
      `listening on ${host} with no server.allowedHosts: the Host header is not checked (DNS-rebinding protection is off). List the names clients use in server.allowedHosts.`,
    );
  /** The Origin check: a refused origin is answered 403 here (false). */
  const originAllowed = (req: IncomingMessage, res: ServerResponse): boolean => {
    const origin = req.headers.origin;
    if (origin && !anyOrigin && !corsOrigins.includes(origin)) {
      metrics.httpRequests.inc({ method: req.method ?? '', route: pathOf(req.url), status: '403' });
      sendRpcError(res, 403, -32000, `Origin not allowed: ${origin}`);
      return false;
    }
    return true;
  };
  app.use((req, res, next) => {
    if (originAllowed(req, res)) next();
  });
  const exposed = EXPOSED_HEADERS.join(',');
  /** What the `cors` middleware sets on a request that is not a preflight (the POST path's). */
  const corsHeaders = (req: IncomingMessage, res: ServerResponse) => {
    if (anyOrigin) res.setHeader('Access-Control-Allow-Origin', '*');
    else {
      const origin = req.headers.origin;
      if (origin && corsOrigins.includes(origin)) res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Vary', 'Origin');
    }
    res.setHeader('Access-Control-Expose-Headers', exposed);
  };
  app.use(
    cors({
      origin: anyOrigin ? '*' : corsOrigins,
      exposedHeaders: EXPOSED_HEADERS,
      allowedHeaders: [
        'Authorization',
        'Content-Type',
        'Accept',
        'Mcp-Session-Id',
        'Mcp-Protocol-Version',
        'Last-Event-ID',
      ],
      methods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
    }),
  );

  app.get('/health', async (_req, res) => {
    const facts = health ? JSON.parse(redactString((await health.read()).text)) : { status: 'healthy' };
    res.json({
      ...facts,
      server: { transport: 'http', stateless: options.stateless ?? false, sessions: sessions.size },
    });
  });

  const serveMetrics = async (_req: Request, res: Response) => {
    // label values come from spans and requests: masked like a log line before they leave
    res.set('Content-Type', metrics.registry.contentType).send(redactString(await metrics.registry.metrics()));
  };

  /** API key and rate limit; sets `req.auth` (reaches tool handlers as the caller) and the rate headers. */
  const authenticate = async (req: AuthedRequest, res: ServerResponse, next: (error?: unknown) => void) => {
    if (!keys) return next();
    try {
      const check = await checkAuthorization(keys, req.headers.authorization);
      if (!check.ok) {
        const missing = check.reason === 'missing';
        metrics.authFailures.inc({ code: missing ? 'AUTH_REQUIRED' : 'AUTH_INVALID' });
        res.setHeader(
          'WWW-Authenticate',
          missing ? 'Bearer realm="pro-context"' : 'Bearer realm="pro-context", error="invalid_token"',
        );
        sendError(res, 401, missing ? authRequired() : authInvalid());
        return;
      }
      const key = check.record;
      const decision = buckets.take(key.id, key.rateLimit ?? defaultLimit);
      res.setHeader('X-RateLimit-Limit', String(decision.limit));
      res.setHeader('X-RateLimit-Remaining', String(decision.remaining));
      res.setHeader('X-RateLimit-Reset', String(decision.reset));
      usage?.request(key.id, !decision.allowed);
      if (!decision.allowed) {
        metrics.rateLimited.inc({ key: key.id });
        res.setHeader('Retry-After', String(decision.retryAfter));
        sendError(
          res,
          429,
          new ProContextError(
            'RATE_LIMITED',
            `API key '${key.name}' is over its limit of ${(key.rateLimit ?? defaultLimit).maxRequestsPerMinute} requests per minute (burst ${decision.limit}).`,
            { retryAfter: decision.retryAfter },
          ).toPayload(),
        );
        return;
      }
      req.apiKey = key;
      req.auth = { token: key.id, clientId: key.id, scopes: [], extra: { keyName: key.name } };
      next();
    } catch (error) {
      next(error);
    }
  };

  /**
   * A batch (a JSON array of JSON-RPC messages, which protocol versions before 2025-06-18 allow) costs one token
   * per message: the request paid one in {@link authenticate}, the rest are taken here, all or none. A batch
   * larger than the key's burst can never pass and says so; one the bucket cannot pay now gets 429 with
   * `Retry-After`. Nothing of a refused batch runs. False when refused (answered here).
   */
  const chargeBatch = (req: AuthedRequest, res: ServerResponse): boolean => {
    const key = req.apiKey;
    if (!key || !Array.isArray(req.body) || req.body.length <= 1) return true;
    const size = req.body.length;
    const limit = key.rateLimit ?? defaultLimit;
    const refuse = (decision: { retryAfter: number } | undefined, message: string, suggestion?: string) => {
      metrics.rateLimited.inc({ key: key.id });
      usage?.request(key.id, true);
      if (decision) res.setHeader('Retry-After', String(decision.retryAfter));
      sendError(
        res,
        429,
        new ProContextError('RATE_LIMITED', message, {
          ...(decision ? { retryAfter: decision.retryAfter } : {}),
          ...(suggestion ? { suggestion } : {}),
        }).toPayload(),
      );
      return false;
    };
    if (size > limit.burstSize)
      return refuse(
        undefined,
        `A batch of ${size} JSON-RPC messages is more than API key '${key.name}' may send at once (each message counts as a request; burst ${limit.burstSize}).`,
        `Send at most ${limit.burstSize} messages per request, or one message per request.`,
      );
    const decision = buckets.take(key.id, limit, size - 1);
    res.setHeader('X-RateLimit-Remaining', String(decision.remaining));
    res.setHeader('X-RateLimit-Reset', String(decision.reset));
    if (!decision.allowed)
      return refuse(
        decision,
        `API key '${key.name}' is over its limit of ${limit.maxRequestsPerMinute} requests per minute (burst ${decision.limit}): a batch of ${size} messages counts as ${size} requests.`,
      );
    for (let i = 1; i < size; i += 1) usage?.request(key.id, false);
    return true;
  };

  const metricsOptions = options.metrics ?? {};
  if ((metricsOptions.enabled ?? true) && metricsOptions.port === undefined) {
    if ((metricsOptions.auth ?? 'apiKey') === 'apiKey' && keys) app.get('/metrics', authenticate, serveMetrics);
    else app.get('/metrics', serveMetrics);
  }

  // in-flight bookkeeping for a graceful stop (standalone SSE streams are not "in flight": closing ends them)
  const track = (req: IncomingMessage, res: ServerResponse, next: () => void) => {
    if (shuttingDown) {
      res.setHeader('Connection', 'close');
      sendRpcError(res, 503, -32000, 'Server is shutting down');
      return;
    }
    const counted = req.method !== 'GET';
    if (counted) inFlight += 1;
    res.on('close', () => {
      metrics.httpRequests.inc({ method: req.method ?? '', route: '/mcp', status: String(res.statusCode) });
      const keyId = (req as AuthedRequest).apiKey?.id;
      if (keyId && usage && res.statusCode >= 400) usage.failed(keyId);
      if (counted) {
        inFlight -= 1;
        if (inFlight === 0) drained?.();
      }
    });
    next();
  };

  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const json = express.json({ limit: maxBodyBytes, type: () => true });
  const bodyError = (res: ServerResponse, tooLarge: boolean) => {
    if (tooLarge) {
      res.setHeader('Connection', 'close');
      sendRpcError(res, 413, -32600, 'Request body too large');
    } else sendRpcError(res, 400, -32700, 'Parse error: the body is not JSON');
  };
  const parseBody = (req: AuthedRequest, res: ServerResponse, next: () => void) => {
    const fallback = readJsonBody(req, maxBodyBytes, (result) => {
      if (!result.ok) return bodyError(res, result.error === 'too-large');
      req.body = result.body;
      next();
    });
    // a compressed body: body-parser inflates it
    if (fallback === 'encoded')
      json(req as Request, res as Response, (error?: unknown) => {
        if (!error) return next();
        bodyError(res, (error as { status?: number }).status === 413);
      });
  };

  const closeSession = async (id: string) => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    session.bound.dispose();
    await session.transport.close().catch(() => undefined);
    await session.bound.server.close().catch(() => undefined);
  };

  /** POST /mcp's handler, once the request is tracked, authenticated and its body read. */
  let handlePost: (req: AuthedRequest, res: ServerResponse) => Promise<void>;
  // stateless: one server answers every plain request directly; the rest get a server and SDK transport each
  let stateless: { bound: BoundMcpServer; transport: StatelessTransport } | undefined;
  if (options.stateless) {
    const shared = { bound: binding.createServer({ subscriptions: false }), transport: new StatelessTransport(memo) };
    await shared.bound.server.connect(shared.transport);
    stateless = shared;
    handlePost = async (req: AuthedRequest, res: ServerResponse) => {
      if (shared.transport.handleRequest(req as HostRequest, res, req.body)) return;
      const bound = binding.createServer({ subscriptions: false });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        bound.dispose();
        void transport.close().catch(() => undefined);
        void bound.server.close().catch(() => undefined);
      });
      try {
        await bound.server.connect(transport);
        await transport.handleRequest(req as never, res, req.body);
      } catch (error) {
        logger.error('request failed', { error });
        sendRpcError(res, 500, -32603, 'Internal server error');
      }
    };
    const notAllowed = (_req: Request, res: Response) => {
      res.setHeader('Allow', 'POST');
      sendRpcError(res, 405, -32000, 'Method not allowed: this server is stateless (POST only).');
    };
    app.get('/mcp', track, authenticate, notAllowed);
    app.delete('/mcp', track, authenticate, notAllowed);
  } else {
    const sessionOf = (req: AuthedRequest, res: ServerResponse): Session | undefined => {
      const id = req.headers['mcp-session-id'];
      const session = typeof id === 'string' ? sessions.get(id) : undefined;
      // a session belongs to the key that opened it
      if (!session || session.keyId !== req.apiKey?.id) {
        sendRpcError(res, 404, -32001, 'Session not found');
        return undefined;
      }
      session.lastSeen = Date.now();
      return session;
    };
    handlePost = async (req: AuthedRequest, res: ServerResponse) => {
      try {
        if (req.headers['mcp-session-id'] !== undefined) {
          const session = sessionOf(req, res);
          if (session) await session.transport.handleRequest(req as HostRequest, res, req.body);
          return;
        }
        if (!isInitializeRequest(req.body)) {
          sendRpcError(res, 400, -32000, 'Bad Request: no session; the first request must be initialize.');
          return;
        }
        const keyId = req.apiKey?.id;
        if (keyId !== undefined && req.apiKey) {
          let own = openingByKey.get(keyId) ?? 0;
          for (const session of sessions.values()) if (session.keyId === keyId) own += 1;
          if (own >= maxSessionsPerKey) {
            const retryAfter = Math.max(1, Math.ceil(Math.min(idleMs, 60_000) / 1000));
            res.setHeader('Retry-After', String(retryAfter));
            sendError(
              res,
              429,
              new ProContextError(
                'RATE_LIMITED',
                `API key '${req.apiKey.name}' already has ${own} open sessions, the most one key may hold (server.maxSessionsPerKey: ${maxSessionsPerKey}).`,
                {
                  retryAfter,
                  suggestion: `Reuse an open session, or end one (DELETE /mcp with its Mcp-Session-Id); an idle session closes after ${Math.round(idleMs / 60_000)} min.`,
                },
              ).toPayload(),
            );
            return;
          }
        }
        if (sessions.size + opening >= maxSessions) {
          res.setHeader('Retry-After', '60');
          sendRpcError(res, 503, -32000, `Too many sessions (${maxSessions}); try again later.`);
          return;
        }
        const bound = binding.createServer();
        const transport = new SessionTransport(
          {
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: (id) => {
              sessions.set(id, { transport, bound, keyId, lastSeen: Date.now() });
            },
          },
          memo,
        );
        transport.onclose = () => {
          const id = transport.sessionId;
          if (id && sessions.get(id)?.transport === transport) {
            sessions.delete(id);
            bound.dispose();
          }
        };
        opening += 1;
        if (keyId !== undefined) openingByKey.set(keyId, (openingByKey.get(keyId) ?? 0) + 1);
        try {
          await bound.server.connect(transport);
          await transport.handleRequest(req as never, res, req.body);
        } finally {
          opening -= 1;
          if (keyId !== undefined) {
            const left = (openingByKey.get(keyId) ?? 1) - 1;
            if (left > 0) openingByKey.set(keyId, left);
            else openingByKey.delete(keyId);
          }
        }
      } catch (error) {
        logger.error('request failed', { error });
        sendRpcError(res, 500, -32603, 'Internal server error');
      }
    };
    const existing = async (req: AuthedRequest, res: Response) => {
      const session = sessionOf(req, res);
      if (!session) return;
      try {
        await session.transport.handleRequest(req as HostRequest, res);
      } catch (error) {
        logger.error('request failed', { error });
        sendRpcError(res, 500, -32603, 'Internal server error');
      }
    };
    app.get('/mcp', track, authenticate, existing);
    app.delete('/mcp', track, authenticate, existing);
  }

  /** POST /mcp past the Host, Origin and CORS steps: in-flight tracking, API key and rate limit, body, handler. */
  const postMcp = (req: AuthedRequest, res: ServerResponse) =>
    track(req, res, () => {
      void authenticate(req, res, (error?: unknown) => {
        if (error !== undefined) {
          logger.error('request failed', { error });
          sendRpcError(res, 500, -32603, 'Internal server error');
          return;
        }
        parseBody(req, res, () => {
          if (chargeBatch(req, res)) void handlePost(req, res);
        });
      });
    });
  app.post('/mcp', (req: Request, res: Response) => postMcp(req, res));
  app.use((_req: Request, res: Response) => sendRpcError(res, 404, -32601, 'Not found: the MCP endpoint is /mcp'));

  /**
   * The server's request handler: POST /mcp (every MCP call) takes the same steps as through Express (Host
   * check, Origin check, CORS headers, then {@link postMcp}) without Express's per-request routing and the
   * `cors` package's option handling; everything else goes to Express.
   */
  const front = (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'POST' && pathOf(req.url) === '/mcp') {
      if (!hostAllowed(req, res) || !originAllowed(req, res)) return;
      corsHeaders(req, res);
      postMcp(req, res);
      return;
    }
    app(req, res);
  };

  const reaper = setInterval(
    () => {
      const cutoff = Date.now() - idleMs;
      for (const [id, session] of sessions) if (session.lastSeen < cutoff) void closeSession(id);
    },
    Math.max(1000, Math.min(60_000, idleMs / 2)),
  );
  reaper.unref();

  // slow clients (slow headers, slow bodies, idle keep-alive connections) hold no connection past these
  const headersTimeout = options.headersTimeoutMs ?? 10_000;
  const requestTimeout = Math.max(options.requestTimeoutMs ?? 30_000, headersTimeout);
  const keepAliveTimeout = options.keepAliveTimeoutMs ?? 5_000;
  const listen = (handler: (req: IncomingMessage, res: ServerResponse) => void, port: number) =>
    new Promise<Server>((resolve, reject) => {
      const server = createServer(
        {
          headersTimeout,
          requestTimeout,
          keepAliveTimeout,
          // how often Node looks for connections past headersTimeout/requestTimeout (its default: every 30 s)
          connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(headersTimeout / 2))),
        },
        handler,
      ).listen(port, host);
      server.once('listening', () => resolve(server));
      server.once('error', reject);
    });
  const server = await listen(front, options.port ?? 3100);
  let metricsServer: Server | undefined;
  if ((metricsOptions.enabled ?? true) && metricsOptions.port !== undefined) {
    const metricsApp = express();
    metricsApp.get('/metrics', serveMetrics);
    metricsServer = await listen(metricsApp, metricsOptions.port);
  }
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  const url = `http://${urlHost}:${port}`;
  if (auth === 'none')
    logger.warn('API keys are off (server.auth: none): anyone who can reach this loopback port may use the server');

  let resolveClosed: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      shuttingDown = true;
      clearInterval(reaper);
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      if (inFlight > 0) {
        await Promise.race([
          new Promise<void>((resolve) => {
            drained = resolve;
          }),
          new Promise<void>((resolve) => setTimeout(resolve, options.shutdownGraceMs ?? 10_000).unref()),
        ]);
      }
      await Promise.all([...sessions.keys()].map(closeSession));
      if (stateless) {
        stateless.bound.dispose();
        await stateless.transport.close();
        await stateless.bound.server.close().catch(() => undefined);
      }
      server.closeAllConnections();
      await stopped;
      if (metricsServer) {
        metricsServer.closeAllConnections();
        await new Promise<void>((resolve) => metricsServer?.close(() => resolve()));
      }
      metrics.close();
      clearInterval(memoSweep);
      answerMemo?.clear();
      await usage?.close();
      if (options.stopKernel ?? true) await kernel.stop();
      logger.info('pro-context HTTP server stopped');
      resolveClosed();
    })();
    return closing;
  };
  if (options.handleSignals) {
    const stop = () => void close().finally(() => process.exit(0));
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  }
  logger.info('pro-context HTTP server ready', {
    url: `${url}/mcp`,
    stateless: options.stateless ?? false,
    auth,
    plugins: kernel.plugins.map((p) => p.id),
  });
  return {
    url,
    port,
    ...(metricsServer ? { metricsUrl: `http://${urlHost}:${(metricsServer.address() as AddressInfo).port}` } : {}),
    sessionCount: () => sessions.size,
    flushUsage: async () => usage?.flush(),
    close,
    closed,
  };
}

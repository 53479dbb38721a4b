import type { RateLimitSettings } from '@pro-context/access';
import type { McpServerOptions } from '@pro-context/mcp';
import type { AnswerMemoOptions } from './memo.js';

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
   * Serialized answers of tools that say they may be served again (`ToolResult.reuse`: get-docs from docs in
   * memory), answered without running the tool while the kernel's `AnswerRevisions` is at the answer's
   * revision and before its `until` (default: on, 1000 answers, 16 MB).
   */
  answerMemo?: AnswerMemoOptions;
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

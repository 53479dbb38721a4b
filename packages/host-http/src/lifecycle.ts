import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HostMetrics } from './metrics.js';
import { type HostRequest, type Step, sendRpcError } from './respond.js';
import type { UsageRecorder } from './usage.js';

/** Connection timeouts (`HttpHostOptions`'s `headersTimeoutMs`, `requestTimeoutMs`, `keepAliveTimeoutMs`). */
export interface ConnectionTimeouts {
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  keepAliveTimeoutMs?: number;
}

/**
 * Listens on `host:port`. Slow clients (slow headers, slow bodies, idle keep-alive connections) hold no
 * connection past the timeouts (defaults 10 s, 30 s, 5 s): Node's `headersTimeout`, `requestTimeout` and
 * `keepAliveTimeout`, checked every `min(1 s, headersTimeout / 2)` instead of Node's 30 s.
 */
export function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  host: string,
  port: number,
  timeouts: ConnectionTimeouts,
): Promise<Server> {
  const headersTimeout = timeouts.headersTimeoutMs ?? 10_000;
  const requestTimeout = Math.max(timeouts.requestTimeoutMs ?? 30_000, headersTimeout);
  const keepAliveTimeout = timeouts.keepAliveTimeoutMs ?? 5_000;
  return new Promise<Server>((resolve, reject) => {
    const server = createServer(
      {
        headersTimeout,
        requestTimeout,
        keepAliveTimeout,
        connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(headersTimeout / 2))),
      },
      handler,
    ).listen(port, host);
    server.once('listening', () => resolve(server));
    server.once('error', reject);
  });
}

/** `http://host:port` of a listening server (IPv6 hosts in brackets). */
export function urlOf(server: Server, host: string): string {
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `http://${urlHost}:${port}`;
}

/** Stops accepting connections now; the function returned closes those still open and waits for the close. */
export function stopAccepting(server: Server): () => Promise<void> {
  const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
  return async () => {
    server.closeAllConnections();
    await stopped;
  };
}

/**
 * In-flight bookkeeping for a graceful stop, and the per-request counts: once stopping, a request gets 503
 * `Server is shutting down` (`Connection: close`); otherwise it is counted in flight until its response
 * closes (standalone SSE streams, `GET`, are not: closing ends them), then in
 * `pro_context_http_requests_total` and, when answered with an error status, in its key's usage.
 */
export class InFlight {
  private count = 0;
  private stopping = false;
  private drained: (() => void) | undefined;

  constructor(
    private readonly metrics: HostMetrics,
    private readonly usage: UsageRecorder | undefined,
  ) {}

  readonly step: Step = (req: HostRequest, res, next) => {
    if (this.stopping) {
      res.setHeader('Connection', 'close');
      sendRpcError(res, 503, -32000, 'Server is shutting down');
      return;
    }
    const counted = req.method !== 'GET';
    if (counted) this.count += 1;
    res.on('close', () => {
      this.metrics.httpRequests.inc({ method: req.method ?? '', route: '/mcp', status: String(res.statusCode) });
      const keyId = req.apiKey?.id;
      if (keyId && this.usage && res.statusCode >= 400) this.usage.failed(keyId);
      if (counted) {
        this.count -= 1;
        if (this.count === 0) this.drained?.();
      }
    });
    next();
  };

  /** Refuses new requests from now on; resolves when those in flight are done, or after `graceMs`. */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    if (this.count === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => {
        this.drained = resolve;
      }),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
        timer.unref();
      }),
    ]);
    clearTimeout(timer);
  }
}

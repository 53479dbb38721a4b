import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a fake search API answered. */
export interface FakeApiRequest {
  method: string;
  /** Path and query as requested. */
  path: string;
  /** Lower-cased request headers (the tests check the key was sent; the fakes never log them). */
  headers: Record<string, string>;
  /** The JSON body, parsed (`undefined` when absent or not JSON). */
  body: unknown;
  /** The status answered (`0` while hanging). */
  status: number;
}

/** A failure a fake API plays for the requests whose path contains `path` (every request by default). */
export interface FakeApiFault {
  path?: string;
  /** Answer with this status and the API's own error body (or `body`) instead of the real answer. */
  status?: number;
  /** Raw body sent with `status` (a gateway's HTML page, say). */
  body?: string;
  /** A JSON body sent instead of the real answer, with `status` (default 200): an answer of the wrong shape. */
  json?: unknown;
  /** `Retry-After` seconds sent with the status. */
  retryAfter?: number;
  /** Headers sent with `status` (a redirect's `location`). */
  headers?: Record<string, string>;
  /** Wait this long before answering (past the client's timeout, for a slow upstream). */
  delayMs?: number;
  /** Never answer (the client's deadline or abort ends the request). */
  hang?: boolean;
  /** Play the fault for this many requests, then answer normally (default: until cleared). */
  times?: number;
}

/** What a route answers. */
export interface FakeApiAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** A loopback fake of a JSON API. */
export interface FakeApi {
  /** `http://127.0.0.1:<port>`: the base URL to configure the plugin with. */
  url: string;
  /** Every request so far, in order (clear with `requests.length = 0`). */
  requests: FakeApiRequest[];
  /** How many requests had a path containing `path` (all without it). */
  count(path?: string): number;
  /** Plays a failure from now on; `fault()` clears it. */
  fault(spec?: FakeApiFault): void;
  /** Stops listening (open connections closed): connecting to `url` is refused until {@link FakeApi.accept}. */
  refuse(): Promise<void>;
  /** Listens again on the same port after {@link FakeApi.refuse}. */
  accept(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts a loopback JSON API: `route` answers each request; faults replace answers with `errorBody(status)`
 * shaped as the real API's errors.
 */
export async function startFakeApi(
  route: (request: FakeApiRequest) => FakeApiAnswer,
  errorBody: (status: number, path: string) => unknown,
): Promise<FakeApi> {
  const requests: FakeApiRequest[] = [];
  let fault: FakeApiFault | undefined;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = undefined;
      }
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string') headers[name] = value;
        else if (Array.isArray(value)) headers[name] = value.join(', ');
      }
      const request: FakeApiRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers, body, status: 0 };
      requests.push(request);
      const active = fault && (!fault.path || request.path.includes(fault.path)) ? fault : undefined;
      if (active?.times !== undefined && --active.times <= 0) fault = undefined;
      if (active?.hang) return;
      const answer = (): FakeApiAnswer => {
        if (active?.json !== undefined) return { status: active.status ?? 200, body: active.json };
        if (active?.status !== undefined) {
          return {
            status: active.status,
            body: active.body ?? errorBody(active.status, request.path),
            headers: {
              ...(active.retryAfter === undefined ? {} : { 'retry-after': String(active.retryAfter) }),
              ...active.headers,
            },
          };
        }
        return route(request);
      };
      const send = () => {
        const value = answer();
        request.status = value.status;
        if (res.destroyed) return;
        const text = typeof value.body === 'string' ? value.body : JSON.stringify(value.body);
        const type = typeof value.body === 'string' ? 'text/html; charset=utf-8' : 'application/json; charset=utf-8';
        res.writeHead(value.status, { 'content-type': type, ...value.headers }).end(text);
      };
      if (active?.delayMs) setTimeout(send, active.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    requests,
    count: (path) => (path === undefined ? requests.length : requests.filter((r) => r.path.includes(path)).length),
    fault(spec) {
      fault = spec ? { ...spec } : undefined;
    },
    async refuse() {
      if (!server.listening) return;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    async accept() {
      if (server.listening) return;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      });
    },
    async close() {
      if (!server.listening) return;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a fake registry answered. */
export interface FakeRegistryRequest {
  /** Path and query as requested (`/pypi/fastapi/json`, `/@tanstack%2freact-query`). */
  path: string;
  /** The request's `Accept` header. */
  accept?: string;
  /** The status answered. */
  status: number;
}

/** A failure a fake registry plays for the requests whose path contains `path` (every request by default). */
export interface FakeRegistryFault {
  path?: string;
  /** Answer with this status (and `body`, default a JSON error) instead of the real answer. */
  status?: number;
  body?: string;
  /** `Retry-After` seconds sent with the status. */
  retryAfter?: number;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Never answer (the client's deadline or abort ends the request). */
  hang?: boolean;
  /** Play the fault for this many requests, then answer normally (default: until cleared). */
  times?: number;
}

/** A loopback package registry for tests. */
export interface FakeRegistry {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** The registry URL to configure a resolver with. */
  url: string;
  /** Every request answered so far, in order (clear with `requests.length = 0`). */
  requests: FakeRegistryRequest[];
  /** How many requests had a path containing `path` (all requests without it). */
  count(path?: string): number;
  /** Plays a failure from now on; `fault()` clears it. */
  fault(spec?: FakeRegistryFault): void;
  close(): Promise<void>;
}

/** What a registry route answers. */
export interface FakeAnswer {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

export const json = (status: number, value: unknown, contentType = 'application/json'): FakeAnswer => ({
  status,
  body: JSON.stringify(value),
  headers: { 'content-type': contentType },
});

/** Starts a loopback HTTP server answering with `route`, recording requests and playing faults. */
export async function startFakeRegistry(
  route: (path: string, accept: string | undefined, origin: string) => FakeAnswer,
  urlOf: (origin: string) => string,
): Promise<FakeRegistry> {
  const requests: FakeRegistryRequest[] = [];
  let fault: FakeRegistryFault | undefined;
  let origin = '';
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    const accept = req.headers.accept;
    const active = fault && (!fault.path || path.includes(fault.path)) ? fault : undefined;
    if (active?.times !== undefined && --active.times <= 0) fault = undefined;
    const answer = (value: FakeAnswer) => {
      requests.push({ path, ...(accept === undefined ? {} : { accept }), status: value.status });
      if (res.destroyed) return;
      res.writeHead(value.status, value.headers).end(value.body);
    };
    if (active?.hang) {
      requests.push({ path, ...(accept === undefined ? {} : { accept }), status: 0 });
      return;
    }
    const real = (): FakeAnswer =>
      active?.status !== undefined
        ? {
            status: active.status,
            body: active.body ?? JSON.stringify({ error: http.STATUS_CODES[active.status] ?? 'error' }),
            headers: {
              'content-type': 'application/json',
              ...(active.retryAfter === undefined ? {} : { 'retry-after': String(active.retryAfter) }),
            },
          }
        : route(path, accept, origin);
    if (active?.delayMs) setTimeout(() => answer(real()), active.delayMs);
    else answer(real());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: urlOf(origin),
    requests,
    count: (path) => (path === undefined ? requests.length : requests.filter((r) => r.path.includes(path)).length),
    fault(spec) {
      fault = spec ? { ...spec } : undefined;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Compares two dotted versions by their leading numbers (enough to order fixtures; not PEP 440 or semver). */
export function compareLoosely(a: string, b: string): number {
  const parts = (v: string) => (/^\d+(?:\.\d+)*/.exec(v)?.[0] ?? '0').split('.').map(Number);
  const [pa, pb] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const diff = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

/** A deterministic digest of `text` (`sha256`, `sha1`, `md5` hex; `sha512` for npm's base64 integrity), for fake checksums. */
export function fakeDigest(text: string, algorithm: 'sha256' | 'sha1' | 'md5' | 'blake2b512' = 'sha256'): string {
  return createHash(algorithm).update(text).digest('hex');
}

/** An npm-style `sha512-…` integrity string of `text`. */
export function fakeIntegrity(text: string): string {
  return `sha512-${createHash('sha512').update(text).digest('base64')}`;
}

import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * One way an upstream fails, as the fault-injection suite plays it (issue #26): at the transport (a reset in the
 * middle of the body, headers or body slower than the caller's deadline) or in what comes back (a 5xx, a 429 with
 * `Retry-After`, a truncated or garbage body, the wrong content type, a redirect loop). Faults a server cannot play
 * (refused by policy, a DNS failure, a refused connection) are played by the URL the client is given:
 * {@link unreachableUpstreams}.
 */
export type UpstreamFaultKind =
  | 'reset-mid-body'
  | 'slow-headers'
  | 'slow-body'
  | 'status-500'
  | 'status-502'
  | 'status-503'
  | 'rate-limited'
  | 'truncated-body'
  | 'garbage-body'
  | 'wrong-content-type'
  | 'redirect-loop';

/** Every fault a {@link FaultInjector} plays, in the order the suite's matrix lists them. */
export const upstreamFaultKinds: readonly UpstreamFaultKind[] = [
  'reset-mid-body',
  'slow-headers',
  'slow-body',
  'status-500',
  'status-502',
  'status-503',
  'rate-limited',
  'truncated-body',
  'garbage-body',
  'wrong-content-type',
  'redirect-loop',
];

/** A fault to play, for requests whose path contains `path` (all by default). */
export interface UpstreamFault {
  kind: UpstreamFaultKind;
  path?: string;
  /** How long `slow-headers` and `slow-body` wait, ms (default 2 000: longer than the tests' deadlines). */
  delayMs?: number;
  /** `Retry-After` seconds of `rate-limited` (default 1) and of `status-503` (none by default). */
  retryAfter?: number;
  /** Play it for this many requests, then pass them through (default: until cleared). */
  times?: number;
}

/** A loopback reverse proxy in front of a fake upstream that plays {@link UpstreamFault}s. */
export interface FaultInjector {
  /** `http://127.0.0.1:<port>`: give the client this origin instead of the upstream's. */
  origin: string;
  /** `url` of the upstream with its origin replaced by the injector's. */
  urlFor(url: string): string;
  /** Requests received (path and the fault played, if any). */
  requests: { path: string; method: string; fault?: UpstreamFaultKind }[];
  /** Plays a fault from now on; `fault()` clears it (requests then pass through to the upstream). */
  fault(spec?: UpstreamFault): void;
  close(): Promise<void>;
}

const GARBAGE = '\u0000\u00ff<<<\u0007 not what was asked for \u0001\u0002 {"unterminated": [';

/**
 * Starts a {@link FaultInjector} in front of `upstream` (an origin, e.g. a fake registry's): requests pass through
 * unchanged until a fault is set. Stops itself on `close()`; a slow fault's timers end with it.
 */
export async function startFaultInjector(upstream: string): Promise<FaultInjector> {
  const target = new URL(upstream);
  const requests: FaultInjector['requests'] = [];
  const timers = new Set<NodeJS.Timeout>();
  let fault: UpstreamFault | undefined;
  const later = (ms: number, run: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, ms);
    timers.add(timer);
  };

  /** The upstream's answer to this request, read whole. */
  const forward = (req: http.IncomingMessage, body: Buffer) =>
    new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const out = http.request(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: target.host },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }),
          );
          res.on('error', reject);
        },
      );
      out.on('error', reject);
      out.end(body);
    });

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      const active = fault && (!fault.path || path.includes(fault.path)) ? fault : undefined;
      if (active?.times !== undefined && --active.times <= 0) fault = undefined;
      requests.push({ path, method: req.method ?? 'GET', ...(active ? { fault: active.kind } : {}) });
      void play(active, req, Buffer.concat(chunks), res).catch(() => {
        if (!res.headersSent) res.writeHead(502).end();
        else res.destroy();
      });
    });
  });

  async function play(
    active: UpstreamFault | undefined,
    req: http.IncomingMessage,
    body: Buffer,
    res: http.ServerResponse,
  ): Promise<void> {
    const delay = active?.delayMs ?? 2000;
    const json = (status: number, value: unknown, headers: Record<string, string> = {}) =>
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value));
    switch (active?.kind) {
      case 'status-500':
      case 'status-502':
      case 'status-503': {
        const status = Number(active.kind.slice(-3));
        json(
          status,
          { error: http.STATUS_CODES[status], message: `${status} from the fault injector` },
          {
            ...(active.retryAfter === undefined ? {} : { 'retry-after': String(active.retryAfter) }),
          },
        );
        return;
      }
      case 'rate-limited':
        json(
          429,
          { error: 'rate_limit_exceeded', message: 'Too many requests.' },
          {
            'retry-after': String(active.retryAfter ?? 1),
          },
        );
        return;
      case 'redirect-loop':
        res.writeHead(302, { location: req.url ?? '/' }).end();
        return;
      case 'wrong-content-type':
        res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end('<!doctype html><html><body><h1>Sign in to continue</h1><p>Captive portal.</p></body></html>');
        return;
      case 'garbage-body':
        res.writeHead(200, { 'content-type': 'application/json' }).end(Buffer.from(GARBAGE, 'latin1'));
        return;
      case 'slow-headers':
        later(delay, () => {
          void forward(req, body).then(
            (answer) => !res.destroyed && res.writeHead(answer.status, answer.headers).end(answer.body),
            () => res.destroy(),
          );
        });
        return;
      default:
        break;
    }
    const answer = await forward(req, body);
    const headers = { ...answer.headers };
    delete headers['content-length'];
    delete headers['transfer-encoding'];
    delete headers.connection;
    switch (active?.kind) {
      case 'truncated-body': {
        // framed correctly (the length matches), but the document stops half-way: what a cut proxy buffer sends
        const half = answer.body.subarray(0, Math.max(1, Math.floor(answer.body.length / 2)));
        res.writeHead(answer.status, { ...headers, 'content-length': String(half.length) }).end(half);
        return;
      }
      case 'reset-mid-body': {
        res.writeHead(answer.status, { ...headers, 'content-length': String(answer.body.length) });
        res.write(answer.body.subarray(0, Math.max(1, Math.floor(answer.body.length / 3))));
        later(20, () => res.socket?.destroy());
        return;
      }
      case 'slow-body': {
        res.writeHead(answer.status, { ...headers, 'content-length': String(answer.body.length) });
        const cut = Math.max(1, Math.floor(answer.body.length / 3));
        res.write(answer.body.subarray(0, cut));
        later(delay, () => !res.destroyed && res.end(answer.body.subarray(cut)));
        return;
      }
      default:
        res.writeHead(answer.status, headers).end(answer.body);
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    urlFor(url) {
      const parsed = new URL(url);
      return `${origin}${parsed.pathname}${parsed.search}`;
    },
    requests,
    fault(spec) {
      fault = spec ? { ...spec } : undefined;
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The faults played by the URL itself: where the guard refuses to go, a name that does not resolve, a closed port. */
export interface UnreachableUpstreams {
  /**
   * A documentation-only address (203.0.113.80, TEST-NET-3), refused by the SSRF guard before any packet is sent,
   * even with `security.allowPrivateNetwork`: what a DNS sinkhole makes of a public registry.
   */
  refusedByPolicy: string;
  /**
   * A name in `.invalid` (RFC 2606: never resolves). Give the client a `lookup` that answers only for loopback names
   * ({@link loopbackOnlyLookup}) so no DNS query leaves the machine.
   */
  dnsFailure: string;
  /** A loopback port where nothing listens. */
  connectionRefused: string;
}

/** {@link UnreachableUpstreams}, with a loopback port closed just now. */
export async function unreachableUpstreams(): Promise<UnreachableUpstreams> {
  const gone = http.createServer();
  await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
  const port = (gone.address() as AddressInfo).port;
  await new Promise<void>((resolve) => gone.close(() => resolve()));
  return {
    refusedByPolicy: 'http://203.0.113.80/',
    dnsFailure: 'http://upstream.invalid/',
    connectionRefused: `http://127.0.0.1:${port}/`,
  };
}

/**
 * A DNS lookup for tests that answers `localhost` and IP literals only and fails every other name with `ENOTFOUND`,
 * without asking any resolver: the fault suite's DNS failure, and a guarantee no name resolves off the machine.
 */
export const loopbackOnlyLookup = (
  hostname: string,
  options: { all?: boolean },
  callback: (
    error: NodeJS.ErrnoException | null,
    address: string | { address: string; family: number }[],
    family?: number,
  ) => void,
): void => {
  if (hostname === 'localhost' || /^127\.\d+\.\d+\.\d+$/.test(hostname)) {
    const address = hostname === 'localhost' ? '127.0.0.1' : hostname;
    if (options.all) callback(null, [{ address, family: 4 }]);
    else callback(null, address, 4);
    return;
  }
  callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
};

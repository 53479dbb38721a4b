import http from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import type { HttpClient, HttpClientOptions, LogRecord } from '@pro-context/kernel';
import { createLogger } from '@pro-context/logging';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { createHttpClient } from '../src/client.js';

/** Answers one path of the fake docs host; `hit` counts the requests to that path so far (1 for the first). */
export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, hit: number) => void;

/** A request the fake docs host received, with its body. */
export interface Received {
  path: string;
  method: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** What {@link useLoopbackDocs} gives a test file. */
export interface LoopbackDocs {
  /** Handlers by path (cleared after each test); other paths answer 404. */
  readonly routes: Map<string, Handler>;
  /** Requests per path (cleared after each test). */
  readonly hits: Map<string, number>;
  /** Every request, in order (cleared after each test). */
  readonly received: Received[];
  /** The host names that resolve (to loopback); any other name fails as `ENOTFOUND`, never through real DNS. */
  readonly lookup: LookupFunction;
  /** `http://docs.test:<port>`, once the server listens. */
  readonly base: string;
  readonly port: number;
  /** A client that resolves through {@link lookup}, may reach loopback, retries fast; closed after each test. */
  makeClient(options?: HttpClientOptions, records?: LogRecord[]): HttpClient;
}

/**
 * The fake upstream of a test file: a loopback HTTP server reached as `docs.test` (and the other `names`), with
 * the vitest hooks that start it, reset it after each test and close it. Upstreams are faked on loopback; names
 * resolve through this table only.
 */
export function useLoopbackDocs(names: readonly string[] = ['docs.test']): LoopbackDocs {
  const routes = new Map<string, Handler>();
  const hits = new Map<string, number>();
  const received: Received[] = [];
  const clients: HttpClient[] = [];
  let server: http.Server;
  let port = 0;
  const lookup: LookupFunction = (hostname, options, callback) => {
    if (!names.includes(hostname)) {
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
      return;
    }
    if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
    else callback(null, '127.0.0.1', 4);
  };

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const count = (hits.get(path) ?? 0) + 1;
      hits.set(path, count);
      let body = '';
      req.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on('end', () => {
        received.push({ path, method: req.method ?? '', headers: req.headers, body });
        const handler = routes.get(path);
        if (handler) handler(req, res, count);
        else res.writeHead(404).end('not found');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  afterEach(async () => {
    routes.clear();
    hits.clear();
    received.length = 0;
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });

  return {
    routes,
    hits,
    received,
    lookup,
    get base() {
      return `http://docs.test:${port}`;
    },
    get port() {
      return port;
    },
    makeClient(options = {}, records) {
      const logger = createLogger({ level: 'debug', stream: { write: () => true } });
      if (records) logger.addSink((record) => records.push(record));
      const client = createHttpClient(
        { lookup, proxy: false, allowPrivateNetwork: true, retryDelaysMs: [10, 20], ...options },
        logger,
      );
      clients.push(client);
      return client;
    },
  };
}

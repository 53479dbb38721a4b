import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A tiny HTTP site on a loopback address, for redirect and allowlist tests. */
export interface LoopbackSite {
  /** `http://<host>:<port>`. */
  origin: string;
  /** Paths requested so far, in order (clear with `hits.length = 0`). */
  hits: string[];
  close(): Promise<void>;
}

/**
 * Starts an HTTP server on `host` (default `127.0.0.1`; other `127.x` addresses play other hosts) that
 * records every requested path and answers with `handler`.
 *
 * @example
 * const inner = await startLoopbackSite((path, res) => res.writeHead(200).end('secret'), '127.0.0.2');
 * const site = await startLoopbackSite((path, res) => res.writeHead(302, { location: `${inner.origin}/x` }).end());
 */
export async function startLoopbackSite(
  handler: (path: string, res: http.ServerResponse) => void,
  host = '127.0.0.1',
): Promise<LoopbackSite> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    hits.push(path);
    handler(path, res);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    origin: `http://${host}:${(server.address() as AddressInfo).port}`,
    hits,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

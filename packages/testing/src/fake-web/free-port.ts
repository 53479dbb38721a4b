import { createServer } from 'node:net';

/**
 * A TCP port free on loopback right now: bound on 127.0.0.1 port 0, read and released. Another process may take
 * it before the caller binds it; use it for servers that cannot listen on port 0 themselves (a spawned CLI, nginx).
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

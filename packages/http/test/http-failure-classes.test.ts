import net, { type AddressInfo } from 'node:net';
import { upstreamFailureOf, upstreamFailureOfStatus } from '@pro-context/plugin-kit';
import { beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient } from '../src/client.js';
import { failure } from './failure.js';
import { useLoopbackDocs } from './loopback-docs.js';

// Every transport failure carries one classification (`details.failure`), whatever the call: what registries,
// sources and remote tools turn into codes that name the cause.
const docs = useLoopbackDocs(['docs.test', 'sinkhole.test']);
const { routes, makeClient } = docs;
let base = '';
beforeAll(() => {
  ({ base } = docs);
});

/** A port on loopback where nothing listens. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('the classification of upstream failures', () => {
  it('refused by policy: a name resolving to a documentation-only address (a DNS sinkhole)', async () => {
    const client = createHttpClient({
      retries: 0,
      // what this machine's resolver answers for public registries
      lookup: (_host, options, callback) =>
        options.all ? callback(null, [{ address: '203.0.113.80', family: 4 }]) : callback(null, '203.0.113.80', 4),
    });
    try {
      const error = await failure(client.get('http://registry.example/pkg'));
      expect(error.code).toBe('URL_NOT_ALLOWED');
      expect(upstreamFailureOf(error)).toBe('refused-by-policy');
    } finally {
      await client.close();
    }
  });

  it('refused by policy: loopback without allowPrivateNetwork', async () => {
    const client = createHttpClient({ retries: 0, lookup: docs.lookup });
    try {
      expect(upstreamFailureOf(await failure(client.get(`${base}/x`)))).toBe('refused-by-policy');
    } finally {
      await client.close();
    }
  });

  it('DNS failure: a name that does not resolve', async () => {
    const error = await failure(makeClient({ retries: 0 }).get('http://registry.invalid/pkg'));
    expect(error.code).toBe('SOURCE_UNAVAILABLE');
    expect(upstreamFailureOf(error)).toBe('dns');
    expect(error.message).toContain('could not be resolved');
  });

  it('connection refused', async () => {
    const port = await closedPort();
    const error = await failure(makeClient({ retries: 0 }).get(`http://127.0.0.1:${port}/`));
    expect(upstreamFailureOf(error)).toBe('connection-refused');
  });

  it('reset mid-body', async () => {
    routes.set('/reset', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '1000' });
      res.write('partial');
      setTimeout(() => res.socket?.destroy(), 10);
    });
    const error = await failure(makeClient({ retries: 0 }).get(`${base}/reset`));
    expect(upstreamFailureOf(error)).toBe('connection-reset');
  });

  it('redirect loop', async () => {
    routes.set('/loop', (_req, res) => res.writeHead(302, { location: '/loop' }).end());
    const error = await failure(makeClient({ retries: 0 }).get(`${base}/loop`));
    expect(upstreamFailureOf(error)).toBe('redirect-loop');
  });

  it('garbage instead of JSON', async () => {
    routes.set('/garbage', (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('<html>'));
    const response = await makeClient().get(`${base}/garbage`);
    let thrown: unknown;
    try {
      response.json();
    } catch (error) {
      thrown = error;
    }
    expect(upstreamFailureOf(thrown)).toBe('invalid-body');
  });

  it('statuses: 429, 4xx, 5xx', () => {
    expect(upstreamFailureOfStatus(429)).toBe('rate-limited');
    expect(upstreamFailureOfStatus(403)).toBe('http-4xx');
    expect(upstreamFailureOfStatus(503)).toBe('http-5xx');
    expect(upstreamFailureOfStatus(200)).toBeUndefined();
  });
});

describe("a request's own deadline", () => {
  it('is the headers timeout: an answer slower than the default 15 s-style headers timeout but within the deadline arrives', async () => {
    routes.set('/slow-answer', (_req, res) => {
      setTimeout(() => res.writeHead(200).end('late but fine'), 400);
    });
    // the client's headers timeout (150 ms) stands for the 15 s default; the call gives itself 2 s
    const client = makeClient({ headersTimeoutMs: 150, retries: 2, retryDelaysMs: [10] });
    const response = await client.get(`${base}/slow-answer`, { timeoutMs: 2000 });
    expect(response.text()).toBe('late but fine');
    // one request, not one per headers timeout
    expect(docs.hits.get('/slow-answer')).toBe(1);
  });

  it('is the body timeout of a body read whole', async () => {
    routes.set('/slow-body', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first ');
      setTimeout(() => res.end('second'), 400);
    });
    const client = makeClient({ bodyTimeoutMs: 150, retries: 0 });
    expect((await client.get(`${base}/slow-body`, { timeoutMs: 2000 })).text()).toBe('first second');
  });

  it('is what the timeout error states, classified as a timeout', async () => {
    routes.set('/never', () => undefined);
    const client = makeClient({ headersTimeoutMs: 100, retries: 2, retryDelaysMs: [10] });
    const error = await failure(client.get(`${base}/never`, { timeoutMs: 300 }));
    expect(upstreamFailureOf(error)).toBe('timeout');
    expect(error.message).toMatch(/300 ms/);
    expect(error.details?.timeoutMs).toBe(300);
    // the deadline was spent waiting: no second (billed) attempt
    expect(docs.hits.get('/never')).toBe(1);
  });

  it('without one, the client defaults still apply (headers timeout, classified as a timeout)', async () => {
    routes.set('/stall', () => undefined);
    const error = await failure(makeClient({ headersTimeoutMs: 100, retries: 0 }).get(`${base}/stall`));
    expect(upstreamFailureOf(error)).toBe('timeout');
    expect(error.details).toMatchObject({ phase: 'headers', timeoutMs: 100 });
  });
});

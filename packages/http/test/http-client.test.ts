import net, { type AddressInfo } from 'node:net';
import { isProContextError, type LogRecord } from '@pro-context/kernel';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseRetryAfterMs } from '../src/index.js';
import { failure } from './failure.js';
import { useLoopbackDocs } from './loopback-docs.js';

// Upstreams are faked on loopback; names resolve through the harness's table, never through real DNS.
const docs = useLoopbackDocs(['docs.test', 'other.test']);
const { routes, hits, received, makeClient } = docs;
let base = '';
let port = 0;
beforeAll(() => {
  ({ base, port } = docs);
});

describe('responses', () => {
  it('returns status, lower-cased headers, body, text and json', async () => {
    routes.set('/data', (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'X-Thing': 'yes' }).end('{"name":"pydantic"}');
    });
    const response = await makeClient().get(`${base}/data`);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json');
    expect(response.headers['x-thing']).toBe('yes');
    expect(response.json()).toEqual({ name: 'pydantic' });
    expect(response.text()).toBe('{"name":"pydantic"}');
    expect(response.url).toBe(`${base}/data`);
    expect(response.redirects).toBe(0);
    expect(response.notModified).toBe(false);
  });

  it('returns 4xx statuses instead of throwing', async () => {
    const response = await makeClient().get(`${base}/missing`);
    expect(response.status).toBe(404);
    expect(response.text()).toBe('not found');
  });

  it('turns malformed JSON into INVALID_CONTENT', async () => {
    routes.set('/bad-json', (_req, res) => res.writeHead(200).end('{"name": '));
    const response = await makeClient().get(`${base}/bad-json`);
    let thrown: unknown;
    try {
      response.json();
    } catch (error) {
      thrown = error;
    }
    expect(isProContextError(thrown) && thrown.code).toBe('INVALID_CONTENT');
    expect((thrown as Error).message).toContain(`Response from docs.test:${port} is not valid JSON`);
  });

  it('sends a JSON body for POST and a user agent', async () => {
    routes.set('/post', (_req, res) => res.writeHead(201).end('ok'));
    const response = await makeClient({ userAgent: 'pro-context-test/1' }).request(`${base}/post`, {
      method: 'POST',
      body: { query: 'fastapi' },
    });
    expect(response.status).toBe(201);
    expect(received[0]).toMatchObject({
      method: 'POST',
      body: '{"query":"fastapi"}',
      headers: { 'content-type': 'application/json', 'user-agent': 'pro-context-test/1' },
    });
  });

  it('answers HEAD without a body even when Content-Length is over the cap', async () => {
    routes.set('/head', (_req, res) => res.writeHead(200, { 'content-length': '999999' }).end());
    const response = await makeClient({ maxBodyBytes: 10 }).request(`${base}/head`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.body.byteLength).toBe(0);
  });

  it('refuses a string that is not a URL', async () => {
    expect((await failure(makeClient().get('not a url'))).code).toBe('INVALID_INPUT');
  });
});

describe('conditional requests', () => {
  it('sends If-None-Match and If-Modified-Since and reports a 304 as notModified', async () => {
    routes.set('/toc', (req, res) => {
      if (req.headers['if-none-match'] === '"v1"') res.writeHead(304, { etag: '"v1"' }).end();
      else res.writeHead(200, { etag: '"v1"', 'last-modified': 'Sat, 01 Nov 2025 00:00:00 GMT' }).end('# TOC');
    });
    const client = makeClient();
    const first = await client.get(`${base}/toc`);
    expect(first.status).toBe(200);
    expect(first.notModified).toBe(false);
    const etag = first.headers.etag;
    const second = await client.get(`${base}/toc`, { etag, lastModified: first.headers['last-modified'] });
    expect(second.status).toBe(304);
    expect(second.notModified).toBe(true);
    expect(second.body.byteLength).toBe(0);
    expect(received[1]?.headers['if-none-match']).toBe('"v1"');
    expect(received[1]?.headers['if-modified-since']).toBe('Sat, 01 Nov 2025 00:00:00 GMT');
  });
});

describe('retries', () => {
  it('retries 5xx with the configured backoff, then succeeds', async () => {
    routes.set('/flaky', (_req, res, hit) => (hit < 3 ? res.writeHead(503).end('busy') : res.writeHead(200).end('ok')));
    const records: LogRecord[] = [];
    const started = performance.now();
    const response = await makeClient({}, records).get(`${base}/flaky`);
    expect(response.status).toBe(200);
    expect(hits.get('/flaky')).toBe(3);
    expect(performance.now() - started).toBeGreaterThanOrEqual(28); // 10 ms + 20 ms of backoff
    const done = records.find((record) => record.msg === 'http request');
    expect(done).toMatchObject({ level: 'debug', method: 'GET', host: `docs.test:${port}`, status: 200, retries: 2 });
    expect(typeof done?.ms).toBe('number');
  });

  it('retries network errors (a dropped connection)', async () => {
    routes.set('/drop', (req, res, hit) => (hit === 1 ? req.socket.destroy() : res.writeHead(200).end('ok')));
    const response = await makeClient().get(`${base}/drop`);
    expect(response.status).toBe(200);
    expect(hits.get('/drop')).toBe(2);
  });

  it('returns the last 429 once retries are exhausted', async () => {
    routes.set('/limited', (_req, res) => res.writeHead(429).end('slow down'));
    const response = await makeClient().get(`${base}/limited`);
    expect(response.status).toBe(429);
    expect(response.text()).toBe('slow down');
    expect(hits.get('/limited')).toBe(3);
  });

  it('does not retry POST', async () => {
    routes.set('/post-busy', (_req, res) => res.writeHead(503).end());
    const response = await makeClient().request(`${base}/post-busy`, { method: 'POST', body: 'x' });
    expect(response.status).toBe(503);
    expect(hits.get('/post-busy')).toBe(1);
  });

  it('honours Retry-After in seconds', async () => {
    routes.set('/retry-after', (_req, res, hit) =>
      hit === 1 ? res.writeHead(503, { 'retry-after': '1' }).end() : res.writeHead(200).end('ok'),
    );
    const started = performance.now();
    const response = await makeClient().get(`${base}/retry-after`);
    expect(response.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('returns at once, with retryAfter, when Retry-After exceeds maxRetryAfterMs', async () => {
    routes.set('/long-wait', (_req, res) => res.writeHead(429, { 'retry-after': '120' }).end());
    const started = performance.now();
    const response = await makeClient({ maxRetryAfterMs: 60_000 }).get(`${base}/long-wait`);
    expect(response.status).toBe(429);
    expect(response.retryAfter).toBe(120);
    expect(hits.get('/long-wait')).toBe(1);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('throws SOURCE_UNAVAILABLE naming the host at once when the connection is refused (no retries)', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await failure(makeClient().get(`http://127.0.0.1:${closedPort}/`));
    expect(error.code).toBe('SOURCE_UNAVAILABLE');
    expect(error.message).toBe(`Request to 127.0.0.1:${closedPort} failed: the connection was refused.`);
    expect(error.recoverable).toBe(true);
  });

  it('parses Retry-After dates and rejects garbage', () => {
    const now = Date.parse('Sat, 01 Nov 2025 00:00:00 GMT');
    expect(parseRetryAfterMs('7', now)).toBe(7000);
    expect(parseRetryAfterMs('Sat, 01 Nov 2025 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfterMs('Fri, 31 Oct 2025 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfterMs('soon', now)).toBeUndefined();
    expect(parseRetryAfterMs('1.5', now)).toBeUndefined();
    expect(parseRetryAfterMs(undefined, now)).toBeUndefined();
  });
});

describe('timeouts', () => {
  it('gives up on stalled headers', async () => {
    routes.set('/stall', () => undefined);
    const error = await failure(makeClient({ headersTimeoutMs: 150, retries: 0 }).get(`${base}/stall`));
    expect(error.code).toBe('SOURCE_UNAVAILABLE');
    expect(error.message).toBe(`Request to docs.test:${port} failed: no response headers within 150 ms.`);
  });

  it('gives up on a stalled body', async () => {
    routes.set('/stall-body', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
    });
    const error = await failure(makeClient({ bodyTimeoutMs: 150, retries: 0 }).get(`${base}/stall-body`));
    expect(error.code).toBe('SOURCE_UNAVAILABLE');
    expect(error.message).toContain('the response body stalled for 150 ms');
  });

  it('enforces the overall deadline, across retries too', async () => {
    routes.set('/slow', () => undefined);
    const started = performance.now();
    const error = await failure(makeClient({ timeoutMs: 250, headersTimeoutMs: 5000 }).get(`${base}/slow`));
    expect(error.code).toBe('SOURCE_UNAVAILABLE');
    expect(error.message).toBe(`Request to docs.test:${port} timed out after 250 ms.`);
    expect(performance.now() - started).toBeLessThan(1500);
  });

  it("rethrows the caller's abort as is", async () => {
    routes.set('/slow', () => undefined);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('caller gave up')), 50);
    await expect(makeClient().get(`${base}/slow`, { signal: controller.signal })).rejects.toThrow('caller gave up');
  });
});

describe('size cap', () => {
  it('refuses a body whose Content-Length is over the cap without reading it', async () => {
    routes.set('/big', (_req, res) => res.writeHead(200, { 'content-length': '5000' }).end('x'.repeat(5000)));
    const error = await failure(makeClient({ maxBodyBytes: 2048 }).get(`${base}/big`));
    expect(error.code).toBe('INVALID_CONTENT');
    expect(error.message).toBe(`Response from docs.test:${port} is larger than the 2 KB limit.`);
  });

  it('aborts a streamed body once it passes the cap', async () => {
    let written = 0;
    routes.set('/stream', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' }); // chunked: no Content-Length
      const chunk = 'y'.repeat(16 * 1024);
      const timer = setInterval(() => {
        if (res.destroyed || written >= 4 * 1024 * 1024) {
          clearInterval(timer);
          res.end();
          return;
        }
        written += chunk.length;
        res.write(chunk);
      }, 1);
    });
    const error = await failure(makeClient().get(`${base}/stream`, { maxBodyBytes: 64 * 1024 }));
    expect(error.code).toBe('INVALID_CONTENT');
    expect(error.message).toContain('is larger than the 64 KB limit');
    expect(written).toBeLessThan(4 * 1024 * 1024);
  });

  it('says MB for the default-sized limits', async () => {
    routes.set('/huge', (_req, res) => res.writeHead(200, { 'content-length': String(20 * 1024 * 1024) }).end());
    const error = await failure(makeClient().get(`${base}/huge`));
    expect(error.message).toBe(`Response from docs.test:${port} is larger than the 10 MB limit.`);
  });
});

describe('redirects', () => {
  it('follows redirects and reports the final URL', async () => {
    routes.set('/old', (_req, res) => res.writeHead(301, { location: '/new?x=1' }).end());
    routes.set('/new', (_req, res) => res.writeHead(200).end('moved here'));
    const response = await makeClient().get(`${base}/old`);
    expect(response.status).toBe(200);
    expect(response.url).toBe(`${base}/new?x=1`);
    expect(response.redirects).toBe(1);
    expect(response.text()).toBe('moved here');
  });

  it('caps the number of redirects', async () => {
    routes.set('/loop', (_req, res) => res.writeHead(302, { location: '/loop' }).end());
    const error = await failure(makeClient({ maxRedirects: 3 }).get(`${base}/loop`));
    expect(error.code).toBe('SOURCE_UNAVAILABLE');
    expect(error.message).toBe(`Too many redirects from docs.test:${port}: gave up after 3.`);
    expect(hits.get('/loop')).toBe(4);
  });

  it('keeps Authorization on the same origin and strips it across origins', async () => {
    routes.set('/same', (_req, res) => res.writeHead(302, { location: '/target' }).end());
    routes.set('/cross', (_req, res) => res.writeHead(302, { location: `http://other.test:${port}/target` }).end());
    routes.set('/target', (_req, res) => res.writeHead(200).end('ok'));
    const client = makeClient();
    const headers = { authorization: 'Bearer secret-token', cookie: 'session=abc' };
    await client.get(`${base}/same`, { headers });
    await client.get(`${base}/cross`, { headers });
    const targets = received.filter((request) => request.path === '/target');
    expect(targets[0]?.headers.authorization).toBe('Bearer secret-token');
    expect(targets[1]?.headers.host).toBe(`other.test:${port}`);
    expect(targets[1]?.headers.authorization).toBeUndefined();
    expect(targets[1]?.headers.cookie).toBeUndefined();
  });

  it('turns a POST into a GET on 303', async () => {
    routes.set('/submit', (_req, res) => res.writeHead(303, { location: '/result' }).end());
    routes.set('/result', (_req, res) => res.writeHead(200).end('done'));
    const response = await makeClient().request(`${base}/submit`, { method: 'POST', body: 'a=1' });
    expect(response.text()).toBe('done');
    expect(received.map((request) => `${request.method} ${request.path} ${request.body}`)).toEqual([
      'POST /submit a=1',
      'GET /result ',
    ]);
  });
});

describe('logging', () => {
  it('logs each request at debug without header values', async () => {
    routes.set('/logged', (_req, res) => res.writeHead(200).end('ok'));
    const records: LogRecord[] = [];
    await makeClient({}, records).get(`${base}/logged`, { headers: { authorization: 'Bearer sk-very-secret' } });
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ level: 'debug', msg: 'http request', method: 'GET', status: 200, retries: 0 });
    expect(JSON.stringify(records)).not.toContain('sk-very-secret');
  });

  it('logs failures with their code', async () => {
    const records: LogRecord[] = [];
    await failure(makeClient({}, records).get('http://169.254.169.254/'));
    expect(records[0]).toMatchObject({ msg: 'http request failed', errorCode: 'URL_NOT_ALLOWED' });
  });
});

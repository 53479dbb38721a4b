import type { HttpStreamResponse, LogRecord } from '@pro-context/kernel';
import { beforeAll, describe, expect, it } from 'vitest';
import { failure } from './failure.js';
import { type Handler, useLoopbackDocs } from './loopback-docs.js';

// `HttpClient.stream`: the body handed over as it arrives, with every guard of `request`.
const docs = useLoopbackDocs();
const { routes, hits, makeClient } = docs;
let base = '';
let port = 0;
beforeAll(() => {
  ({ base, port } = docs);
});

async function readAll(response: HttpStreamResponse): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of response.body) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts).toString('utf8');
}

/** Writes `total` bytes of `y` in 16 KB chunks as the socket drains; `written()` says how many went out. */
function endless(total: number): { handler: Handler; written: () => number } {
  let written = 0;
  const handler: Handler = (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' }); // chunked: no Content-Length
    const chunk = 'y'.repeat(16 * 1024);
    const pump = () => {
      while (!res.destroyed && written < total) {
        written += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      if (!res.destroyed) res.end();
    };
    res.on('close', () => undefined);
    pump();
  };
  return { handler, written: () => written };
}

describe('HttpClient.stream', () => {
  it('hands the body over in chunks, with status, headers, final URL and redirects', async () => {
    routes.set('/old', (_req, res) => res.writeHead(301, { location: '/file.txt' }).end());
    routes.set('/file.txt', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', etag: '"v1"' });
      res.write('héllo ');
      setTimeout(() => res.end('wörld'), 20);
    });
    const response = await makeClient().stream(`${base}/old`);
    expect(response.status).toBe(200);
    expect(response.url).toBe(`${base}/file.txt`);
    expect(response.redirects).toBe(1);
    expect(response.headers.etag).toBe('"v1"');
    expect(await readAll(response)).toBe('héllo wörld');
  });

  it('retries a 5xx before the first body byte', async () => {
    routes.set('/flaky', (_req, res, hit) => {
      if (hit < 3) res.writeHead(503).end('busy');
      else res.writeHead(200).end('ok now');
    });
    const response = await makeClient().stream(`${base}/flaky`);
    expect(await readAll(response)).toBe('ok now');
    expect(hits.get('/flaky')).toBe(3);
  });

  it('refuses a declared Content-Length over the cap before reading', async () => {
    routes.set('/big', (_req, res) => res.writeHead(200, { 'content-length': '5000' }).end('x'.repeat(5000)));
    const error = await failure(makeClient({ maxBodyBytes: 2048 }).stream(`${base}/big`));
    expect(error.code).toBe('INVALID_CONTENT');
    expect(error.message).toBe(`Response from docs.test:${port} is larger than the 2 KB limit.`);
  });

  it('fails the read once the bytes that arrived pass the cap, and stops the download', async () => {
    const source = endless(8 * 1024 * 1024);
    routes.set('/stream', source.handler);
    const response = await makeClient().stream(`${base}/stream`, { maxBodyBytes: 256 * 1024 });
    let seen = 0;
    const error = await failure(
      (async () => {
        for await (const chunk of response.body) seen += chunk.byteLength;
      })(),
    );
    expect(error.code).toBe('INVALID_CONTENT');
    expect(error.message).toContain('is larger than the 256 KB limit');
    expect(seen).toBeLessThanOrEqual(256 * 1024);
    expect(source.written()).toBeLessThan(8 * 1024 * 1024);
  });

  it('paces the download by the reader (backpressure): a paused reader leaves the rest unsent', async () => {
    const source = endless(64 * 1024 * 1024);
    routes.set('/paced', source.handler);
    const response = await makeClient({ maxBodyBytes: 128 * 1024 * 1024 }).stream(`${base}/paced`);
    const iterator = response.body[Symbol.asyncIterator]();
    await iterator.next();
    await new Promise((resolve) => setTimeout(resolve, 300));
    // socket and stream buffers hold a few MB at most; the 64 MB body is not read ahead
    expect(source.written()).toBeLessThan(16 * 1024 * 1024);
    response.cancel();
    response.cancel();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(source.written()).toBeLessThan(16 * 1024 * 1024);
  });

  it('is not cut by the overall deadline while the body is read, but a stalled body still fails', async () => {
    routes.set('/slow', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      let n = 0;
      const timer = setInterval(() => {
        if (++n > 6) {
          clearInterval(timer);
          res.end();
        } else res.write(`${n}`);
      }, 60);
    });
    const response = await makeClient({ timeoutMs: 200 }).stream(`${base}/slow`);
    expect(await readAll(response)).toBe('123456');

    routes.set('/stall-body', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
    });
    const stalled = await makeClient({ bodyTimeoutMs: 150, retries: 0 }).stream(`${base}/stall-body`);
    const error = await failure(readAll(stalled));
    expect(error.code).toBe('SOURCE_UNAVAILABLE');
    expect(error.message).toContain('the response body stalled for 150 ms');
  });

  it("rethrows the caller's abort while the body is read", async () => {
    routes.set('/forever', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('start');
    });
    const controller = new AbortController();
    const response = await makeClient().stream(`${base}/forever`, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('caller gave up')), 50);
    await expect(readAll(response)).rejects.toThrow('caller gave up');
  });

  it('asks allowUrl about each redirect hop', async () => {
    routes.set('/hop', (_req, res) => res.writeHead(302, { location: '/elsewhere' }).end());
    routes.set('/elsewhere', (_req, res) => res.writeHead(200).end('no'));
    const error = await failure(
      makeClient().stream(`${base}/hop`, {
        allowUrl: (url) => {
          if (url.pathname === '/elsewhere') throw new Error('not on the list');
        },
      }),
    );
    expect(error.code).toBe('URL_NOT_ALLOWED');
    expect(hits.get('/elsewhere')).toBeUndefined();
  });

  it('logs the request and the bytes read', async () => {
    routes.set('/logged', (_req, res) => res.writeHead(200).end('abc'));
    const records: LogRecord[] = [];
    const response = await makeClient({}, records).stream(`${base}/logged`);
    await readAll(response);
    expect(records.find((r) => r.msg === 'http request')?.stream).toBe(true);
    expect(records.find((r) => r.msg === 'http stream read')?.bytes).toBe(3);
  });
});

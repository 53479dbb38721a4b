import { upstreamFailureOf } from '@pro-context/plugin-kit';
import { describe, expect, it } from 'vitest';
import { failure } from './failure.js';
import { useLoopbackDocs } from './loopback-docs.js';

// Upstreams are faked on loopback; names resolve through the harness's table, never through real DNS.
const docs = useLoopbackDocs(['docs.test', 'other.test']);
const { routes, hits, makeClient } = docs;

describe('Retry-After keeps a host from being asked again (issue #25.6)', () => {
  it('after a 503 with Retry-After, refuses that host locally with retryAfter, and still asks the others', async () => {
    routes.set('/busy', (_req, res) => res.writeHead(503, { 'retry-after': '120' }).end('busy'));
    routes.set('/page', (_req, res) => res.writeHead(200).end('ok'));
    const client = makeClient({ retries: 0 });
    const first = await client.get(`${docs.base}/busy`);
    expect(first.status).toBe(503);
    expect(first.retryAfter).toBe(120);

    const error = await failure(client.get(`${docs.base}/page`));
    expect(error.code).toBe('SOURCE_UNAVAILABLE');
    expect(error.retryAfter).toBeGreaterThanOrEqual(119);
    expect(error.retryAfter).toBeLessThanOrEqual(120);
    expect(error.message).toBe(
      `docs.test:${docs.port} answered 503 with Retry-After: not asked again for ${error.retryAfter} s.`,
    );
    expect(error.suggestion).toBe(`Try again after ${error.retryAfter} seconds.`);
    // classified like every error of the client: a registry's or a source's note names the cause from it
    expect(upstreamFailureOf(error)).toBe('http-5xx');
    expect(hits.get('/page')).toBeUndefined();
    // a streamed request is held back the same way
    expect((await failure(client.stream(`${docs.base}/page`))).code).toBe('SOURCE_UNAVAILABLE');

    const other = await client.get(`http://other.test:${docs.port}/page`);
    expect(other.status).toBe(200);
    expect(hits.get('/page')).toBe(1);
  });

  it('after a 429, refuses with RATE_LIMITED; once the wait has passed, asks again', async () => {
    let calls = 0;
    routes.set('/limited', (_req, res) => {
      calls += 1;
      if (calls === 1) res.writeHead(429, { 'retry-after': '1' }).end();
      else res.writeHead(200).end('ok');
    });
    const client = makeClient({ retries: 0 });
    expect((await client.get(`${docs.base}/limited`)).status).toBe(429);
    const error = await failure(client.get(`${docs.base}/limited`));
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.retryAfter).toBe(1);
    expect(upstreamFailureOf(error)).toBe('rate-limited');
    expect(calls).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await client.get(`${docs.base}/limited`)).status).toBe(200);
    expect(calls).toBe(2);
  });

  it('reads an HTTP date, and holds a host at most an hour whatever it asks', async () => {
    const inTenDays = new Date(Date.now() + 10 * 86_400_000).toUTCString();
    routes.set('/far', (_req, res) => res.writeHead(503, { 'retry-after': inTenDays }).end());
    const client = makeClient({ retries: 0 });
    const response = await client.get(`${docs.base}/far`);
    expect(response.retryAfter).toBeGreaterThan(86_400);
    const error = await failure(client.get(`${docs.base}/far`));
    expect(error.retryAfter).toBe(3600);
  });

  it('a malformed Retry-After holds nothing back', async () => {
    routes.set('/odd', (_req, res) => res.writeHead(503, { 'retry-after': '1.5' }).end());
    const client = makeClient({ retries: 0 });
    expect((await client.get(`${docs.base}/odd`)).retryAfter).toBeUndefined();
    expect((await client.get(`${docs.base}/odd`)).status).toBe(503);
    expect(hits.get('/odd')).toBe(2);
  });
});

import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { bodyStep } from '../src/body.js';
import { pipeline } from '../src/respond.js';
import { rawRequest, serveHandler } from './helpers.js';

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('the body step (body.ts)', () => {
  it('reads a JSON body (plain or compressed) up to the limit: 413 past it, 400 for what is not JSON', async () => {
    const server = await serveHandler(
      pipeline([bodyStep(64), (req, res) => void res.end(JSON.stringify({ body: req.body ?? null }))], () => undefined),
    );
    servers.push(server);
    const send = (body: string | Buffer, headers: Record<string, string> = {}) =>
      rawRequest(server.url, { headers: { 'Content-Type': 'application/json', ...headers }, body: body as string });
    expect(JSON.parse((await send('{"a":[1,2]}')).body)).toEqual({ body: { a: [1, 2] } });
    expect(JSON.parse((await send('  ')).body)).toEqual({ body: {} });
    const zipped = await send(gzipSync('{"zipped":true}'), { 'Content-Encoding': 'gzip' });
    expect(JSON.parse(zipped.body)).toEqual({ body: { zipped: true } });

    const large = await send(JSON.stringify({ text: 'x'.repeat(100) }));
    expect([large.status, JSON.parse(large.body).error.message, large.headers.connection]).toEqual([
      413,
      'Request body too large',
      'close',
    ]);
    const largeZipped = await send(gzipSync(JSON.stringify({ text: 'x'.repeat(100) })), { 'Content-Encoding': 'gzip' });
    expect(largeZipped.status).toBe(413);
    for (const text of ['not json', '"a string"', '{"a":']) {
      const bad = await send(text);
      expect([bad.status, JSON.parse(bad.body).error]).toEqual([
        400,
        { code: -32700, message: 'Parse error: the body is not JSON' },
      ]);
    }
  });
});

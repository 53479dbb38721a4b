import { afterEach, describe, expect, it } from 'vitest';
import { corsHeaders, corsMiddleware } from '../src/cors.js';
import { pipeline } from '../src/respond.js';
import { rawRequest, serveHandler } from './helpers.js';

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const CORS_HEADERS = ['access-control-allow-origin', 'access-control-expose-headers', 'vary'];

describe('CORS (cors.ts)', () => {
  it('the POST pipeline step sets what the cors package sets on a request that is no preflight', async () => {
    for (const origins of [['*'], ['https://app.example', 'https://other.example']]) {
      const fast = pipeline([corsHeaders(origins), (_req, res) => res.end('ok')], () => undefined);
      const middleware = corsMiddleware(origins);
      const reference = await serveHandler((req, res) => middleware(req as never, res as never, () => res.end('ok')));
      const ours = await serveHandler(fast);
      servers.push(reference, ours);
      for (const origin of [undefined, 'https://app.example', 'https://evil.example']) {
        const headers: Record<string, string> = origin ? { Origin: origin } : {};
        const [want, got] = await Promise.all(
          [reference, ours].map((s) => rawRequest(s.url, { method: 'POST', headers, body: '{}' })),
        );
        const pick = (h: Record<string, unknown>) => CORS_HEADERS.map((name) => h[name]);
        expect(pick(got?.headers ?? {}), `${origins} / ${origin}`).toEqual(pick(want?.headers ?? {}));
      }
    }
  });
});

import { createTestKernel } from '@pro-context/testing';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { allowedHostsFor, hostCheck, originCheck } from '../src/host-origin.js';
import { HostMetrics } from '../src/metrics.js';
import { pipeline } from '../src/respond.js';
import { rawRequest, serveHandler } from './helpers.js';

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('host and origin checks (host-origin.ts)', () => {
  it('accepts the loopback names plus the configured ones; none on an open bind without any', () => {
    expect(allowedHostsFor(true, [])).toEqual(['localhost', '127.0.0.1', '[::1]', '::1']);
    expect(allowedHostsFor(false, ['mcp.example'])).toContain('mcp.example');
    expect(allowedHostsFor(false, [])).toEqual([]);
    expect(hostCheck([])).toBeUndefined();
  });

  it("answers a foreign Host with the SDK's hostHeaderValidation, on a plain Node response and on Express's", async () => {
    const kernel = await createTestKernel();
    const metrics = new HostMetrics(kernel, () => 0);
    const check = hostCheck(allowedHostsFor(true, ['mcp.example'])) as NonNullable<ReturnType<typeof hostCheck>>;
    const origin = originCheck(['https://app.example'], metrics);
    const plain = pipeline([check, origin, (_req, res) => res.end('ok')], () => undefined);
    const app = express().use(check as never, origin as never, (_req: unknown, res: express.Response) =>
      res.send('ok'),
    );
    for (const handler of [plain, app]) {
      const server = await serveHandler(handler as never);
      servers.push(server);
      const ask = (headers: Record<string, string>) => rawRequest(server.url, { method: 'GET', headers });
      const port = server.url.port;
      expect((await ask({ Host: `127.0.0.1:${port}` })).body).toBe('ok');
      expect((await ask({ Host: `mcp.example:${port}` })).body).toBe('ok');
      const evil = await ask({ Host: `evil.example:${port}` });
      expect(evil.status).toBe(403);
      expect(JSON.parse(evil.body)).toEqual({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'Invalid Host: evil.example' },
        id: null,
      });
      expect(evil.headers['content-type']).toBe('application/json; charset=utf-8');
      const foreign = await ask({ Host: `localhost:${port}`, Origin: 'https://evil.example' });
      expect([foreign.status, JSON.parse(foreign.body).error.message]).toEqual([
        403,
        'Origin not allowed: https://evil.example',
      ]);
      expect((await ask({ Host: `localhost:${port}`, Origin: 'https://app.example' })).body).toBe('ok');
    }
    expect(await metrics.registry.getSingleMetricAsString('pro_context_http_requests_total')).toContain('status="403"');
    metrics.close();
    await kernel.stop();
  });
});

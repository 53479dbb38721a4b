import { createTestKernel } from '@pro-context/testing';
import { describe, expect, it } from 'vitest';
import { InFlight, listen, stopAccepting, urlOf } from '../src/lifecycle.js';
import { HostMetrics } from '../src/metrics.js';
import { pipeline } from '../src/respond.js';
import { rawRequest } from './helpers.js';

describe('listen and the graceful stop (lifecycle.ts)', () => {
  it('waits for requests in flight, refuses new ones with 503 meanwhile, then closes', async () => {
    const kernel = await createTestKernel();
    const metrics = new HostMetrics(kernel, () => 0);
    const inFlight = new InFlight(metrics, undefined);
    let release: (() => void) | undefined;
    const handler = pipeline(
      [
        inFlight.step,
        (req, res) => {
          if (req.url === '/slow') release = () => res.end('slow done');
          else res.end('quick');
        },
      ],
      () => undefined,
    );
    const server = await listen(handler, '127.0.0.1', 0, { headersTimeoutMs: 2000 });
    const url = new URL(urlOf(server, '127.0.0.1'));
    expect(server.headersTimeout).toBe(2000);
    const slow = rawRequest(new URL('/slow', url), { method: 'POST' });
    await expect.poll(() => release !== undefined).toBe(true);
    const finish = stopAccepting(server);
    let stopped = false;
    const stopping = inFlight.stop(5000).then(() => {
      stopped = true;
    });
    expect(stopped).toBe(false);
    release?.();
    expect((await slow).body).toBe('slow done');
    await stopping;
    expect(stopped).toBe(true);
    await finish();
    await expect(rawRequest(url, { method: 'POST' })).rejects.toThrow();
    expect(await metrics.registry.getSingleMetricAsString('pro_context_http_requests_total')).toContain(
      'method="POST",route="/mcp",status="200"} 1',
    );
    metrics.close();
    await kernel.stop();
  });

  it('answers 503 "Server is shutting down" once stopping', async () => {
    const kernel = await createTestKernel();
    const metrics = new HostMetrics(kernel, () => 0);
    const inFlight = new InFlight(metrics, undefined);
    const server = await listen(
      pipeline([inFlight.step, (_req, res) => res.end('ok')], () => undefined),
      '127.0.0.1',
      0,
      {},
    );
    const url = new URL(urlOf(server, '127.0.0.1'));
    expect((await rawRequest(url, { method: 'POST' })).body).toBe('ok');
    await inFlight.stop(1000);
    const refused = await rawRequest(url, { method: 'POST' });
    expect([refused.status, JSON.parse(refused.body).error.message]).toEqual([503, 'Server is shutting down']);
    await stopAccepting(server)();
    metrics.close();
    await kernel.stop();
  });
});

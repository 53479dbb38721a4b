import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keyStoreToken, type RateLimiter, rateLimiterToken } from '@pro-context/access';
import { definePlugin, KERNEL_VERSION } from '@pro-context/kernel';
import { sqliteCachePlugin } from '@pro-context/plugin-sqlite-cache';
import { createTestKernel } from '@pro-context/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiKey, serveHttp, TokenBuckets } from '../src/index.js';
import { rateLimiterFor } from '../src/limits.js';
import { post } from './helpers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** One bucket store for every replica, answering asynchronously (as a database would); records each cost. */
function sharedLimiter(): RateLimiter & { costs: number[] } {
  const buckets = new TokenBuckets();
  const costs: number[] = [];
  return {
    costs,
    async take(keyId, settings, cost) {
      costs.push(cost);
      await new Promise((resolve) => setTimeout(resolve, 1));
      return buckets.take(keyId, settings, cost);
    },
    forget: (keyId) => buckets.forget(keyId),
  };
}

const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });

describe('the rate limiter seam (limits.ts)', () => {
  it("uses the RateLimiter a plugin bound to rateLimiterToken: replicas sharing it share each key's bucket", async () => {
    const limiter = sharedLimiter();
    const cacheDir = mkdtempSync(join(tmpdir(), 'pc-limiter-'));
    cleanups.push(() => rmSync(cacheDir, { recursive: true, force: true }));
    const sharedStore = definePlugin({
      id: 'shared-limits',
      kernel: `>=${KERNEL_VERSION}`,
      register: (ctx) => ctx.bindValue(rateLimiterToken, limiter),
    });
    // two replicas: two kernels on one key store (one cache directory), one shared limiter
    const replicas = [];
    for (let i = 0; i < 2; i += 1) {
      const kernel = await createTestKernel({
        plugins: [sqliteCachePlugin, sharedStore],
        config: { cache: { directory: cacheDir } },
      });
      const handle = await serveHttp(kernel, {
        version: '0',
        port: 0,
        stateless: true,
        rateLimit: { maxRequestsPerMinute: 1, burstSize: 4 },
      });
      cleanups.push(() => handle.close());
      replicas.push({ kernel, url: new URL(`${handle.url}/mcp`) });
    }
    const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    const { key } = await createApiKey(a.kernel.resolve(keyStoreToken), 'team');
    const auth = { Authorization: `Bearer ${key}` };

    const first = await post(a.url, ping(1), auth);
    expect([first.status, first.headers.get('x-ratelimit-limit'), first.headers.get('x-ratelimit-remaining')]).toEqual([
      200,
      '4',
      '3',
    ]);
    expect((await post(b.url, ping(2), auth)).headers.get('x-ratelimit-remaining')).toBe('2');
    // a batch of two costs one more token, through the same limiter
    const batch = await post(b.url, [ping(3), ping(4)], auth);
    expect(batch.status).toBe(200);
    expect(limiter.costs).toEqual([1, 1, 1, 1]);
    // the bucket, shared, is empty: the other replica refuses
    const refused = await post(a.url, ping(5), auth);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((refused.json() as { error: { data: { code: string } } }).error.data.code).toBe('RATE_LIMITED');
  });

  it('keeps in-memory buckets of its own when no plugin binds one', async () => {
    const limiter = sharedLimiter();
    const bound = definePlugin({
      id: 'shared-limits',
      kernel: `>=${KERNEL_VERSION}`,
      register: (ctx) => ctx.bindValue(rateLimiterToken, limiter),
    });
    const [plain, shared] = await Promise.all([createTestKernel(), createTestKernel({ plugins: [bound] })]);
    cleanups.push(
      () => plain?.stop(),
      () => shared?.stop(),
    );
    expect(rateLimiterFor(plain as never)).toBeInstanceOf(TokenBuckets);
    expect(rateLimiterFor(shared as never)).toBe(limiter);
  });
});

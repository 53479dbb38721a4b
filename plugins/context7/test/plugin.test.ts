import { createTestKernel, type FakeContext7, MemoryCacheStore, startFakeContext7 } from '@pro-context/testing';
import { createToolRunner } from '@pro-context/tool-runner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { context7ClientPlugin, context7Plugin } from '../src/index.js';

const KEY = 'plugin-test-key-7f21a9c0';

describe('the context7 plugin in a kernel, against the Context7 fake', () => {
  let fake: FakeContext7;
  beforeAll(async () => {
    fake = await startFakeContext7({ apiKey: KEY });
  });
  afterAll(async () => {
    await fake.close();
  });

  async function runner(config: Record<string, unknown> = {}, plugin = context7Plugin) {
    const cache = new MemoryCacheStore();
    const kernel = await createTestKernel({
      plugins: [plugin],
      config,
      env: { CONTEXT7_API_KEY: KEY, PRO_CONTEXT_CONTEXT7_URL: fake.url },
      fakeCache: cache,
    });
    return { kernel, cache, tools: createToolRunner(kernel) };
  }

  it('an upstream message echoing the key is answered with the key taken out', async () => {
    const { kernel, tools } = await runner();
    try {
      fake.fault({ status: 403, body: { error: 'forbidden', message: `key ${KEY} may not read this library` } });
      const outcome = await tools.call('context7.search', { query: 'private-lib' });
      expect(outcome.ok).toBe(false);
      expect(outcome.text).toBe('[Context7 error 403: forbidden: key [REDACTED] may not read this library]');
    } finally {
      fake.fault();
      await kernel.stop();
    }
  });

  it('keeps answers in the CacheStore namespace context7 for cacheTtlSeconds', async () => {
    const { kernel, cache, tools } = await runner({ context7: { cacheTtlSeconds: 60 } });
    try {
      const outcome = await tools.call('context7.doc', { library_key: 'facebook/react', topic: 'hooks' });
      expect(outcome.ok).toBe(true);
      const keys = await cache.keys('context7');
      expect(keys).toHaveLength(1);
      const entry = await cache.get('context7', keys[0] as string);
      expect((entry?.expiresAt ?? 0) - (entry?.storedAt ?? 0)).toBe(60_000);
    } finally {
      await kernel.stop();
    }
  });

  it('the client plugin alone lists no tools', async () => {
    const { kernel, tools } = await runner({}, context7ClientPlugin);
    try {
      expect(tools.tools.map((t) => t.name)).not.toContain('context7.doc');
    } finally {
      await kernel.stop();
    }
  });
});

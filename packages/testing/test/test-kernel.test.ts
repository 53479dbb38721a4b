import { cacheStoreToken, definePlugin, searchBackendToken, z } from '@pro-context/kernel';
import { describe, expect, it } from 'vitest';
import { createTestKernel, MemoryCacheStore } from '../src/index.js';

describe('createTestKernel', () => {
  it('reads what plugins provide from their declarations: no fake beside a cache whose register() needs real options', async () => {
    const store = new MemoryCacheStore();
    const cachePlugin = definePlugin({
      id: 'disk-cache',
      kernel: '*',
      provides: [cacheStoreToken],
      configKey: 'diskCache',
      optionsSchema: z.strictObject({ directory: z.string().default('/tmp/x') }),
      register(ctx, options: { directory: string }) {
        // a dry run with empty options learns nothing from this plugin: it needs its validated options
        if (!options.directory) throw new Error('no directory');
        ctx.bindValue(cacheStoreToken, store);
      },
    });
    const kernel = await createTestKernel({ plugins: [cachePlugin] });
    expect(kernel.resolve(cacheStoreToken)).toBe(store);
    // the search backend nobody provides is the fake
    expect(kernel.isBound(searchBackendToken)).toBe(true);
    await kernel.stop();
  });

  it('still probes a plugin that declares nothing (a third party)', async () => {
    const store = new MemoryCacheStore();
    const legacy = definePlugin({
      id: 'legacy-cache',
      kernel: '*',
      register: (ctx) => ctx.bindValue(cacheStoreToken, store),
    });
    const kernel = await createTestKernel({ plugins: [legacy] });
    expect(kernel.resolve(cacheStoreToken)).toBe(store);
    await kernel.stop();
  });
});

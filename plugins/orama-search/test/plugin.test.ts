import { searchBackendToken } from '@pro-context/kernel';
import { createSilentLogger } from '@pro-context/logging';
import { createKernel } from '@pro-context/runtime';
import { describe, expect, it } from 'vitest';
import oramaSearchDefault, { oramaSearchPlugin, oramaSearchPluginOptionsSchema } from '../src/index.js';
import { chunk, keyOf } from './helpers.js';

describe('oramaSearchPlugin', () => {
  it('is the default export and declares its id, kernel range and config key', () => {
    expect(oramaSearchDefault).toBe(oramaSearchPlugin);
    expect(oramaSearchPlugin.id).toBe('orama-search');
    expect(oramaSearchPlugin.kernel).toBe('^0.1.0');
    expect(oramaSearchPlugin.configKey).toBe('search');
  });

  it('binds the search backend in a kernel, configured by the search section', async () => {
    const kernel = await createKernel({ config: { search: { tolerance: 0 } }, logger: createSilentLogger() })
      .use(oramaSearchPlugin)
      .start();
    try {
      const backend = kernel.resolve(searchBackendToken);
      // Orama itself loads on first use: the bound backend stands in for an OramaSearchBackend until then
      expect(backend.id).toBe('orama-search');
      expect(await backend.has(keyOf('lib'))).toBe(false);
      expect(kernel.resolve(searchBackendToken)).toBe(backend);
      const key = keyOf('lib');
      await backend.index(key, [chunk('v', 'Validators', ['Validators'], 'Field validators.')]);
      expect((await backend.search(key, 'validators')).hits.map((h) => h.id)).toEqual(['v']);
      // tolerance 0 from the config section: a typo finds nothing.
      expect((await backend.search(key, 'valdiators')).hits).toEqual([]);
      expect((await backend.search(key, 'valdiators', { tolerance: 1 })).hits.map((h) => h.id)).toEqual(['v']);
    } finally {
      await kernel.stop();
    }
  });

  it('takes options passed to use() over the config section', async () => {
    const kernel = await createKernel({ config: { search: { tolerance: 0 } }, logger: createSilentLogger() })
      .use(oramaSearchPlugin, { tolerance: 1 })
      .start();
    try {
      const backend = kernel.resolve(searchBackendToken);
      const key = keyOf('lib');
      await backend.index(key, [chunk('v', 'Validators', ['Validators'], 'Field validators.')]);
      expect((await backend.search(key, 'valdiators')).hits.map((h) => h.id)).toEqual(['v']);
    } finally {
      await kernel.stop();
    }
  });

  it('rejects a misspelt or out-of-range option at start', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ tolerence: 1 }, /search\.tolerence: Unrecognized key/],
      [{ tolerance: 3 }, /search\.tolerance: Too big/],
      [{ boost: { heading: 2 } }, /search\.boost\.heading: Unrecognized key/],
      [{ maxLoadedIndexes: 0 }, /search\.maxLoadedIndexes/],
      [{ language: 'klingon' }, /search\.language/],
    ];
    for (const [search, message] of cases) {
      await expect(
        createKernel({ config: { search }, logger: createSilentLogger() }).use(oramaSearchPlugin).start(),
        JSON.stringify(search),
      ).rejects.toThrow(message);
    }
  });

  it('fills in defaults, including the field weights', () => {
    expect(oramaSearchPluginOptionsSchema.parse({})).toEqual({
      tolerance: 1,
      boost: { title: 1, section: 1, headings: 1, body: 1 },
      maxLoadedIndexes: 16,
      language: 'english',
    });
    expect(oramaSearchPluginOptionsSchema.parse({ boost: { body: 2 } }).boost).toEqual({
      title: 1,
      section: 1,
      headings: 1,
      body: 2,
    });
  });
});

import { describe, expect, it } from 'vitest';
import { docsFallbackSuppressed, withoutDocsFallback } from '../src/index.js';

describe('withoutDocsFallback', () => {
  it('turns the fallback off for the work it runs, and only for it', async () => {
    expect(docsFallbackSuppressed()).toBe(false);
    const inside = await withoutDocsFallback(async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return docsFallbackSuppressed();
    });
    expect(inside).toBe(true);
    expect(docsFallbackSuppressed()).toBe(false);
  });

  it('is seen by another copy of plugin-kit in the process (a plugin that installed its own version)', async () => {
    // a second evaluation of the module, as a second installed copy would be: the engine asks one copy, a tool
    // plugin wraps its calls with another
    const copy = '../src/docs-fallback.js?another-copy';
    const other = (await import(/* @vite-ignore */ copy)) as typeof import('../src/docs-fallback.js');
    expect(other.docsFallbackSuppressed).not.toBe(docsFallbackSuppressed);
    expect(await withoutDocsFallback(async () => other.docsFallbackSuppressed())).toBe(true);
    expect(await other.withoutDocsFallback(async () => docsFallbackSuppressed())).toBe(true);
  });
});

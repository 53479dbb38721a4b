import {
  definePlugin,
  type Freshness,
  KERNEL_VERSION,
  type LibraryDescriptor,
  type StartedKernel,
  sourceAdapterToken,
} from '@pro-context/kernel';
import { createTestKernel, MemoryCacheStore, StaticSourceAdapter } from '@pro-context/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { docsEngineToken, enginePlugin } from '../src/plugin.js';

/** An adapter reading "files on disk" (`local: true`): its freshness check is cheap, asked on every load. */
class LocalAdapter extends StaticSourceAdapter {
  readonly local = true;
}

/** A local adapter whose freshness check takes `checkMs` (a folder of thousands of files to stat). */
class SlowCheckLocalAdapter extends LocalAdapter {
  checkMs = 60;
  override async checkFreshness(library: LibraryDescriptor, version: string, cached: Freshness) {
    if (this.checkMs > 0) await new Promise((r) => setTimeout(r, this.checkMs));
    return super.checkFreshness(library, version, cached);
  }
}

async function engineWith(adapter: StaticSourceAdapter) {
  const kernel = await createTestKernel({
    fakeCache: new MemoryCacheStore(),
    plugins: [
      enginePlugin,
      definePlugin({
        id: 'internal-docs',
        kernel: `>=${KERNEL_VERSION}`,
        register: (ctx) => ctx.bindValue(sourceAdapterToken, adapter),
      }),
    ],
    config: { libraries: [{ id: 'acme', name: 'Acme', source: 'internal' }] },
  });
  kernels.push(kernel);
  return kernel.resolve(docsEngineToken);
}

const kernels: StartedKernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((k) => k.stop()));
});

describe('a local source (SourceAdapter.local)', () => {
  it('an edit is answered by the next get-docs, TOC and read-page, with no TTL to wait for', async () => {
    const docs = {
      pages: [
        {
          url: 'https://local.test/acme/widgets.md',
          title: 'Widgets',
          markdown: '# Widgets\n\nWidgets are ALPHA-ONE.',
        },
      ],
      revision: 'r1',
    };
    const adapter = new LocalAdapter('internal', { acme: docs });
    const engine = await engineWith(adapter);
    expect((await engine.getDocs('acme', 'widgets', undefined, 2000)).content).toContain('ALPHA-ONE');
    expect((await engine.readPage('https://local.test/acme/widgets.md', 2000, 0)).content).toContain('ALPHA-ONE');
    // unchanged: answered from memory, only the freshness check runs
    const fetches = adapter.calls.fetchDocs;
    expect((await engine.getDocs('acme', 'widgets', undefined, 2000)).content).toContain('ALPHA-ONE');
    expect(adapter.calls.fetchDocs).toBe(fetches);

    docs.pages[0] = { ...docs.pages[0], markdown: '# Widgets\n\nWidgets are BETA-TWO.' } as (typeof docs.pages)[0];
    docs.pages.push({ url: 'https://local.test/acme/gadgets.md', title: 'Gadgets', markdown: '# Gadgets\n\nNew.' });
    docs.revision = 'r2';
    const next = await engine.getDocs('acme', 'widgets', undefined, 2000);
    expect(next.content).toContain('BETA-TWO');
    expect(next.content).not.toContain('ALPHA-ONE');
    expect((await engine.readPage('https://local.test/acme/widgets.md', 2000, 0)).content).toContain('BETA-TWO');
    const resolved = await engine.resolve('acme');
    expect(resolved.toc.map((e) => e.title)).toEqual(['Widgets', 'Gadgets']);
  });

  it('a slow freshness check is shared by calls at the same time and not repeated for ten times as long', async () => {
    const docs = {
      pages: [{ url: 'https://local.test/acme/widgets.md', title: 'Widgets', markdown: '# Widgets\n\nALPHA-ONE.' }],
      revision: 'r1',
    };
    const adapter = new SlowCheckLocalAdapter('internal', { acme: docs });
    const engine = await engineWith(adapter);
    await engine.getDocs('acme', 'widgets', undefined, 2000);
    const before = adapter.calls.checkFreshness;
    // three calls at once: one check
    await Promise.all(['widgets', 'alpha', 'one'].map((t) => engine.search('acme', t, undefined, 5)));
    expect(adapter.calls.checkFreshness).toBe(before + 1);
    // right after a 60 ms check: the library is not checked again (for ~600 ms)
    await engine.search('acme', 'widgets', undefined, 5);
    expect(adapter.calls.checkFreshness).toBe(before + 1);
    // an edit shows once that time has passed (polled: under load a 60 ms check can measure longer, and the
    // pause grows with it)
    docs.pages[0] = { ...docs.pages[0], markdown: '# Widgets\n\nBETA-TWO.' } as (typeof docs.pages)[0];
    docs.revision = 'r2';
    let seen = '';
    for (let i = 0; i < 100 && !seen.includes('BETA-TWO'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      seen = (await engine.getDocs('acme', 'widgets', undefined, 2000)).content;
    }
    expect(seen).toContain('BETA-TWO');
    // a quick check is made on every call (five calls: a scheduling hiccup may make one or two of them look slow;
    // were quick checks spaced like slow ones, there would be one)
    adapter.checkMs = 0;
    // wait out the pause a slow check may have started: until a call checks again
    const paused = adapter.calls.checkFreshness;
    for (let i = 0; i < 50 && adapter.calls.checkFreshness === paused; i++) {
      await new Promise((r) => setTimeout(r, 100));
      await engine.search('acme', 'widgets', undefined, 5);
    }
    const quick = adapter.calls.checkFreshness;
    for (let i = 0; i < 5; i++) await engine.search('acme', 'widgets', undefined, 5);
    expect(adapter.calls.checkFreshness - quick).toBeGreaterThanOrEqual(3);
  });
});

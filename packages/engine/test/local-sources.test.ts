import { definePlugin, KERNEL_VERSION, type StartedKernel, sourceAdapterToken } from '@pro-context/kernel';
import { createTestKernel, MemoryCacheStore, StaticSourceAdapter } from '@pro-context/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { docsEngineToken, enginePlugin } from '../src/plugin.js';

/** An adapter reading "files on disk" (`local: true`): its freshness check is cheap, asked on every load. */
class LocalAdapter extends StaticSourceAdapter {
  readonly local = true;
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
    const engine = kernel.resolve(docsEngineToken);
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
});

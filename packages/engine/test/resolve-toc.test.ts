import {
  definePlugin,
  estimateTokens,
  KERNEL_VERSION,
  type StartedKernel,
  sourceAdapterToken,
} from '@pro-context/kernel';
import { createTestKernel, StaticSourceAdapter } from '@pro-context/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { docsEngineToken, enginePlugin } from '../src/plugin.js';

const kernels: StartedKernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((k) => k.stop()));
});

/** A library whose TOC has `count` pages, each described in about `descriptionWords` words. */
async function resolveWithToc(count: number, descriptionWords: number) {
  const pages = Array.from({ length: count }, (_, i) => ({
    url: `https://docs.big.test/page-${i}`,
    title: `Page ${i}`,
    markdown: `# Page ${i}\n\n${'Some words about this page. '.repeat(descriptionWords / 5)}`,
  }));
  class DescribedAdapter extends StaticSourceAdapter {
    override async fetchToc(...args: Parameters<StaticSourceAdapter['fetchToc']>) {
      const toc = await super.fetchToc(...args);
      const description = 'word '.repeat(descriptionWords).trim();
      return { ...toc, entries: toc.entries.map((e) => ({ ...e, description })) };
    }
  }
  const adapter = new DescribedAdapter('internal', { big: { pages } });
  const kernel = await createTestKernel({
    plugins: [
      enginePlugin,
      definePlugin({
        id: 'internal-docs',
        kernel: `>=${KERNEL_VERSION}`,
        register: (ctx) => ctx.bindValue(sourceAdapterToken, adapter),
      }),
    ],
    config: { libraries: [{ id: 'big', name: 'Big', language: 'python', source: 'internal' }] },
  });
  kernels.push(kernel);
  return kernel.resolve(docsEngineToken).resolve('big');
}

describe('the TOC in a resolve-library answer (seed D2)', () => {
  it('is the whole TOC of a typical llms.txt, even with more than a hundred pages', async () => {
    const result = await resolveWithToc(155, 12);
    expect(result.toc).toHaveLength(155);
    expect(result.tocTruncated).toBe(false);
  });

  it('is cut near 10K tokens for a Mintlify-size list, and says so', async () => {
    const result = await resolveWithToc(700, 30);
    expect(result.tocTruncated).toBe(true);
    expect(result.toc.length).toBeLessThan(700);
    const tokens = result.toc.reduce(
      (sum, e) => sum + estimateTokens(`- [${e.title}](${e.url})${e.description ? ` — ${e.description}` : ''}\n`),
      0,
    );
    expect(tokens).toBeLessThanOrEqual(10_000);
    expect(tokens).toBeGreaterThan(9_000);
  });
});

describe('an expired TOC (stale-while-revalidate)', () => {
  it('answers at once from the cache, marked stale, with one refresh behind it; the refresh replaces it', async () => {
    let release: () => void = () => undefined;
    class SlowAdapter extends StaticSourceAdapter {
      gate: Promise<void> | undefined;
      asked = 0;
      override async fetchToc(...args: Parameters<StaticSourceAdapter['fetchToc']>) {
        this.asked += 1;
        if (this.gate) await this.gate;
        return super.fetchToc(...args);
      }
    }
    const pages = [{ url: 'https://docs.swr.test/a', title: 'A', markdown: '# A\n\nAlpha.' }];
    const adapter = new SlowAdapter('internal', { swr: { pages } });
    const kernel = await createTestKernel({
      plugins: [
        enginePlugin,
        definePlugin({
          id: 'internal-docs',
          kernel: `>=${KERNEL_VERSION}`,
          register: (ctx) => ctx.bindValue(sourceAdapterToken, adapter),
        }),
      ],
      // cached for half a second
      config: {
        libraries: [{ id: 'swr', name: 'SWR', language: 'python', source: 'internal', ttlHours: 0.5 / 3600 }],
      },
    });
    kernels.push(kernel);
    const engine = kernel.resolve(docsEngineToken);
    expect((await engine.resolve('swr')).toc).toHaveLength(1);
    expect(adapter.asked).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 600));

    // the source now hangs: three calls answer from the expired TOC, and only one refresh is asked for
    adapter.gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const answers = await Promise.all([engine.resolve('swr'), engine.resolve('swr'), engine.resolve('swr')]);
    const asked = adapter.asked;
    release();
    for (const answer of answers) {
      expect(answer.toc.map((e) => e.title)).toEqual(['A']);
      expect(answer.notes.join(' ')).toContain('from the cache');
    }
    expect(asked).toBe(2);
    await vi.waitFor(async () => expect((await engine.resolve('swr')).notes.join(' ')).not.toContain('from the cache'));
  });
});

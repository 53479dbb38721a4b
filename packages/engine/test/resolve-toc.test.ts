import {
  definePlugin,
  estimateTokens,
  KERNEL_VERSION,
  type StartedKernel,
  sourceAdapterToken,
} from '@pro-context/kernel';
import { createTestKernel, StaticSourceAdapter } from '@pro-context/testing';
import { afterEach, describe, expect, it } from 'vitest';
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

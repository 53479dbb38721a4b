import { definePlugin, KERNEL_VERSION, type StartedKernel, sourceAdapterToken } from '@pro-context/kernel';
import { createTestKernel, MemoryCacheStore, StaticSourceAdapter } from '@pro-context/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { pageFields, pageFieldWeights } from '../src/indexing/page-fields.js';
import { docsEngineToken, enginePlugin } from '../src/plugin.js';

const site = 'https://docs.test/runner';

/** A test runner's docs: option pages titled by their option, and guides that talk about the same things at length. */
function runnerDocs() {
  const option = (name: string, text: string) => ({
    url: `${site}/config/${name.toLowerCase()}.md`,
    title: name,
    markdown: `# ${name}\n\n- **Type:** \`number\`\n\n${text}`,
  });
  const guide = (slug: string, title: string, body: string) => ({
    url: `${site}/guide/${slug}.md`,
    title,
    markdown: `# ${title}\n\n${body}`,
  });
  return {
    pages: [
      guide(
        'hooks',
        'Lifecycle hooks',
        'A beforeAll hook runs once before the tests of a file, an afterAll hook once after them. See [the hook timeout](../config/hooktimeout.md).',
      ),
      guide(
        'async',
        'Async tests',
        'A test that awaits a promise that never settles times out after a while, and so does a hook.',
      ),
      option('hookTimeout', 'Default timeout of a hook in milliseconds: 10 seconds. Use `0` to disable it.'),
      option('testTimeout', 'Default timeout of a test in milliseconds: 5 seconds. Use `0` to disable it.'),
      option('retry', 'Retry the test a number of times if it fails.'),
    ],
    revision: 'r1',
  };
}

const kernels: StartedKernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((k) => k.stop()));
});

async function engine() {
  const kernel = await createTestKernel({
    fakeCache: new MemoryCacheStore(),
    plugins: [
      enginePlugin,
      definePlugin({
        id: 'runner-docs',
        kernel: `>=${KERNEL_VERSION}`,
        register: (ctx) =>
          ctx.bindValue(sourceAdapterToken, new StaticSourceAdapter('static', { runner: runnerDocs() })),
      }),
    ],
    config: { libraries: [{ id: 'runner', name: 'Runner', source: 'static' }] },
  });
  kernels.push(kernel);
  return kernel.resolve(docsEngineToken);
}

describe('page fields (issue #28)', () => {
  it('an option page asked by what its option does comes first: "my beforeAll hook times out" → hookTimeout', async () => {
    const docs = await engine();
    await docs.loadDocs('runner', 'latest');
    const saved = { ...pageFieldWeights };
    try {
      Object.assign(pageFieldWeights, { title: 0, related: 0 });
      const without = await docs.search('runner', 'my beforeAll hook times out after 10 seconds', undefined, 5);
      expect(without.results[0]?.url).toBe(`${site}/guide/async.md#async-tests`);
      Object.assign(pageFieldWeights, saved);
      const found = await docs.search('runner', 'my beforeAll hook times out after 10 seconds', undefined, 5);
      expect(found.results[0]?.url).toBe(`${site}/config/hooktimeout.md#hooktimeout`);
    } finally {
      Object.assign(pageFieldWeights, saved);
    }
  });

  it('keeps the texts other pages link to a page with on the stored page list', async () => {
    const docs = await engine();
    const loaded = await docs.loadDocs('runner', 'latest');
    const page = loaded.docs.record.pages.find((p) => p.url === `${site}/config/hooktimeout.md`);
    expect(page?.anchors).toEqual([['the hook timeout', 1]]);
    const match = pageFields(loaded.docs.record).match('raise the hook timeout', 3)[0];
    expect(match).toMatchObject({ url: `${site}/config/hooktimeout.md` });
    expect(match?.titleNamed).toBeGreaterThan(0.5);
  });
});

import {
  definePlugin,
  KERNEL_VERSION,
  ProContextError,
  type StartedKernel,
  sourceAdapterToken,
} from '@pro-context/kernel';
import { catalogErrorOf, createTestKernel, StaticSourceAdapter } from '@pro-context/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { docsEngineToken, enginePlugin } from '../src/plugin.js';

const kernels: StartedKernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((k) => k.stop()));
});

const pages = [{ url: 'https://docs.fallback.test/a', title: 'A', markdown: '# A\n\nAlpha is served here.' }];

/** Two sources for one library, the first (priority 10, lowest first) tried first. */
async function twoSources(first: StaticSourceAdapter, second: StaticSourceAdapter) {
  const kernel = await createTestKernel({
    plugins: [
      enginePlugin,
      definePlugin({
        id: 'two-sources',
        kernel: `>=${KERNEL_VERSION}`,
        register: (ctx) => {
          ctx.bindValue(sourceAdapterToken, first);
          ctx.bindValue(sourceAdapterToken, second);
        },
      }),
    ],
    config: { libraries: [{ id: 'lib', name: 'Lib', language: 'python', docsUrl: 'https://docs.fallback.test' }] },
  });
  kernels.push(kernel);
  return kernel.resolve(docsEngineToken);
}

const refused = (adapter: string) =>
  new ProContextError('INVALID_CONTENT', `${adapter}: https://docs.fallback.test/llms-full.txt is larger than 1 MB.`, {
    suggestion: 'Raise sources.llmsTxt.maxFullTxtMB in the configuration.',
  });

describe('a library served by its second source', () => {
  it('says in resolve-library why the first source did not serve it', async () => {
    const first = new StaticSourceAdapter('first', { lib: { pages } }, 10);
    first.failWith = refused('first');
    const engine = await twoSources(first, new StaticSourceAdapter('second', { lib: { pages } }, 90));
    const result = await engine.resolve('lib');
    expect(result.sources[0]).toBe('second');
    expect(result.notes).toContainEqual(
      expect.stringContaining("Lib's documentation comes from second, because first:"),
    );
    expect(result.notes.join(' ')).toContain('larger than 1 MB');
  });

  it('when every source refuses it for good: not recoverable, with the first source’s advice', async () => {
    const first = new StaticSourceAdapter('first', { lib: { pages } }, 10);
    first.failWith = refused('first');
    const second = new StaticSourceAdapter('second', { lib: { pages } }, 90);
    second.failWith = new ProContextError('INVALID_CONTENT', 'second: no documentation content.');
    const engine = await twoSources(first, second);
    const error = await catalogErrorOf(engine.getDocs('lib', 'alpha', undefined, 1000));
    expect(error.code).toBe('SOURCE_UNAVAILABLE');
    expect(error.recoverable).toBe(false);
    expect(error.suggestion).toBe('Raise sources.llmsTxt.maxFullTxtMB in the configuration.');
    expect(error.message).toContain('first: first: https://docs.fallback.test/llms-full.txt is larger than 1 MB.');
  });

  it('when one source is only down for now: recoverable, try again later', async () => {
    const first = new StaticSourceAdapter('first', { lib: { pages } }, 10);
    first.failWith = refused('first');
    const second = new StaticSourceAdapter('second', { lib: { pages } }, 90);
    second.failWith = new ProContextError('SOURCE_UNAVAILABLE', 'second: the site did not answer.');
    const engine = await twoSources(first, second);
    const error = await catalogErrorOf(engine.getDocs('lib', 'alpha', undefined, 1000));
    expect(error.code).toBe('SOURCE_UNAVAILABLE');
    expect(error.recoverable).toBe(true);
  });
});

import {
  definePlugin,
  KERNEL_VERSION,
  type LibraryProvider,
  libraryProviderToken,
  type StartedKernel,
  sourceAdapterToken,
} from '@pro-context/kernel';
import { createTestKernel, type StaticLibraryDocs, StaticSourceAdapter } from '@pro-context/testing';
import { afterEach, describe, expect, it } from 'vitest';
import type { DocsEngine } from '../src/engine.js';
import { docsEngineToken, enginePlugin } from '../src/plugin.js';

const kernels: StartedKernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((k) => k.stop()));
});

const page = (name: string, text: string) => ({
  pages: [{ url: `https://docs.${name}.test/widgets`, title: 'Widgets', markdown: `# Widgets\n\n${text}` }],
});

/** A provider that finds one library nobody configured, by name (as a package registry does). */
const registry: LibraryProvider = {
  id: 'registry',
  priority: 50,
  libraries: () => [],
  lookup: async (name) =>
    name === 'gamma' ? { id: 'gamma', name: 'gamma', language: 'python', source: 'internal' } : null,
};

/** A provider that delivers libraries after start, when told to (as project detection does). */
let deliver: () => void = () => undefined;
const detected: LibraryProvider = {
  id: 'detected',
  priority: 40,
  libraries: () => [
    { id: 'delta', name: 'delta', language: 'python', installedVersion: '1.0.0', detectedFrom: 'uv.lock' },
  ],
  watch: (listener) => {
    deliver = listener;
    return () => {
      deliver = () => undefined;
    };
  },
};

async function engineWith(adapter: StaticSourceAdapter, engine: Record<string, unknown> = {}, ttlHours?: number) {
  return (await kernelWith(adapter, engine, ttlHours)).resolve(docsEngineToken);
}

async function kernelWith(adapter: StaticSourceAdapter, engine: Record<string, unknown> = {}, ttlHours?: number) {
  const kernel = await createTestKernel({
    plugins: [
      enginePlugin,
      definePlugin({
        id: 'internal-docs',
        kernel: `>=${KERNEL_VERSION}`,
        register: (ctx) => ctx.bindValue(sourceAdapterToken, adapter),
      }),
      definePlugin({
        id: 'registry',
        kernel: `>=${KERNEL_VERSION}`,
        register: (ctx) => {
          ctx.bindValue(libraryProviderToken, registry);
          ctx.bindValue(libraryProviderToken, detected);
        },
      }),
    ],
    config: {
      engine,
      libraries: ['acme', 'beta'].map((id) => ({
        id,
        name: id,
        language: 'python',
        source: 'internal',
        ...(ttlHours ? { ttlHours } : {}),
      })),
    },
  });
  kernels.push(kernel);
  return kernel;
}

/** What a host may do with an answer: serve it again while `reuse` holds (see the kernel's `ToolResult.reuse`). */
const holds = (engine: DocsEngine, reuse: { revision: number; until: number } | undefined) =>
  reuse !== undefined && engine.revisions.current() === reuse.revision && Date.now() < reuse.until;

const ask = (engine: DocsEngine, libraryId = 'acme') =>
  engine.answerDocs({ libraryId, topic: 'widgets', maxTokens: 2000 });

describe('reusable get-docs answers (what the HTTP host may serve again)', () => {
  it('are those of docs the engine had, and stop being reusable once those docs leave memory', async () => {
    const adapter = new StaticSourceAdapter('internal', {
      acme: page('acme', 'Widgets are ALPHA-ONE.'),
      beta: page('beta', 'Widgets are BETA.'),
    });
    const engine = await engineWith(adapter, { maxLoadedLibraries: 1 });
    // fetched and indexed for this call: not reusable (a repeat would say cached: true)
    const fetched = await ask(engine);
    expect(fetched.answer.cached).toBe(false);
    expect(fetched.reuse).toBeUndefined();
    await engine.idle();
    const again = await ask(engine);
    expect(again.reuse?.until).toBeGreaterThan(Date.now());
    expect(holds(engine, again.reuse)).toBe(true);
    // served again from memory: the same revision
    expect((await ask(engine)).reuse?.revision).toBe(again.reuse?.revision);
    // another library takes acme's place in memory: its answer may have changed when it is loaded again
    await ask(engine, 'beta');
    expect(holds(engine, again.reuse)).toBe(false);
  });

  it('are never those of stale docs, nor of local sources (checked on every load)', async () => {
    const stale = await engineWith(
      new StaticSourceAdapter('internal', { acme: page('acme', 'ALPHA'), beta: page('beta', 'BETA') }),
      {},
      0.0001,
    );
    await ask(stale);
    await stale.idle();
    const fresh = await ask(stale);
    expect(holds(stale, fresh.reuse)).toBe(true);
    // 0.36 s: past it the docs are stale, and so is the answer's reuse
    await new Promise((resolve) => setTimeout(resolve, 450));
    expect(holds(stale, fresh.reuse)).toBe(false);
    const served = await ask(stale);
    expect(served.answer.stale).toBe(true);
    expect(served.reuse).toBeUndefined();
    await stale.idle();

    class LocalAdapter extends StaticSourceAdapter {
      readonly local = true;
    }
    const local = await engineWith(
      new LocalAdapter('internal', { acme: page('acme', 'ALPHA'), beta: page('beta', 'BETA') }),
    );
    await ask(local);
    await local.idle();
    expect((await ask(local)).reuse).toBeUndefined();
  });
});

describe("answer revisions (the kernel's AnswerRevisions, bumped by the engine)", () => {
  it("are the kernel's, and bump whenever what an answer may come from changes", async () => {
    const adapter = new StaticSourceAdapter('internal', {
      acme: page('acme', 'Widgets are ALPHA-ONE.'),
      beta: page('beta', 'Widgets are BETA.'),
    });
    const kernel = await kernelWith(adapter, { maxLoadedLibraries: 1 });
    const engine = kernel.resolve(docsEngineToken);
    expect(engine.revisions).toBe(kernel.revisions);
    const reasons: string[] = [];
    kernel.revisions.onBump((_revision, reason) => reasons.push(reason));
    const bumped = async (work: () => Promise<unknown>) => {
      const before = kernel.revisions.current();
      await work();
      return kernel.revisions.current() > before;
    };
    // a docs revision loaded (fetched and indexed)
    expect(await bumped(() => ask(engine))).toBe(true);
    await engine.idle();
    // answered from the docs in memory: nothing changed
    expect(await bumped(() => ask(engine))).toBe(false);
    // another library loaded, acme's docs dropped from memory (maxLoadedLibraries: 1)
    expect(await bumped(() => ask(engine, 'beta'))).toBe(true);
    expect(reasons).toContain('docs acme@latest dropped');
    await engine.idle();
    // acme restored from the cache (a topic not answered before: its docs are loaded): a revision loaded again
    expect(await bumped(() => engine.answerDocs({ libraryId: 'acme', topic: 'alpha one', maxTokens: 2000 }))).toBe(
      true,
    );
    await engine.idle();
    // a library's docs cleared
    expect(await bumped(() => engine.clearCache('acme'))).toBe(true);
    // a library added to the catalog (a provider's lookup)
    expect(await bumped(() => engine.findLibrary('gamma'))).toBe(true);
    expect(reasons).toContain('library gamma added');
  });

  it('bump when a provider delivers libraries after start (project detection)', async () => {
    const adapter = new StaticSourceAdapter('internal', { acme: page('acme', 'ALPHA'), beta: page('beta', 'BETA') });
    const kernel = await kernelWith(adapter, { preResolveDetected: false });
    const reasons: string[] = [];
    kernel.revisions.onBump((_revision, reason) => reasons.push(reason));
    const before = kernel.revisions.current();
    deliver();
    expect(kernel.revisions.current()).toBeGreaterThan(before);
    expect(reasons).toContain('library delta adopted');
  });

  it('bump when a docs revision is refreshed (stale docs fetched again behind the answer)', async () => {
    const acme: StaticLibraryDocs = page('acme', 'ALPHA');
    const adapter = new StaticSourceAdapter('internal', { acme, beta: page('beta', 'BETA') });
    const kernel = await kernelWith(adapter, {}, 0.0001);
    const engine = kernel.resolve(docsEngineToken);
    await ask(engine);
    await engine.idle();
    await new Promise((resolve) => setTimeout(resolve, 450));
    // the source's docs changed meanwhile: the refresh fetches and indexes them again
    acme.revision = 'v2';
    acme.pages = page('acme', 'Widgets are ALPHA-TWO.').pages;
    const before = kernel.revisions.current();
    // stale: served, and refreshed in the background
    expect((await ask(engine)).answer.stale).toBe(true);
    await engine.idle();
    expect(kernel.revisions.current()).toBeGreaterThan(before);
    expect((await ask(engine)).answer.content).toContain('ALPHA-TWO');
  });
});

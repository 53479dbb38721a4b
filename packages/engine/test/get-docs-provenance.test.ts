import {
  type DocsResult,
  definePlugin,
  type FetchContext,
  KERNEL_VERSION,
  type LibraryDescriptor,
  type StartedKernel,
  sourceAdapterToken,
  toolPluginToken,
} from '@pro-context/kernel';
import { createTestKernel, MemoryCacheStore, StaticSourceAdapter } from '@pro-context/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { answerKey, answerKeyPrefix, ns } from '../src/indexing/keys.js';
import { docsEngineToken, enginePlugin } from '../src/plugin.js';

/** An adapter that writes its fetch time as a bare date, as a hand-written internal adapter might. */
class DateOnlyAdapter extends StaticSourceAdapter {
  override async fetchDocs(library: LibraryDescriptor): Promise<DocsResult> {
    return { ...(await super.fetchDocs(library)), fetchedAt: '2026-11-01' };
  }
}

const kernels: StartedKernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((k) => k.stop()));
});

/** A started kernel with the engine and `adapter` serving library `acme` (`acme` settings merged in). */
async function acmeKernel(adapter: StaticSourceAdapter, acme: Record<string, unknown> = {}, cache?: MemoryCacheStore) {
  const kernel = await createTestKernel({
    ...(cache ? { fakeCache: cache } : {}),
    plugins: [
      enginePlugin,
      definePlugin({
        id: 'internal-docs',
        kernel: `>=${KERNEL_VERSION}`,
        register: (ctx) => ctx.bindValue(sourceAdapterToken, adapter),
      }),
    ],
    config: { libraries: [{ id: 'acme', name: 'Acme', language: 'python', source: 'internal', ...acme }] },
  });
  kernels.push(kernel);
  return kernel;
}

describe('get-docs provenance', () => {
  it('reports lastUpdated as an ISO date-time whatever form the adapter wrote, and the answer passes its schema', async () => {
    const adapter = new DateOnlyAdapter('internal', {
      acme: {
        pages: [
          {
            url: 'https://docs.acme.test/billing',
            title: 'Billing',
            markdown: '# Billing\n\nCreate an invoice with `acme.invoices.create()`.',
          },
        ],
      },
    });
    const kernel = await acmeKernel(adapter);
    const tool = kernel
      .resolveAll(toolPluginToken)
      .flatMap((p) => p.tools())
      .find((t) => t.name === 'get-docs');
    if (!tool) throw new Error('get-docs is not installed');
    const result = await tool.handler(tool.inputSchema.parse({ libraryId: 'acme', topic: 'create an invoice' }), {
      signal: new AbortController().signal,
      logger: kernel.logger,
      progress: async () => undefined,
    });
    expect(tool.outputSchema?.safeParse(result.structured).success).toBe(true);
    expect((result.structured as { lastUpdated: string }).lastUpdated).toBe('2026-11-01T00:00:00.000Z');
    expect(result.text).toContain('acme.invoices.create()');
  });
});

describe('get-docs answers from its cache while the docs are in memory', () => {
  it('serves a stored answer of the revision in memory, and ranks again when the stored one is of another revision', async () => {
    const cache = new MemoryCacheStore();
    const adapter = new StaticSourceAdapter('internal', {
      acme: {
        pages: [
          {
            url: 'https://docs.acme.test/billing',
            title: 'Billing',
            markdown: '# Billing\n\nCreate an invoice with `acme.invoices.create()`.',
          },
        ],
      },
    });
    const kernel = await acmeKernel(adapter, { ttlHours: 1 }, cache);
    const engine = kernel.resolve(docsEngineToken);
    const first = await engine.getDocs('acme', 'create an invoice', undefined, 2000);
    expect(first.content).toContain('acme.invoices.create()');
    const key = answerKey('acme', first.version, 2000, '', 'create an invoice');
    await expect.poll(async () => (await cache.get(ns.answers, key)) !== undefined).toBe(true);
    const stored = (await cache.get<Record<string, unknown>>(ns.answers, key))?.value ?? {};

    // an answer of the revision in memory is served as stored: no second ranking
    await cache.set(ns.answers, key, { ...stored, content: 'FROM THE ANSWER CACHE' }, { ttlMs: 60_000 });
    expect((await engine.getDocs('acme', 'create an invoice', undefined, 2000)).content).toBe('FROM THE ANSWER CACHE');

    // one computed from another revision (a refresh that just landed) is not
    await cache.set(ns.answers, key, { ...stored, content: 'OLD REVISION', revision: 'other' }, { ttlMs: 60_000 });
    const again = await engine.getDocs('acme', 'create an invoice', undefined, 2000);
    expect(again.content).toContain('acme.invoices.create()');
    expect(again).not.toHaveProperty('revision');
  });
});

describe('a refresh of the docs', () => {
  it('keeps answering from the stale docs while it runs, then renews get-docs and read-page alike', async () => {
    const docs = {
      pages: [
        {
          url: 'https://docs.acme.test/widgets',
          title: 'Widgets',
          markdown: '# Widgets\n\nWidgets are ALPHA-ONE.',
        },
      ],
      revision: 'r1',
    };
    const adapter = new StaticSourceAdapter('internal', { acme: docs });
    const cache = new MemoryCacheStore();
    // 0.36 s: the docs go stale within the test
    const kernel = await acmeKernel(adapter, { ttlHours: 0.0001 }, cache);
    const engine = kernel.resolve(docsEngineToken);
    const { version } = await engine.getDocs('acme', 'widgets', undefined, 2000);
    await engine.idle();
    // an answer stored for this revision, kept longer than the docs
    const planted = answerKey('acme', version, 2000, '', 'what are widgets');
    await cache.set(ns.answers, planted, { content: 'Widgets are ALPHA-ONE.', revision: 'r1' }, { ttlMs: 60_000 });
    expect((await engine.readPage('https://docs.acme.test/widgets', 2000, 0)).content).toContain('ALPHA-ONE');

    docs.pages[0] = { ...docs.pages[0], markdown: '# Widgets\n\nWidgets are BETA-TWO.' } as (typeof docs.pages)[0];
    docs.revision = 'r2';
    await new Promise((r) => setTimeout(r, 450));
    // stale: served as it was, refreshed behind
    await engine.getDocs('acme', 'widgets', undefined, 2000);
    await engine.idle();
    // the answers of the earlier revision went with it (a restarted server would otherwise serve them)
    expect(await cache.keys(ns.answers, answerKeyPrefix('acme', version))).not.toContain(planted);
    expect((await engine.getDocs('acme', 'widgets', undefined, 2000)).content).toContain('BETA-TWO');
    expect((await engine.readPage('https://docs.acme.test/widgets', 2000, 0)).content).toContain('BETA-TWO');
  });
});

/** Serves its docs only once released (or fails with the caller's abort, as an HTTP fetch would). */
class GatedAdapter extends StaticSourceAdapter {
  release: () => void = () => undefined;
  /** fetchDocs calls so far, and those that ended with their signal aborted. */
  fetches = 0;
  abortedFetches = 0;
  private readonly gate = new Promise<void>((resolve) => {
    this.release = resolve;
  });
  override async fetchDocs(library: LibraryDescriptor, _version?: string, context?: FetchContext) {
    this.fetches++;
    await new Promise<void>((resolve, reject) => {
      context?.signal?.addEventListener(
        'abort',
        () => {
          this.abortedFetches++;
          reject(context.signal?.reason);
        },
        { once: true },
      );
      this.gate.then(resolve);
    });
    return super.fetchDocs(library);
  }
}

const tick = (ms = 20) => new Promise((r) => setTimeout(r, ms));

describe('a first get-docs cancelled mid-fetch', () => {
  it('does not fail a second call that joined its build: the build goes on for it', async () => {
    const adapter = new GatedAdapter('internal', {
      acme: {
        pages: [{ url: 'https://docs.acme.test/billing', title: 'Billing', markdown: '# Billing\n\nInvoices.' }],
      },
    });
    const engine = (await acmeKernel(adapter)).resolve(docsEngineToken);
    const first = new AbortController();
    const cancelled = engine.getDocs('acme', 'invoices', undefined, 1000, { signal: first.signal });
    await new Promise((r) => setTimeout(r, 20));
    const second = engine.getDocs('acme', 'invoices', undefined, 1000);
    await new Promise((r) => setTimeout(r, 20));
    first.abort(new Error('the agent moved on'));
    await expect(cancelled).rejects.toThrow(/moved on/);
    adapter.release();
    expect((await second).content).toContain('Invoices');
    // the build went on for the call still waiting: the docs were fetched once
    expect(adapter.fetches).toBe(1);
    expect(adapter.abortedFetches).toBe(0);
  });

  it('a call that joins a build under way hears its progress, from the last report on', async () => {
    const adapter = new GatedAdapter('internal', {
      acme: {
        pages: [{ url: 'https://docs.acme.test/billing', title: 'Billing', markdown: '# Billing\n\nInvoices.' }],
      },
    });
    const engine = (await acmeKernel(adapter)).resolve(docsEngineToken);
    const heard = { first: [] as string[], second: [] as string[] };
    const first = engine.getDocs('acme', 'invoices', undefined, 1000, {
      progress: (_done, _total, message) => heard.first.push(message),
    });
    await tick();
    const second = engine.getDocs('acme', 'invoices', undefined, 1000, {
      progress: (_done, _total, message) => heard.second.push(message),
    });
    await tick();
    // at once, the report the build last made (it is fetching)
    expect(heard.second).toEqual([heard.first.at(-1)]);
    expect(heard.second[0]).toMatch(/^Fetching the Acme/);
    adapter.release();
    await Promise.all([first, second]);
    // then every report the first call heard after it joined
    expect(heard.second).toEqual(heard.first.slice(heard.first.indexOf(heard.second[0] as string)));
    expect(heard.second.length).toBeGreaterThan(1);
    expect(adapter.fetches).toBe(1);
  });

  it('stops the build when the last call waiting for it cancels, and the next call builds anew', async () => {
    const adapter = new GatedAdapter('internal', {
      acme: {
        pages: [{ url: 'https://docs.acme.test/billing', title: 'Billing', markdown: '# Billing\n\nInvoices.' }],
      },
    });
    const engine = (await acmeKernel(adapter)).resolve(docsEngineToken);
    const one = new AbortController();
    const two = new AbortController();
    const calls = [one, two].map((c) => engine.getDocs('acme', 'invoices', undefined, 1000, { signal: c.signal }));
    await tick();
    one.abort(new Error('first moved on'));
    await expect(calls[0]).rejects.toThrow(/first moved on/);
    await tick();
    expect(adapter.abortedFetches).toBe(0); // one call still waits
    two.abort(new Error('second moved on'));
    await expect(calls[1]).rejects.toThrow(/second moved on/);
    await tick();
    expect(adapter.abortedFetches).toBe(1); // nobody waits: the fetch was told to stop
    adapter.release();
    expect((await engine.getDocs('acme', 'invoices', undefined, 1000)).content).toContain('Invoices');
    expect(adapter.fetches).toBe(2);
  });
});

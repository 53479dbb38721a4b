import {
  type CacheEntry,
  type CacheGetOptions,
  type DocsResult,
  definePlugin,
  type Freshness,
  KERNEL_VERSION,
  kernelTokens,
  type LibraryDescriptor,
  type StartedKernel,
  sourceAdapterToken,
} from '@pro-context/kernel';
import {
  createTestKernel,
  type LoopbackSite,
  MemoryCacheStore,
  StaticSourceAdapter,
  startLoopbackSite,
} from '@pro-context/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type IndexLease,
  indexLeaseToken,
  type LeaseHandle,
  type ReplicaEvent,
  type ReplicaEvents,
  replicaEventsToken,
} from '../src/api.js';
import { ns } from '../src/indexing/keys.js';
import { docsEngineToken, enginePlugin } from '../src/plugin.js';

/** One process's leases shared by every "replica" of the test: what PostgreSQL's advisory locks are across processes. */
class SharedLeases implements IndexLease {
  private readonly held = new Set<string>();
  private readonly waiters = new Map<string, (() => void)[]>();
  /** Every lease taken, in order. */
  readonly taken: string[] = [];

  async acquire(name: string): Promise<LeaseHandle | undefined> {
    if (this.held.has(name)) return undefined;
    this.held.add(name);
    this.taken.push(name);
    let mine = true;
    return {
      name,
      held: () => mine,
      release: async () => {
        if (!mine) return;
        mine = false;
        this.held.delete(name);
        for (const wake of this.waiters.get(name)?.splice(0) ?? []) wake();
      },
    };
  }

  isHeld(name: string): boolean {
    return this.held.has(name);
  }

  waitFor(name: string, timeoutMs: number): Promise<boolean> {
    if (!this.held.has(name)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      const list = this.waiters.get(name) ?? [];
      list.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
      this.waiters.set(name, list);
    });
  }
}

/** An event bus between the test's replicas: each hears the others' events (a tick later), never its own. */
class EventBus {
  private readonly listeners = new Map<string, Set<(event: ReplicaEvent) => void>>();
  readonly published: (ReplicaEvent & { from: string })[] = [];

  replica(id: string): ReplicaEvents {
    return {
      publish: (event) => {
        this.published.push({ ...event, from: id });
        for (const [other, listeners] of this.listeners) {
          if (other !== id) for (const listener of listeners) setImmediate(() => listener(event));
        }
      },
      subscribe: (listener) => {
        const set = this.listeners.get(id) ?? new Set();
        set.add(listener);
        this.listeners.set(id, set);
        return () => set.delete(listener);
      },
    };
  }
}

/** A memory cache (the "shared store") that counts reads of stored docs manifests. */
class CountingCache extends MemoryCacheStore {
  docsReads = 0;
  override async get<T>(namespace: string, key: string, options?: CacheGetOptions): Promise<CacheEntry<T> | undefined> {
    if (namespace === ns.docs) this.docsReads++;
    return super.get<T>(namespace, key, options);
  }
}

const PAGES = 6;
/** The docs site's edition: its pages say it (a new one is a change of the docs). */
let edition = 'v1';
const pageText = (n: number) =>
  `# Page ${n}\n\n## Tuning knob${n}\n\nSet \`knob${n}\` to the tolerance (edition${edition}). Orbits are computed step by step.\n`;

/** A source adapter reading acme's pages from the loopback docs site (which counts the requests). */
class SiteAdapter extends StaticSourceAdapter {
  /** When set, the fetch fails after reading every page (an origin that breaks mid-build). */
  failAfterFetch = false;

  constructor(private readonly site: LoopbackSite) {
    super('site', { acme: { pages: [] } });
  }

  override async fetchDocs(library: LibraryDescriptor): Promise<DocsResult> {
    const pages = [];
    for (let n = 0; n < PAGES; n++) {
      const url = `${this.site.origin}/page-${n}.md`;
      const response = await fetch(url);
      pages.push({ url, title: `Page ${n}`, markdown: await response.text() });
    }
    if (this.failAfterFetch) throw new Error(`${library.id}: the origin broke mid-build`);
    return {
      pages,
      sourceUrl: this.site.origin,
      fetchedAt: new Date().toISOString(),
      freshness: { contentHash: edition },
    };
  }

  override async checkFreshness(_library: LibraryDescriptor, _version: string, cached: Freshness) {
    return cached.contentHash === edition ? ('fresh' as const) : ('changed' as const);
  }
}

let site: LoopbackSite;
const kernels: StartedKernel[] = [];

beforeAll(async () => {
  site = await startLoopbackSite(async (path, res) => {
    const page = /^\/page-(\d+)\.md$/.exec(path);
    // a slow origin: the replicas' calls overlap
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (page) res.writeHead(200, { 'content-type': 'text/markdown' }).end(pageText(Number(page[1])));
    else res.writeHead(404).end();
  });
});
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((k) => k.stop()));
  site.hits.length = 0;
  edition = 'v1';
});
afterAll(() => site.close());

/** A replica: an engine on the shared cache, with the shared leases and its end of the event bus. */
async function replica(
  id: string,
  shared: { cache: MemoryCacheStore; leases: SharedLeases; bus: EventBus },
  ttlHours?: number,
) {
  const adapter = new SiteAdapter(site);
  const kernel = await createTestKernel({
    fakeCache: shared.cache,
    plugins: [
      enginePlugin,
      definePlugin({
        id: `replica-${id}`,
        kernel: `>=${KERNEL_VERSION}`,
        register: (ctx) => {
          ctx.bindValue(sourceAdapterToken, adapter);
          ctx.bindValue(indexLeaseToken, shared.leases);
          ctx.bindValue(replicaEventsToken, shared.bus.replica(id));
        },
      }),
    ],
    config: {
      libraries: [{ id: 'acme', name: 'Acme', language: 'python', source: 'site', ...(ttlHours ? { ttlHours } : {}) }],
    },
  });
  kernels.push(kernel);
  return { kernel, engine: kernel.resolve(docsEngineToken), adapter };
}

function cluster() {
  return { cache: new CountingCache(), leases: new SharedLeases(), bus: new EventBus() };
}

describe('replicas sharing one store', () => {
  it('fetch and index a library once between them: the others wait and load it from the store', async () => {
    const shared = cluster();
    const [a, b] = [await replica('a', shared), await replica('b', shared)];

    // both asked at once, and three more calls on B: one fetch of each page in all
    const results = await Promise.all([
      a.engine.loadDocs('acme'),
      b.engine.loadDocs('acme'),
      b.engine.loadDocs('acme'),
      b.engine.loadDocs('acme'),
      b.engine.loadDocs('acme'),
    ]);
    expect(site.hits.filter((h) => h.startsWith('/page-')).length).toBe(PAGES);
    expect(results.filter((r) => !r.cached)).toHaveLength(1);
    expect(shared.leases.taken).toEqual(['index:acme@latest']);
    expect(a.engine.loadedVersions()).toEqual(['acme@latest']);
    expect(b.engine.loadedVersions()).toEqual(['acme@latest']);
    const answer = await b.engine.search('acme', 'knob3 tolerance', undefined, 3);
    expect(answer.results[0]?.url).toMatch(`${site.origin}/page-3.md`);
    expect(shared.bus.published).toContainEqual({ kind: 'library', libraryId: 'acme', reason: 'indexed', from: 'a' });

    // A told the others before it gave the lease up: what B loaded after waiting stays loaded
    await a.engine.idle();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(b.engine.loadedVersions()).toEqual(['acme@latest']);

    // a third replica asked five times at once reads the stored docs once, and fetches nothing
    const c = await replica('c', shared);
    const reads = shared.cache.docsReads;
    const onC = await Promise.all(Array.from({ length: 5 }, () => c.engine.loadDocs('acme')));
    expect(onC.every((r) => r.cached)).toBe(true);
    expect(shared.cache.docsReads - reads).toBe(1);
    expect(site.hits.filter((h) => h.startsWith('/page-')).length).toBe(PAGES);
  });

  it('a replica whose build failed leaves it to the one waiting, which builds it itself', async () => {
    const shared = cluster();
    const [a, b] = [await replica('a', shared), await replica('b', shared)];
    a.adapter.failAfterFetch = true;

    const onA = a.engine.loadDocs('acme');
    await vi.waitFor(() => expect(shared.leases.isHeld('index:acme@latest')).toBe(true));
    const onB = b.engine.loadDocs('acme');
    await expect(onA).rejects.toThrow();
    const result = await onB;
    expect(result.cached).toBe(false);
    expect(b.engine.loadedVersions()).toEqual(['acme@latest']);
    expect(shared.leases.taken).toEqual(['index:acme@latest', 'index:acme@latest']);
    expect(site.hits.filter((h) => h.startsWith('/page-')).length).toBe(2 * PAGES);
    await b.engine.idle();
    expect(shared.leases.isHeld('index:acme@latest')).toBe(false);
  });

  it("a library cleared on one replica is dropped from the others' memory, and their answers' revision moves", async () => {
    const shared = cluster();
    const [a, b] = [await replica('a', shared), await replica('b', shared)];
    await a.engine.loadDocs('acme');
    await a.engine.idle();
    await b.engine.loadDocs('acme');
    expect(b.engine.loadedVersions()).toEqual(['acme@latest']);
    const revisionOnB = b.kernel.resolve(kernelTokens.revisions).current();

    await a.engine.clearCache('acme');
    await vi.waitFor(() => expect(b.engine.loadedVersions()).toEqual([]));
    expect(b.kernel.resolve(kernelTokens.revisions).current()).not.toBe(revisionOnB);
    expect(shared.bus.published.at(-1)).toEqual({ kind: 'library', libraryId: 'acme', reason: 'cleared', from: 'a' });

    // B's next call finds nothing stored: it fetches and indexes again
    const hits = site.hits.length;
    expect((await b.engine.loadDocs('acme')).cached).toBe(false);
    expect(site.hits.length).toBe(hits + PAGES);
  });

  it('stale docs are refreshed by the replica holding the lease; the others skip it, then load the new docs', async () => {
    const shared = cluster();
    // docs stale after 0.36 s
    const [a, b] = [await replica('a', shared, 0.0001), await replica('b', shared, 0.0001)];
    await a.engine.loadDocs('acme');
    await a.engine.idle();
    await b.engine.loadDocs('acme');
    await new Promise((resolve) => setTimeout(resolve, 450));
    edition = 'v2';

    // A serves its stale docs and refreshes them behind; B, asked meanwhile, leaves the refresh to A
    expect((await a.engine.loadDocs('acme')).stale).toBe(true);
    await vi.waitFor(() => expect(shared.leases.isHeld('index:acme@latest')).toBe(true));
    expect((await b.engine.loadDocs('acme')).stale).toBe(true);
    await Promise.all([a.engine.idle(), b.engine.idle()]);
    // the first build's lease and A's refresh's: B's refresh found it held and let A do it
    expect(shared.leases.taken).toHaveLength(2);
    expect(site.hits.filter((h) => h.startsWith('/page-')).length).toBe(2 * PAGES);
    expect(shared.bus.published.at(-1)).toEqual({ kind: 'library', libraryId: 'acme', reason: 'refreshed', from: 'a' });

    // B let its old docs go and loads the new ones from the store, without fetching
    await vi.waitFor(() => expect(b.engine.loadedVersions()).toEqual([]));
    expect((await b.engine.loadDocs('acme')).cached).toBe(true);
    const answer = await b.engine.search('acme', 'editionv2', undefined, 3);
    expect(answer.results.length).toBeGreaterThan(0);
    expect(site.hits.filter((h) => h.startsWith('/page-')).length).toBe(2 * PAGES);
  });
});

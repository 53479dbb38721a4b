import { randomUUID } from 'node:crypto';
import type { CacheStore, FetchContext, Logger } from '@pro-context/kernel';
import { ns } from './keys.js';

/** How long an indexing lease (`ns.indexing`) lasts unless renewed, and how often a running build renews it. */
const LEASE_MS = 60_000;
const LEASE_RENEW_MS = 20_000;

/** A library version being indexed (`DocStore.indexingNow`). */
export interface IndexingNow {
  /** `libraryId@version`. */
  key: string;
  /** The process indexing it. */
  pid: number;
  /** Indexed by this engine (else by another sharing the cache). */
  here: boolean;
}

/** A build of one library version and the callers waiting for it. */
interface SharedBuild<T> {
  promise: Promise<T>;
  /** The progress callbacks of the callers waiting. */
  listeners: Set<NonNullable<FetchContext['progress']>>;
  /** The last progress report, for a caller who joins later. */
  last?: [number, number, string];
  /** Callers waiting who have not cancelled (a caller without a signal never does). */
  waiting: number;
  controller: AbortController;
}

/**
 * Builds of library versions shared by every caller who asks for one while it runs: each hears its progress,
 * it goes on while one of them still waits, it stops when the last one cancels; and while it runs, an indexing
 * lease in the cache tells other processes sharing the cache that the library is being indexed.
 */
export class SharedBuilds<T> {
  private readonly builds = new Map<string, SharedBuild<T>>();

  constructor(
    private readonly cache: CacheStore,
    private readonly logger: Logger,
    /** Tracks background work (the lease's release), for `idle()`. */
    private readonly track: (work: Promise<unknown>) => void,
  ) {}

  /** Whether `key` is being built here. */
  has(key: string): boolean {
    return this.builds.has(key);
  }

  /** Joins the build of `key` under way, else starts one with `run` (given the build's own context). */
  join(key: string, context: FetchContext, run: (context: FetchContext) => Promise<T>): Promise<T> {
    let shared = this.builds.get(key);
    if (!shared) {
      const controller = new AbortController();
      const build = { listeners: new Set(), waiting: 0, controller } as SharedBuild<T>;
      const { signal: _signal, progress: _progress, ...rest } = context;
      build.promise = run({
        ...rest,
        signal: controller.signal,
        progress: (done, total, message) => {
          build.last = [done, total, message];
          for (const listener of build.listeners) listener(done, total, message);
        },
      }).finally(() => {
        if (this.builds.get(key) === build) this.builds.delete(key);
      });
      // a build nobody waits for any more fails with the last caller's abort; it is nobody's to join
      build.promise.catch(() => undefined);
      controller.signal.addEventListener(
        'abort',
        () => {
          if (this.builds.get(key) === build) this.builds.delete(key);
        },
        { once: true },
      );
      this.builds.set(key, build);
      this.leaseWhile(key, build.promise);
      shared = build;
    }
    return joinBuild(shared, context);
  }

  /**
   * Holds the indexing lease of `key` in the cache until `work` settles, renewing it, so that another process
   * sharing the cache (`pro-context cache clear`) sees the library is being indexed. A lease that cannot be
   * written is logged: the build goes on.
   */
  private leaseWhile(key: string, work: Promise<unknown>): void {
    const lease = { pid: process.pid, startedAt: new Date().toISOString(), build: randomUUID() };
    const write = () =>
      this.cache
        .set(ns.indexing, key, lease, { ttlMs: LEASE_MS, memory: false })
        .catch((error: unknown) => this.logger.warn('could not record an indexing lease', { key, error }));
    void write();
    const renew = setInterval(write, LEASE_RENEW_MS);
    renew.unref();
    // the lease goes with its build: a build of the same library started meanwhile (this one was cancelled) keeps its
    // own, also when it started while this one's lease was being read (it is in `builds` by then)
    const release = async () => {
      const held = await this.cache.get<typeof lease>(ns.indexing, key, { memory: false });
      if (held?.value.build === lease.build && !this.builds.has(key)) await this.cache.delete(ns.indexing, key);
    };
    void work
      .catch(() => undefined)
      .finally(() => {
        clearInterval(renew);
        this.track(release().catch(() => undefined));
      });
  }

  /**
   * Library versions (`libraryId@version`) being indexed right now, by this engine or another sharing the cache
   * (its lease).
   */
  async indexingNow(): Promise<IndexingNow[]> {
    const found: IndexingNow[] = [...this.builds.keys()].map((key) => ({ key, pid: process.pid, here: true }));
    for (const key of await this.cache.keys(ns.indexing)) {
      if (this.builds.has(key)) continue;
      // (past the memory tier: another process writes and deletes leases)
      const lease = await this.cache.get<{ pid: number }>(ns.indexing, key, { memory: false });
      if (lease) found.push({ key, pid: lease.value.pid, here: false });
    }
    return found;
  }
}

/**
 * Waits for `build` as one more caller: hears its progress (its last report at once), and leaves it when its own
 * signal aborts, rejecting with that abort's reason; the build is aborted when its last caller leaves, whose call
 * ends once the build has stopped.
 */
function joinBuild<T>(build: SharedBuild<T>, context: FetchContext): Promise<T> {
  const { signal, progress } = context;
  if (signal?.aborted) return Promise.reject(signal.reason);
  build.waiting++;
  if (progress) {
    build.listeners.add(progress);
    if (build.last) progress(...build.last);
  }
  if (!signal) return build.promise;
  return new Promise<T>((resolve, reject) => {
    let left = false;
    const leave = () => {
      left = true;
      if (progress) build.listeners.delete(progress);
      if (--build.waiting > 0) return reject(signal.reason);
      // the last caller: the build stops, and the call ends once it has (nothing of it is left in the cache)
      build.controller.abort(signal.reason);
      const rejected = () => reject(signal.reason);
      build.promise.then(rejected, rejected);
    };
    signal.addEventListener('abort', leave, { once: true });
    build.promise
      .then(
        (result) => left || resolve(result),
        (error: unknown) => left || reject(error),
      )
      .finally(() => signal.removeEventListener('abort', leave));
  });
}

import type { Logger } from '@pro-context/kernel';
import type { IndexLease, LeaseHandle, ReplicaEvents } from '../replicas.js';

/** How long a replica's indexing lease lasts unrenewed (its holder renews it every third of that). */
const LEASE_TTL_MS = 120_000;
/** How long a replica waits for another's build of a library version before it tries again. */
const WAIT_MS = 120_000;
/** How many times a replica waits for others' builds of one library version before it builds it itself. */
const WAITS = 3;

/** The optional contracts of replicas sharing one store (both unbound: one process, nothing is shared). */
export interface ReplicaContracts {
  /** Fetching and indexing once across replicas (`indexLeaseToken`). */
  leases?: IndexLease | undefined;
  /** Changes told to the other replicas (`replicaEventsToken`). */
  events?: ReplicaEvents | undefined;
}

/** A lease held for a build (`undefined`: no replicas, or none could be taken). */
export type Lease = LeaseHandle | undefined;

/** `work`, or the abort's reason as soon as `signal` aborts. */
function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/**
 * What the doc store does with the replicas' contracts: a library version missing from the store is fetched and
 * indexed by the one replica holding its lease (`index:<libraryId>@<version>`) while the others wait and then
 * load what it stored; a library's docs changed here (indexed, refreshed, cleared) are told to the others, and
 * theirs dropped here. Without the contracts every method is the single process's: build, tell nobody.
 */
export class ReplicaCoordination {
  constructor(
    private readonly contracts: ReplicaContracts,
    private readonly logger: Logger,
  ) {}

  /**
   * The library version `key` (`libraryId@version`) once across replicas: what `stored()` finds (another replica
   * stored it meanwhile), else `build(lease)`, which releases the lease (see {@link release}) once its docs are
   * stored or it failed. A replica that holds the lease is waited for (`WAIT_MS`, at most `WAITS` times, or until
   * `signal` aborts); a lease that cannot be taken at all (the store is down) leaves the build to this replica.
   */
  async once<T>(
    key: string,
    signal: AbortSignal | undefined,
    stored: () => Promise<T | undefined>,
    build: (lease: LeaseHandle | undefined) => Promise<T>,
  ): Promise<T> {
    const { leases } = this.contracts;
    if (!leases) return build(undefined);
    const name = `index:${key}`;
    for (let wait = 0; wait < WAITS; wait++) {
      const lease = await this.acquire(leases, name);
      if (lease === 'failed') break;
      if (lease) {
        // another replica may have stored it between this one's read and its lease
        const found = await stored().catch(async (error: unknown) => {
          await this.release(lease);
          throw error;
        });
        if (!found) return build(lease);
        await this.release(lease);
        return found;
      }
      this.logger.info('another replica is indexing this library version; waiting for it', { key });
      await abortable(
        leases.waitFor(name, WAIT_MS).catch(() => false),
        signal,
      );
      const found = await stored();
      if (found) return found;
    }
    return build(undefined);
  }

  /**
   * Takes the lease of `key` for a refresh: the handle, `undefined` when there are no replicas (refresh here), or
   * `'held'` when another replica is indexing it (it refreshes, and tells this one).
   */
  async forRefresh(key: string): Promise<LeaseHandle | 'held' | undefined> {
    const { leases } = this.contracts;
    if (!leases) return undefined;
    const lease = await this.acquire(leases, `index:${key}`);
    if (lease === 'failed') return undefined;
    return lease ?? 'held';
  }

  /** Gives a lease up (a failure to is logged: it expires by itself). */
  async release(lease: LeaseHandle | undefined): Promise<void> {
    try {
      await lease?.release();
    } catch (error) {
      this.logger.warn('could not release an indexing lease; it expires by itself', { name: lease?.name, error });
    }
  }

  /** Tells the other replicas that a library's docs changed here. */
  changed(libraryId: string, reason: string): void {
    try {
      this.contracts.events?.publish({ kind: 'library', libraryId, reason });
    } catch (error) {
      this.logger.warn('could not tell the other replicas of a change', { libraryId, reason, error });
    }
  }

  /** Calls `drop` for each library another replica changed; returns the unsubscribe (nothing without replicas). */
  follow(drop: (libraryId: string, reason: string) => void): () => void {
    return this.contracts.events?.subscribe((event) => drop(event.libraryId, event.reason)) ?? (() => undefined);
  }

  private async acquire(leases: IndexLease, name: string): Promise<LeaseHandle | undefined | 'failed'> {
    try {
      return await leases.acquire(name, LEASE_TTL_MS);
    } catch (error) {
      this.logger.warn('could not take an indexing lease; indexing here', { name, error });
      return 'failed';
    }
  }
}

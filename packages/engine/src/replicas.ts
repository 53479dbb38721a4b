/**
 * Optional contracts for replicas of a server sharing one store (issue #27: declared by the engine, their only
 * consumer; `postgres-store` binds them). Unbound, the engine works as one process.
 */
import { createToken } from '@pro-context/kernel';

/** A lease held by this process: renewed in the background until released (or the process dies). */
export interface LeaseHandle {
  readonly name: string;
  /** Whether this process still holds it (false once it expired unrenewed, or after `release`). */
  held(): boolean;
  /** Gives it up now; the next `acquire` of the name by any replica succeeds. */
  release(): Promise<void>;
}

/**
 * Work done once across the replicas of a server sharing one store (fetching and indexing a library): the
 * replica that acquires `name` does it; the others wait (`waitFor`) and then read the result from the shared
 * cache. A lease expires `ttlMs` after its last renewal, so a replica killed mid-build releases it by expiry;
 * a live holder renews it every `ttlMs / 3`.
 */
export interface IndexLease {
  /** Takes the lease when nobody holds it (or its holder let it expire); `undefined` when another replica holds it. */
  acquire(name: string, ttlMs: number): Promise<LeaseHandle | undefined>;
  /** Resolves when nobody holds `name` (released or expired), or with `false` after `timeoutMs`. */
  waitFor(name: string, timeoutMs: number): Promise<boolean>;
}

/** What one replica tells the others. */
export interface ReplicaEvent {
  /** `library`: a library's docs or index changed (refreshed, re-indexed, removed). */
  kind: 'library';
  libraryId: string;
  reason: string;
}

/**
 * Changes made by one replica, told to the others (the store's publish/subscribe: PostgreSQL's LISTEN/NOTIFY).
 * The engine publishes after it refreshed or re-indexed a library and subscribes to drop the in-memory docs of a
 * library another replica changed; a store that binds this also bumps `kernelTokens.revisions` on every event
 * from another replica, so memoized answers are not served again.
 */
export interface ReplicaEvents {
  publish(event: ReplicaEvent): void;
  /** Calls `listener` for each event from another replica (never for this one's own); returns the unsubscribe. */
  subscribe(listener: (event: ReplicaEvent) => void): () => void;
}

/** Optional contract: leases shared by replicas (unbound: one process, nothing to share). */
export const indexLeaseToken = createToken<IndexLease>('engine.indexLease');
/** Optional contract: events between replicas (unbound: one process). */
export const replicaEventsToken = createToken<ReplicaEvents>('engine.replicaEvents');

/**
 * One counter for "anything an answer may have come from changed": docs refreshed or re-indexed, a library
 * (re)configured, a cache entry replaced by another process. A host that keeps answers to serve again (the
 * HTTP host's answer memo) stores each with the revision it was made at and serves it only while
 * {@link AnswerRevisions.current} still returns that value (and before the answer's `reuse.until`).
 * The runtime binds one per kernel (`kernelTokens.revisions`: `@pro-context/runtime`'s `createAnswerRevisions`);
 * the engine bumps it, a shared store may bump it when another replica changed something.
 */
export interface AnswerRevisions {
  /** The current revision. Cheap: it runs on every reuse. */
  current(): number;
  /** Says something answers may depend on changed; every answer made before is no longer served again. */
  bump(reason: string): void;
  /** Calls `listener` after each bump; returns the unsubscribe function. */
  onBump(listener: (revision: number, reason: string) => void): () => void;
}

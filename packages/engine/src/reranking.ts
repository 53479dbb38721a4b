import { createToken } from '@pro-context/kernel';

/**
 * The reranking seam (issue #28, deliverable 7): optional contracts for those who have a model. Nothing is bound
 * by default, and then nothing changes: the lexical ranking answers, because it needs nothing. A plugin binds
 * {@link rerankerToken} (and, for other uses of its model, {@link embedderToken}); the engine's get-docs then
 * reranks its top lexical candidates with it, within a time budget, and falls back to the lexical answer with a
 * coded note on any failure (`get-docs/rerank.ts`).
 */

/** A text embedding model: texts in, one vector each, in order. */
export interface Embedder {
  /** Who embeds, for logs and notes (`openai-embeddings`). */
  readonly id: string;
  /** The model's name as its server knows it (`nomic-embed-text`, `text-embedding-3-small`). */
  readonly model: string;
  /** The vectors' length: configured, else learnt from the first answer (`undefined` until then). */
  readonly dimensions: number | undefined;
  /**
   * One vector per text, in the order of `texts`. Rejects with a catalog error naming the cause (unreachable,
   * timed out, key refused, rate limited with `retryAfter`, an answer of the wrong shape) and stops when `signal`
   * aborts.
   */
  embed(texts: readonly string[], signal: AbortSignal): Promise<number[][]>;
}

/** One candidate a {@link Reranker} scores: a section of the docs (its heading path and text, cut to a bound). */
export interface RerankCandidate {
  /** Stable for the same section (the engine's section key). */
  readonly id: string;
  readonly text: string;
}

/** Scores candidates for a query with a model: higher is more relevant, any scale (the engine normalises). */
export interface Reranker {
  /**
   * Who reranks, as the notes and the answer cache name it (`openai-embeddings:nomic-embed-text`): answers
   * reranked by another model, or by none, are stored apart.
   */
  readonly id: string;
  /**
   * The reranker's share of the blended score, 0 to 1 (default {@link DEFAULT_RERANK_WEIGHT}): 0 keeps the lexical
   * order, 1 follows the model alone within the candidates it was given.
   */
  readonly weight?: number;
  /**
   * How long the engine waits for `rerank`, ms (default {@link DEFAULT_RERANK_BUDGET_MS}; never more than the
   * engine's `interactiveTimeoutMs`). Past it `signal` aborts and the lexical answer is given with a note.
   */
  readonly timeoutMs?: number;
  /**
   * One finite score per candidate, in the order of `candidates`. Rejects with a catalog error naming the cause
   * on any failure; the engine turns it into a note and answers lexically.
   */
  rerank(query: string, candidates: readonly RerankCandidate[], signal: AbortSignal): Promise<number[]>;
}

/** The reranker's share of the blended score when it declares none. */
export const DEFAULT_RERANK_WEIGHT = 0.5;

/** How long get-docs waits for a reranker that declares no `timeoutMs`, ms. */
export const DEFAULT_RERANK_BUDGET_MS = 3000;

/** An embedding model, for plugins that want vectors (optional: check `isBound`). */
export const embedderToken = createToken<Embedder>('engine.embedder');

/** The reranker get-docs uses when one is bound (optional: unbound, the lexical ranking answers alone). */
export const rerankerToken = createToken<Reranker>('engine.reranker');

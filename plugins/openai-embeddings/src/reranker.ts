import type { RerankCandidate, Reranker } from '@pro-context/engine/api';
import type { OpenAiEmbedder } from './embedder.js';

/** Cosine similarity of two vectors of one length (0 when either is all zeros). */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/**
 * A {@link Reranker} built on the embedder: a candidate's score is the cosine of the query's vector and its own
 * (section vectors come from the embedder's cache once computed, so a library's sections are embedded once).
 */
export class EmbeddingReranker implements Reranker {
  readonly id: string;

  constructor(
    private readonly embedder: OpenAiEmbedder,
    readonly weight: number,
    readonly timeoutMs: number,
  ) {
    this.id = `${embedder.id}:${embedder.model}`;
  }

  async rerank(query: string, candidates: readonly RerankCandidate[], signal: AbortSignal): Promise<number[]> {
    const [q, ...vectors] = await this.embedder.vectors([query, ...candidates.map((c) => c.text)], signal);
    return vectors.map((v) => cosine(q as Float32Array, v));
  }
}

import type { StoredChunk } from '../../indexing/doc-store.js';
import type { RankedChunk } from './chunks.js';
import { sectionKey } from './sections.js';

/** The parameters of get-docs' relevance cut-off ({@link selectRelevant}); see {@link DEFAULT_CUTOFF}. */
export interface CutoffParams {
  enabled: boolean;
  /** Estimated tokens of the best-ranked sections given whatever their score, before the shares apply. */
  floorTokens: number;
  /** Past the floor, a section of another page is kept while it scores at least this share of the best. */
  ratio: number;
  /** Past the floor, a section of the best section's own page is kept down to this share of the best score. */
  pageRatio: number;
  /** A section scoring at least this share of the best that the answer does not give counts as left out. */
  leftOutRatio: number;
  /**
   * A score list is flat when the section ending the floor still scores this share of the best (issue #28): the
   * ranking could not tell the sections apart, and giving more of them only fills the budget. Past the floor, a
   * flat list adds sections scoring at least `ratio` of the best only up to {@link CutoffParams.flatTokens}.
   */
  flatShare: number;
  /** Estimated tokens a flat list's answer gives at most past the floor. */
  flatTokens: number;
}

/**
 * get-docs' cut-off, measured on the dev questions (`bench/src/cutoff-lab.ts`, odd and even ids apart):
 * - the answer is in the best-ranked ~1,500 tokens for 9 questions in 10 (answer-bearing at 2,000 tokens
 *   is within 3 to 6 points of 5,000), so those are always given: below that floor, scores are too close to
 *   tell an answer from its neighbours (one is the 5th section, at 0.83 of the best);
 * - past it, a section is worth its tokens only while it scores near the best: a flat score list says the
 *   ranking could not tell the sections apart (give more), a steep one that the first sections are the answer.
 * On the 216 dev questions (FastAPI, Pydantic, ESLint, Instructor, React, Vitest) the tokens returned at the
 * default 5,000 fell from a median of ~4,900 to ~2,300 with no question's answer lost at any budget. The odd
 * half does not tell the shares apart; on the even half 0.72 or more loses answers ranked 6th to 15th at
 * 0.70-0.75 of the best, a floor of 1,200 one more. Keeping the best section's own page down to a lower share
 * (its neighbours) saved no answer and cost ~300 tokens a question, so the page gets no favour
 * (`pageRatio` = `ratio`).
 * Issue #28: most score lists are flat (the plain-language question's top 40 within a few percent), and
 * react-like corpora filled the budget (median ~4,500 tokens at 5,000). A flat list (the floor's last section at
 * 0.85 of the best or more) now stops at 2,200 tokens: medians 1,924-2,392 on every library at 5,000, answer-bearing
 * at 2,000 unchanged or better on each; 2,500 left react and ESLint above a 2,500 median, keeping only the best
 * section of each of 3-5 pages lost more answers.
 */
export const DEFAULT_CUTOFF: CutoffParams = {
  enabled: true,
  floorTokens: 1500,
  ratio: 0.7,
  pageRatio: 0.7,
  leftOutRatio: 0.5,
  flatShare: 0.85,
  flatTokens: 2200,
};

const pageOf = (chunk: StoredChunk): string => chunk.url.split('#')[0] as string;

/**
 * get-docs' relevance cut-off: the candidates (best first) worth giving, so that `maxTokens` is a ceiling,
 * not a quota ({@link DEFAULT_CUTOFF} says why these rules).
 */
export function selectRelevant(
  candidates: readonly RankedChunk[],
  params: CutoffParams = DEFAULT_CUTOFF,
): RankedChunk[] {
  const best = candidates[0];
  if (!params.enabled || best === undefined || best.score <= 0) return [...candidates];
  const bestPage = pageOf(best.chunk);
  const flat = isFlat(candidates, params);
  const kept: RankedChunk[] = [];
  let tokens = 0;
  for (const item of candidates) {
    const share = item.score / best.score;
    const page = pageOf(item.chunk);
    const floor = tokens < params.floorTokens;
    const keep = flat
      ? floor || (share >= params.ratio && tokens + item.chunk.tokens <= params.flatTokens)
      : floor || share >= (page === bestPage ? params.pageRatio : params.ratio);
    if (!keep) continue;
    kept.push(item);
    tokens += item.chunk.tokens;
  }
  return kept;
}

/** Whether the section at the end of the floor scores at least `flatShare` of the best ({@link CutoffParams.flatShare}). */
function isFlat(candidates: readonly RankedChunk[], params: CutoffParams): boolean {
  const best = candidates[0];
  if (best === undefined || best.score <= 0) return false;
  let tokens = 0;
  for (const item of candidates) {
    tokens += item.chunk.tokens;
    if (tokens >= params.floorTokens) return item.score / best.score >= params.flatShare;
  }
  return false;
}

/**
 * How many sections of `candidates` scoring at least `leftOutRatio` of the best one an answer giving `used`
 * left out (cut off, or past `maxTokens`): what the agent may still ask for.
 */
export function sectionsLeftOut(
  candidates: readonly RankedChunk[],
  used: readonly RankedChunk[],
  params: CutoffParams = DEFAULT_CUTOFF,
): number {
  const best = candidates[0];
  if (best === undefined || best.score <= 0) return 0;
  const given = new Set(used.map((item) => sectionKey(item.chunk)));
  const left = new Set<string>();
  for (const item of candidates) {
    const key = sectionKey(item.chunk);
    if (item.score >= params.leftOutRatio * best.score && !given.has(key)) left.add(key);
  }
  return left.size;
}

import type { StoredChunk } from '../../indexing/doc-store.js';
import type { RankedChunk } from './chunks.js';
import { chunkUrl, labelPath } from './labels.js';
import { sectionKey } from './sections.js';

/** The parameters of get-docs' relevance cut-off ({@link selectRelevant}); see {@link DEFAULT_CUTOFF}. */
export interface CutoffParams {
  enabled: boolean;
  /** Estimated tokens of the best-ranked sections given whatever their score, before the shares apply. */
  floorTokens: number;
  /** Past the floor, a section of another page is kept while it scores at least this share of the best. */
  ratio: number;
  /**
   * Past the floor, a section of a page the floor gave (the best pages) is kept down to this share of the best
   * score, and is considered before the sections of other pages.
   */
  pageRatio: number;
  /** A section scoring at least this share of the best that the answer does not give counts as left out. */
  leftOutRatio: number;
  /**
   * Past the floor, the top of a page the floor gave (its first section, which says what the page is for) is kept
   * down to this share of the best score, before any other section (issue #28: "the top of each of the best pages").
   */
  pageTopRatio: number;
  /**
   * A score list is flat when the section ending the floor still scores this share of the best (issue #28): the
   * ranking could not tell the sections apart, and giving more of them only fills the budget. Past the floor, a
   * flat list adds sections scoring at least `ratio` of the best only up to {@link CutoffParams.flatTokens}.
   */
  flatShare: number;
  /**
   * Estimated tokens a flat list's answer takes at most, counted as rendered (each section's label and separator
   * too: an answer of many short sections spends more on labels), the floor included.
   */
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
 * default 5,000 fell from a median of ~4,900 to ~2,300 with no question's answer lost at any budget.
 * Issue #28: most score lists are flat (the plain-language question's top 40 within a few percent), and
 * react-like corpora filled the budget (median ~4,500 tokens at 5,000). A flat list (the floor's last section at
 * 0.85 of the best or more) stops at {@link CutoffParams.flatTokens}. Stopping at 2,200 chunk tokens kept the
 * medians under 2,500 but lost answers (ans@5000 85.6 → 82.4 %); what those answers had in common (`--lost`): the
 * answer was another section of a page the floor gave ("Specify JavaScript Options" beside "Specify Parser
 * Options", "HTTP Proxies" beside "SOCKS", `<StrictMode>`'s "Enabling Strict Mode for entire app") scoring 0.6-0.9
 * of the best, while the flat budget went to one section each of more pages; and answers of many short sections
 * stopped early, since labels were not counted while long ones ran past the median. So the best pages come
 * first (their tops down to 0.5 of the best — httpx's "HTTP Proxies" opens the page whose "SOCKS" matched —, their
 * other sections down to 0.6, before other pages' sections at 0.7), the parts of long sections
 * that only follow a ranked part come last in a flat list (react's 4-part section filled it), and the flat limit counts
 * tokens as rendered (2,500: medians 1,900-2,400 per library); a floor of 1,300 leaves the best pages that room.
 * `pnpm eval`, before → after: ans@5000 82.4 → 84.7 %, ans@2000 80.1 → 80.6 % (216 questions); 7 questions of
 * those and the per-cause dev halves gained, none lost at any budget (a floor of 1,500 gained the same seven and
 * lost one: a new page's section crowded out).
 */
export const DEFAULT_CUTOFF: CutoffParams = {
  enabled: true,
  floorTokens: 1300,
  ratio: 0.7,
  pageRatio: 0.6,
  leftOutRatio: 0.5,
  pageTopRatio: 0.5,
  flatShare: 0.85,
  flatTokens: 2500,
};

const pageOf = (chunk: StoredChunk): string => chunk.url.split('#')[0] as string;

/** Estimated tokens a chunk takes in an answer: its text, its label and the separator before it. */
function renderedTokens(chunk: StoredChunk): number {
  return Math.ceil((chunk.body.trim().length + labelPath(chunk).length + chunkUrl(chunk).length + 30) / 4);
}

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
  const flat = isFlat(candidates, params);
  const kept = new Set<RankedChunk>();
  const pages = new Set<string>();
  let tokens = 0;
  let rendered = 0;
  const keep = (item: RankedChunk) => {
    kept.add(item);
    tokens += item.chunk.tokens;
    rendered += renderedTokens(item.chunk);
  };
  const rest: RankedChunk[] = [];
  for (const item of candidates) {
    if (tokens < params.floorTokens) {
      keep(item);
      pages.add(pageOf(item.chunk));
    } else rest.push(item);
  }
  // the floor's pages first: their tops, then their other sections, before one section each of more pages; and
  // in a flat list, the parts of long sections that nothing ranked (only
  // joined to a ranked part) after every ranked section. The order only matters where the flat limit stops.
  const floorPage = (item: RankedChunk) => pages.has(pageOf(item.chunk));
  const limit = flat ? params.flatTokens : Number.POSITIVE_INFINITY;
  const pageTop = (item: RankedChunk) => item.chunk.order === 0 && floorPage(item);
  const first = (item: RankedChunk) => (pageTop(item) ? 0 : floorPage(item) ? 1 : 2);
  // (a stable sort: best first within each group)
  let order = [...rest].sort((a, b) => first(a) - first(b));
  if (flat) order = [...order.filter((item) => !item.joined), ...order.filter((item) => item.joined)];
  for (const item of order) {
    const share = item.score / best.score;
    const need = [params.pageTopRatio, Math.min(params.pageRatio, params.ratio), params.ratio][first(item)] as number;
    if (share < need) continue;
    if (rendered + renderedTokens(item.chunk) > limit) continue;
    keep(item);
  }
  // best first, as ranked (fillBudget gives them in this order when maxTokens is smaller)
  return candidates.filter((item) => kept.has(item));
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

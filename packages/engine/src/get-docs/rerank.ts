import { isProContextError, type Logger, redaction } from '@pro-context/kernel';
import { sectionPath } from '../core/ranking/labels.js';
import { sectionKey } from '../core/ranking/sections.js';
import type { RankedChunk } from '../core/ranking.js';
import { DEFAULT_RERANK_BUDGET_MS, DEFAULT_RERANK_WEIGHT, type Reranker } from '../reranking.js';

/**
 * get-docs' one hook for a bound {@link Reranker} (issue #28, deliverable 7). The lexical candidates' best
 * {@link RERANK_SECTIONS} sections (each its heading path and text, cut to {@link RERANK_TEXT_CHARS}) are scored by
 * the reranker within a time budget, and each section's score becomes a blend:
 *
 *   blended = best lexical score × ((1 − w) × lexical / best lexical + w × (model − min) / (max − min))
 *
 * with `w` the reranker's `weight` (default 0.5) and the model's scores normalised over the sections it scored;
 * sections past the first {@link RERANK_SECTIONS} count as the model's lowest. Every part of a section moves with
 * it; the cut-off and the budget then apply as for a lexical ranking. Any failure (the model unreachable, slow,
 * refusing the key, rate limiting, answering the wrong shape) leaves the lexical ranking and a note whose code
 * names the cause; after a timeout or a rate limit the model is not asked again for a while ({@link RERANK_PAUSE_MS}
 * or its `Retry-After`), so a slow upstream does not slow every answer.
 */

/** Sections of the lexical ranking the reranker scores, at most. */
export const RERANK_SECTIONS = 30;
/** Characters of a section's text (heading path included) given to the reranker, at most. */
export const RERANK_TEXT_CHARS = 2000;
/** Time a reranker is given past its own `timeoutMs` to report its own timeout (its code names its upstream). */
export const RERANK_GRACE_MS = 200;
/** How long the reranker is left alone after it timed out (or was rate limited without a `Retry-After`), ms. */
export const RERANK_PAUSE_MS = 30_000;

/** The outcome of {@link rerankCandidates}: the candidates (reranked, or as given) and a note when it failed. */
export interface RerankOutcome {
  candidates: RankedChunk[];
  /** Set when the reranker failed or was skipped: the lexical ranking answered, and this says why (with a code). */
  note?: string;
}

/** When a reranker may be asked again, and why not before, per reranker. */
const paused = new WeakMap<Reranker, { until: number; code: string; why: string }>();

/** Answers ranked lexically because the reranker failed: never stored, never reused (the next call may rerank). */
const lexicalFallbacks = new WeakSet<object>();

/** Marks `answer` as a lexical fallback when `outcome` carries a note. */
export function markFallback<T extends object>(answer: T, outcome: RerankOutcome | undefined): T {
  if (outcome?.note !== undefined) lexicalFallbacks.add(answer);
  return answer;
}

/** Whether `answer` fell back to the lexical ranking because the reranker failed. */
export const isLexicalFallback = (answer: object): boolean => lexicalFallbacks.has(answer);

/** What keeps answers of different rerankers apart in the answer cache ('' when none is bound). */
export const rerankKeySuffix = (reranker: Reranker | undefined): string =>
  reranker === undefined ? '' : `\u0000rerank:${reranker.id}`;

/**
 * `candidates` (best first, as `withSectionParts` gives them) reranked by `reranker` for `query` within its time
 * budget (at most `maxBudgetMs`, and stopped by `signal`); on any failure, the candidates as given and a note.
 */
export async function rerankCandidates(
  reranker: Reranker,
  query: string,
  candidates: readonly RankedChunk[],
  options: { maxBudgetMs: number; signal?: AbortSignal | undefined; logger: Logger },
): Promise<RerankOutcome> {
  const sections = sectionsOf(candidates);
  // nothing to reorder
  if (sections.length < 2 || (sections[0]?.score ?? 0) <= 0) return { candidates: [...candidates] };
  const pause = paused.get(reranker);
  if (pause !== undefined && pause.until > Date.now()) {
    const seconds = Math.ceil((pause.until - Date.now()) / 1000);
    return {
      candidates: [...candidates],
      note: `${pause.code}: reranking skipped (${pause.why}; asked again in ${seconds} s); the lexical ranking answered.`,
    };
  }
  const scored = sections.slice(0, RERANK_SECTIONS);
  const budgetMs = Math.max(
    1,
    Math.min((reranker.timeoutMs ?? DEFAULT_RERANK_BUDGET_MS) + RERANK_GRACE_MS, options.maxBudgetMs),
  );
  let scores: number[];
  try {
    scores = await withinBudget(
      (signal) =>
        reranker.rerank(
          query,
          scored.map((s) => ({ id: s.key, text: s.text })),
          signal,
        ),
      budgetMs,
      options.signal,
    );
    if (!Array.isArray(scores) || scores.length !== scored.length || !scores.every(Number.isFinite)) {
      throw Object.assign(new Error(`it gave ${describeScores(scores)} for ${scored.length} sections`), {
        code: 'RERANK_INVALID',
      });
    }
  } catch (error) {
    // the caller cancelled: nothing to say about the reranker
    if (options.signal?.aborted) throw error;
    const failure = failureOf(error);
    if (failure.pauseMs > 0) paused.set(reranker, { until: Date.now() + failure.pauseMs, ...failure });
    options.logger.warn('reranking failed; the lexical ranking answered', {
      reranker: reranker.id,
      code: failure.code,
      error: failure.why,
    });
    return {
      candidates: [...candidates],
      note: `${failure.code}: reranking by ${reranker.id} failed (${failure.why}); the lexical ranking answered.${failure.next ? ` ${failure.next}` : ''}`,
    };
  }
  paused.delete(reranker);
  return { candidates: blend(candidates, sections, scores, weightOf(reranker)) };
}

/** One section of the candidates: its key, best score, parts, and text for the model (of the first ones only). */
interface Section {
  key: string;
  score: number;
  parts: RankedChunk[];
  text: string;
}

/** The candidates' sections, best first (a section ranks where its best part does), each with its text. */
function sectionsOf(candidates: readonly RankedChunk[]): Section[] {
  const byKey = new Map<string, { score: number; parts: RankedChunk[] }>();
  for (const item of candidates) {
    const key = sectionKey(item.chunk);
    const known = byKey.get(key);
    if (known === undefined) byKey.set(key, { score: item.score, parts: [item] });
    else {
      known.parts.push(item);
      if (item.score > known.score) known.score = item.score;
    }
  }
  const out: Section[] = [...byKey].map(([key, { score, parts }]) => ({ key, score, parts, text: '' }));
  out.sort((a, b) => b.score - a.score);
  // only the sections the model scores get a text
  for (const section of out.slice(0, RERANK_SECTIONS)) section.text = sectionText(section.parts);
  return out;
}

/** A section's heading path and its parts' text in page order, cut to {@link RERANK_TEXT_CHARS}. */
function sectionText(parts: readonly RankedChunk[]): string {
  const ordered = [...parts].sort((a, b) => a.chunk.order - b.chunk.order);
  const first = ordered[0];
  if (first === undefined) return '';
  let text = `${sectionPath(first.chunk)}\n\n`;
  for (const part of ordered) {
    if (text.length >= RERANK_TEXT_CHARS) break;
    text += `${part.chunk.body.slice(0, RERANK_TEXT_CHARS - text.length)}\n\n`;
  }
  return text.slice(0, RERANK_TEXT_CHARS).trim();
}

/** The reranker's share of the blend, within 0 to 1. */
function weightOf(reranker: Reranker): number {
  const weight = reranker.weight ?? DEFAULT_RERANK_WEIGHT;
  return Number.isFinite(weight) ? Math.min(1, Math.max(0, weight)) : DEFAULT_RERANK_WEIGHT;
}

/** The candidates with each section's score blended (see the module's comment), best first. */
function blend(
  candidates: readonly RankedChunk[],
  sections: readonly Section[],
  scores: readonly number[],
  weight: number,
): RankedChunk[] {
  const best = sections[0]?.score ?? 0;
  const min = Math.min(...scores);
  const max = Math.max(...scores);
  // the model could not tell the sections apart: the lexical order stands
  if (!(max - min > 1e-9) || weight === 0) return [...candidates];
  const factor = new Map<string, number>();
  sections.forEach((section, i) => {
    const model = i < scores.length ? ((scores[i] as number) - min) / (max - min) : 0;
    const blended = best * ((1 - weight) * (section.score / best) + weight * model);
    factor.set(section.key, section.score > 0 ? blended / section.score : 0);
  });
  return candidates
    .map((item, order) => ({
      item: { ...item, score: item.score * (factor.get(sectionKey(item.chunk)) ?? 1 - weight) },
      order,
    }))
    .sort((a, b) => b.item.score - a.item.score || a.order - b.order)
    .map(({ item }) => item);
}

/** Runs `work` with a signal that aborts after `ms` (or with `outer`); a work that ignores it still ends at `ms`. */
async function withinBudget<T>(
  work: (signal: AbortSignal) => Promise<T>,
  ms: number,
  outer: AbortSignal | undefined,
): Promise<T> {
  const controller = new AbortController();
  const abort = () => controller.abort(outer?.reason);
  outer?.addEventListener('abort', abort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = Object.assign(new Error(`no answer within ${ms} ms`), { code: 'RERANK_TIMEOUT' });
      controller.abort(error);
      reject(error);
    }, ms);
    timer.unref();
  });
  const running = work(controller.signal);
  running.catch(() => undefined);
  try {
    return await Promise.race([running, deadline]);
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', abort);
  }
}

/** What a failure is called in the note, why, and how long the reranker is then left alone. */
function failureOf(error: unknown): { code: string; why: string; next: string; pauseMs: number } {
  const code =
    isProContextError(error) || typeof (error as { code?: unknown })?.code === 'string'
      ? String((error as { code: string }).code)
      : 'RERANK_FAILED';
  const message = error instanceof Error ? error.message : String(error);
  // the reranker's own message, without any secret it might carry, on one line and bounded
  const why = redaction().text(message).replace(/\s+/g, ' ').slice(0, 300);
  // what to do about it, as the reranker's catalog error says (an address the guard refuses: the setting to change)
  const next = isProContextError(error) && error.suggestion ? redaction().text(error.suggestion).slice(0, 200) : '';
  const retryAfter = isProContextError(error) ? error.retryAfter : undefined;
  const timedOut = code === 'RERANK_TIMEOUT' || /TIMEOUT/.test(code);
  const pauseMs =
    retryAfter !== undefined && retryAfter > 0
      ? retryAfter * 1000
      : code === 'RATE_LIMITED' || timedOut
        ? RERANK_PAUSE_MS
        : 0;
  return { code, why, next, pauseMs };
}

/** A wrong answer's shape, for the note. */
function describeScores(scores: unknown): string {
  if (!Array.isArray(scores)) return typeof scores;
  const bad = scores.findIndex((s) => !Number.isFinite(s));
  return bad >= 0 ? `a score that is no number (${String(scores[bad]).slice(0, 20)})` : `${scores.length} scores`;
}

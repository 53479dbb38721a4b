import type { EvalRow } from './setup.js';
import { median, normalizeHeading } from './setup.js';

/** Where a phrase starts in a text, ignoring whitespace and inline markup differences; -1 if absent. */
export function findPhrase(text: string, phrase: string): number {
  const escapeRegExp = (c: string) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const words = phrase
    .replace(/[`*_]/g, '')
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => [...w].map(escapeRegExp).join('[`*_]*'));
  const pattern = new RegExp(words.join('[\\s`*_>]+'), 'i');
  return pattern.exec(text)?.index ?? -1;
}

/** One ranked search result as the metrics need it. */
export interface RankedResult {
  /** Corpus file the result points at (from the fake web's URL map), if any. */
  file: string | undefined;
  /** Heading path of the result's section. */
  headings: string[];
}

/** Whether a result points at the row's file and section. */
export function isHit(row: EvalRow, result: RankedResult): boolean {
  if (result.file !== row.file) return false;
  const wanted = normalizeHeading(row.heading);
  return result.headings.some((h) => normalizeHeading(h) === wanted);
}

/** Per-question outcome. */
export interface QuestionOutcome {
  row: EvalRow;
  /** maxTokens → whether get-docs content held must_contain. */
  answerBearing: Record<number, boolean>;
  /** Estimated tokens before must_contain starts, at the largest budget, when found. */
  tokensBefore?: number;
  /** Tokens of get-docs content at the largest budget. */
  tokensReturned: number;
  /** 1-based rank of the first hit among search results, 0 when none. */
  firstHitRank: number;
}

/** Aggregate metrics over outcomes. */
export function summarize(outcomes: QuestionOutcome[], budgets: number[]) {
  const n = outcomes.length || 1;
  const answer = Object.fromEntries(budgets.map((b) => [b, outcomes.filter((o) => o.answerBearing[b]).length / n]));
  return {
    questions: outcomes.length,
    answerBearing: answer as Record<number, number>,
    tokensBeforeAnswerMedian: median(
      outcomes.filter((o) => o.tokensBefore !== undefined).map((o) => o.tokensBefore as number),
    ),
    hitAt1: outcomes.filter((o) => o.firstHitRank === 1).length / n,
    hitAt5: outcomes.filter((o) => o.firstHitRank >= 1 && o.firstHitRank <= 5).length / n,
    mrr: outcomes.reduce((s, o) => s + (o.firstHitRank > 0 ? 1 / o.firstHitRank : 0), 0) / n,
    tokensReturnedMedian: median(outcomes.map((o) => o.tokensReturned)),
  };
}

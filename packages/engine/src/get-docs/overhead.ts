import { CHARS_PER_TOKEN, estimateTokens } from '@pro-context/kernel';
import type { DocsAnswer, RenderOverhead } from './answer.js';

/** Characters `overhead` adds beside `answer`'s content (the blank line after it included). */
export function overheadChars(overhead: RenderOverhead, answer: DocsAnswer): number {
  const more = answer.moreSections ?? 0;
  const moreChars =
    more > 0
      ? (more === 1 ? overhead.moreSectionsChars.one : overhead.moreSectionsChars.many) + String(more).length
      : 0;
  const skipped = answer.skipped;
  const named = (skipped?.pages ?? []).reduce((sum, page) => sum + overhead.skippedPageChars + page.reason.length, 0);
  const unnamed = skipped ? skipped.count - skipped.pages.length : 0;
  const worded = (answer.notes ?? []).reduce((sum, note) => sum + overhead.noteChars + note.length, 0);
  const notes =
    worded +
    named +
    (unnamed > 0
      ? (unnamed === 1 ? overhead.moreSkippedChars.one : overhead.moreSkippedChars.many) + String(unnamed).length
      : 0);
  return (
    overhead.chars +
    answer.source.length +
    answer.version.length +
    answer.lastUpdated.length +
    String(answer.confidence).length +
    (answer.stale ? overhead.staleChars : 0) +
    moreChars +
    notes
  );
}

/** Estimated tokens of what `overhead` adds beside `answer`'s content. */
export function overheadTokens(overhead: RenderOverhead, answer: DocsAnswer): number {
  return Math.ceil(overheadChars(overhead, answer) / CHARS_PER_TOKEN);
}

/** Estimated tokens of `answer`'s content with what `overhead` adds, rendered together. */
export function renderedTokens(overhead: RenderOverhead, answer: DocsAnswer): number {
  // without content, the blank line that separates it from the footer is not printed
  const separator = answer.content ? 0 : 2;
  return Math.ceil((answer.content.length + overheadChars(overhead, answer) - separator) / CHARS_PER_TOKEN);
}

/** Tokens at least left for the footer when content must be filled again within less. */
const FOOTER_RESERVE = 60;

/**
 * Fills the budget once, with room for what the renderer adds: content within `maxTokens` first; when content
 * and footer do not fit, filled again from the same ranking within what the footer leaves, and once more when
 * that refill changed the footer (another best chunk, a longer URL). `fill` is pure: the ranking is done.
 */
export function fillWithOverhead(
  fill: (budget: number) => DocsAnswer,
  maxTokens: number,
  overhead: RenderOverhead | undefined,
): DocsAnswer {
  const within = (budget: number) => {
    const answer = fill(budget);
    const need = overhead ? overheadTokens(overhead, answer) : 0;
    // whole chunks rarely fill a budget exactly, so this is the exception
    if (need > 0 && estimateTokens(answer.content) + need > budget) return fill(Math.max(1, budget - need));
    return answer;
  };
  const answer = within(maxTokens);
  if (!overhead || renderedTokens(overhead, answer) <= maxTokens) return answer;
  return within(Math.max(1, maxTokens - Math.max(overheadTokens(overhead, answer), FOOTER_RESERVE)));
}

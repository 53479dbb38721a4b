import { charsForTokens, estimateTokens } from '@pro-context/kernel';
import { engineMessages } from '../tools/render-errors.js';
import type { PageRecord, PageSlice } from './types.js';

/** The note appended to a truncated page (seed 001 §5.4). */
export const truncationNote = (remaining: number) =>
  `[Content truncated. ${remaining} tokens not shown. Call read-page again with a higher maxTokens limit to see more.]`;

/**
 * Cuts a page at a section boundary so the slice fits `maxTokens`, appending the seed's note when truncated.
 * An `offset` at or past the end of the page is `INVALID_INPUT` naming the page's length, rather than an
 * empty slice an agent could mistake for an empty page.
 */
export function slicePage(record: PageRecord, maxTokens: number, offset: number, cached: boolean): PageSlice {
  const total = record.markdown;
  const contentLength = estimateTokens(total);
  if (offset > 0 && offset >= total.length) {
    throw engineMessages.create(
      'OFFSET_PAST_END',
      { offset, url: record.finalUrl, length: total.length, tokens: contentLength },
      { details: { offset, length: total.length } },
    );
  }
  const start = Math.max(0, offset);
  const rest = total.slice(start);
  const base = { title: record.title, url: record.finalUrl, contentLength, cached, offset: start };
  if (estimateTokens(rest) <= maxTokens) return { ...base, content: rest, truncated: false };
  const budget = charsForTokens(maxTokens - 60); // leave room for the note
  // (only the text that can be shown is walked: a long page costs a read no more than a short one)
  const end = sectionBoundary(rest.slice(0, budget + 1), budget);
  const shown = rest.slice(0, end).trimEnd();
  const remaining = estimateTokens(rest.slice(end));
  const nextOffset = start + end;
  return {
    ...base,
    content: `${shown}\n\n${truncationNote(remaining)}\n[To continue where this stops instead, call read-page with offset ${nextOffset}.]`,
    truncated: true,
    nextOffset,
  };
}

/** The best place to cut `text` at or before `limit` characters: a heading, else a blank line, outside code fences. */
function sectionBoundary(text: string, limit: number): number {
  let heading = 0;
  let paragraph = 0;
  let inFence = false;
  let position = 0;
  for (const line of text.split('\n')) {
    if (position > limit) break;
    if (/^\s{0,3}(```|~~~)/.test(line)) inFence = !inFence;
    else if (!inFence && position > 0 && /^#{1,6}\s/.test(line)) heading = position;
    else if (!inFence && line.trim() === '') paragraph = position;
    position += line.length + 1;
  }
  if (heading > limit * 0.5) return heading;
  if (paragraph > 0) return paragraph;
  return heading > 0 ? heading : Math.min(limit, text.length);
}

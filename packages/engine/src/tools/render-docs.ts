import { estimateTokens } from '@pro-context/kernel';
import type { DocsAnswer, RenderOverhead } from '../get-docs/answer.js';
import { leftOutNote, moreLeftOutNote, skippedPageNotes } from './render-notes.js';
import { tocEntryLine } from './render-toc.js';

/** Related pages a low-confidence get-docs answer carries in its structured result even when the text has no room. */
const RESERVED_RELATED_PAGES = 2;
/** Below this confidence an answer always carries relatedPages (seed 001 §11.3). */
const LOW_CONFIDENCE = 0.5;

/** A get-docs answer as the agent reads it. */
export interface RenderedDocsAnswer {
  /**
   * The answer as returned: related pages only those the text lists, as the text lists them; the pages left out
   * of the index as `notes`, one sentence each.
   */
  structured: Omit<DocsAnswer, 'skipped'> & { notes?: string[] };
  /** The markdown text: content, source line, related pages. */
  text: string;
  /** Estimated tokens of the text besides the content (separator, source line, related pages). */
  footerTokens: number;
  /** Estimated tokens by which content plus source line exceed `maxTokens` (0 when they fit). */
  overflow: number;
}

/** The fields of an answer the footer prints, as text. */
interface FooterFields {
  source: string;
  version: string;
  lastUpdated: string;
  confidence: string;
  stale: boolean;
  /** How many matching sections were left out, as printed ('' when none). */
  more: string;
  plural: boolean;
  notes: readonly string[];
}

/** The footer of a get-docs answer: the source line, sections left out, notes, related pages. */
function footerText(fields: FooterFields, related: readonly string[]): string {
  const source = `Source: ${fields.source} · version ${fields.version} · fetched ${fields.lastUpdated}${fields.stale ? ' · STALE (the source could not be refreshed)' : ''} · confidence ${fields.confidence}`;
  const leftOut = fields.more
    ? `\n${fields.more} more matching section${fields.plural ? 's' : ''} left out: raise maxTokens, read related pages or search-docs.`
    : '';
  const notes = fields.notes.map((note) => `\nNote: ${note}`).join('');
  return `---\n\n${source}${leftOut}${notes}${related.length > 0 ? `\n\nRelated pages (read-page):\n${related.join('\n')}` : ''}`;
}

function fieldsOf(answer: DocsAnswer): FooterFields {
  const more = answer.moreSections ?? 0;
  return {
    source: answer.source,
    version: answer.version,
    lastUpdated: answer.lastUpdated,
    confidence: String(answer.confidence),
    stale: answer.stale,
    more: more > 0 ? String(more) : '',
    plural: more !== 1,
    notes: [...skippedPageNotes(answer.skipped), ...(answer.notes ?? [])],
  };
}

/**
 * The size of what {@link renderDocsAnswer} prints beside the content before related pages, as data (measured on
 * the footer itself): get-docs asks the engine to leave room for it, so that the engine fills the budget once.
 */
export function docsFooterOverhead(): RenderOverhead {
  const empty: FooterFields = {
    source: '',
    version: '',
    lastUpdated: '',
    confidence: '',
    stale: false,
    more: '',
    plural: false,
    notes: [],
  };
  // with the blank line between content and footer
  const size = (fields: FooterFields) => `\n\n${footerText(fields, [])}`.length;
  const base = size(empty);
  return {
    chars: base,
    staleChars: size({ ...empty, stale: true }) - base,
    // (a count printed as the empty string: its digits are the engine's to count)
    moreSectionsChars: {
      one: size({ ...empty, more: ' ', plural: false }) - base - 1,
      many: size({ ...empty, more: ' ', plural: true }) - base - 1,
    },
    // (a reason, a count, printed as the empty string: the engine counts them)
    noteChars: size({ ...empty, notes: [''] }) - base,
    skippedPageChars: size({ ...empty, notes: [leftOutNote('')] }) - base,
    moreSkippedChars: {
      one: size({ ...empty, notes: [moreLeftOutNote('', true)] }) - base,
      many: size({ ...empty, notes: [moreLeftOutNote('', false)] }) - base,
    },
  };
}

/**
 * Renders a get-docs answer as markdown within `maxTokens` (by the kernel's `estimateTokens`): content,
 * then the source line, then as many related pages as fit, a page's description dropped before the page
 * is. The structured answer lists the same related pages (a low-confidence one keeps its first related pages
 * when none fit). When content and source line alone exceed `maxTokens`, `overflow` says by how much.
 */
export function renderDocsAnswer(answer: DocsAnswer, maxTokens: number): RenderedDocsAnswer {
  const fields = fieldsOf(answer);
  const footer = (list: readonly string[]) => footerText(fields, list);
  const render = (list: readonly string[]) => (answer.content ? `${answer.content}\n\n${footer(list)}` : footer(list));
  const footerCost = (list: readonly string[]) => estimateTokens(`\n\n${footer(list)}`);
  const fits = (list: readonly string[]) => estimateTokens(render(list)) <= maxTokens;
  const overflow = Math.max(0, estimateTokens(render([])) - maxTokens);
  const shown: DocsAnswer['relatedPages'] = [];
  const lines: string[] = [];
  if (overflow === 0) {
    for (const page of answer.relatedPages) {
      const bare = tocEntryLine({ title: page.title, url: page.url });
      const full = tocEntryLine(page);
      if (fits([...lines, full])) {
        lines.push(full);
        shown.push(page);
      } else if (full !== bare && fits([...lines, bare])) {
        lines.push(bare);
        shown.push({ ...page, description: '' });
      } else {
        break;
      }
    }
  }
  // seed 001 §11.3: a low-confidence answer includes relatedPages, even when its content filled the text
  const structuredPages =
    shown.length === 0 && answer.confidence < LOW_CONFIDENCE
      ? answer.relatedPages.slice(0, RESERVED_RELATED_PAGES)
      : shown;
  const { skipped: _skipped, notes: _notes, ...rest } = answer;
  return {
    structured: {
      ...rest,
      relatedPages: structuredPages,
      ...(fields.notes.length > 0 ? { notes: [...fields.notes] } : {}),
    },
    text: render(lines),
    footerTokens: footerCost(lines),
    overflow,
  };
}

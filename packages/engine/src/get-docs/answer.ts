import type { ToolResultReuse } from '@pro-context/kernel';
import type { SkippedPages } from '../indexing/docs-format.js';

/** get-docs' answer. */
export interface DocsAnswer {
  content: string;
  source: string;
  version: string;
  lastUpdated: string;
  confidence: number;
  cached: boolean;
  stale: boolean;
  relatedPages: { title: string; url: string; description: string }[];
  /**
   * Sections that matched the topic nearly as well as those given (at least half the best score) but are not
   * in the content: cut off by relevance or past `maxTokens`. The agent may ask for them (relatedPages, a
   * larger `maxTokens`, search-docs).
   */
  moreSections: number;
  /**
   * Pages of the library left out of its index over a per-page limit, as data (each page's reason names the
   * page, the limit and the setting); the renderer says so in notes.
   */
  skipped?: SkippedPages;
  /** Notes worded where they arise, each with its code (a reranker that failed: the lexical ranking answered). */
  notes?: string[];
}

/**
 * The size of what a renderer prints beside an answer's content (its footer: separator, source line, notes),
 * as data, so that the engine fills the budget once with room for it. Characters; the answer's own fields
 * (`source`, `version`, `lastUpdated`, `confidence`, each skipped page's reason) are counted by the engine at
 * their length.
 */
export interface RenderOverhead {
  /** Characters always added around the fields (separators, labels), the blank line after the content included. */
  chars: number;
  /** Characters added when the answer is stale. */
  staleChars: number;
  /** Characters added for each worded note (`DocsAnswer.notes`), besides its text. */
  noteChars: number;
  /** Characters added for each skipped page named, besides its reason. */
  skippedPageChars: number;
  /** Characters added when more pages were skipped than are named, besides the count's digits: one, several. */
  moreSkippedChars: { one: number; many: number };
  /** Characters added when sections were left out, besides the count's digits: for one section, for several. */
  moreSectionsChars: { one: number; many: number };
}

/** What get-docs is asked. */
export interface DocsRequest {
  libraryId: string;
  /** Free text, a page path, or empty (the library's overview). */
  topic: string;
  version?: string | undefined;
  /** The ceiling of the rendered answer, in estimated tokens. */
  maxTokens: number;
  /** What the caller prints beside the content, which must fit within `maxTokens` too; none: content alone. */
  overhead?: RenderOverhead | undefined;
}

/** get-docs' answer, and when a host may serve it again (see the kernel's `ToolResult.reuse`). */
export interface DocsResult {
  answer: DocsAnswer;
  /** Set for an answer of docs the engine had (not fetched for it, not stale, not local files). */
  reuse?: ToolResultReuse;
}

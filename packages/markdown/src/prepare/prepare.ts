import { createHash } from 'node:crypto';
import type { IndexableChunk } from '@pro-context/kernel';
import { isProContextError } from '@pro-context/kernel';
import { errorText, Slicer } from '@pro-context/plugin-kit';
import { loadHtmlToMarkdown } from '../html/lazy.js';
import { checkHtmlPage, checkTextPage, type PageLimits, pageLimits } from '../html/limits.js';
import { type Chunk, chunkMarkdown } from '../markdown/chunk.js';
import { AnchorCollector, type PageAnchors } from './anchors.js';
import { CompactStringSet } from './string-set.js';
import { buildTermIndex, TermIndexBuilder } from './terms.js';

/** A fetched page to prepare: its markdown, or (when that is empty) its HTML. */
export interface PreparablePage {
  url: string;
  title: string;
  /** Section of the source's TOC the page is listed under. */
  section?: string;
  markdown: string;
  html?: string;
}

/** A chunk as prepared: a {@link Chunk} with its page's TOC section. */
export interface PreparedChunk extends Chunk {
  section?: string;
}

/** A prepared (or stored) chunk as a search backend indexes it: the fields of `IndexableChunk`, nothing else. */
export function indexableChunk(
  chunk: Pick<PreparedChunk, 'id' | 'pageTitle' | 'headings' | 'body' | 'url'>,
): IndexableChunk {
  return { id: chunk.id, title: chunk.pageTitle, headings: chunk.headings, body: chunk.body, url: chunk.url };
}

/** A page as prepared: its title as the chunker read it. */
export interface PreparedPage {
  url: string;
  title: string;
  section?: string;
}

/** What {@link prepareDocs} returns. */
export interface PreparedDocs {
  pages: PreparedPage[];
  /** Pages left out (over a limit, or failing). */
  skipped?: SkippedPage[];
  chunks: PreparedChunk[];
  /** Hash of every page's URL and markdown: changes whenever the content changes. */
  revision: string;
  /** The chunks' term index ({@link buildTermIndex} over each chunk's title, headings and body). */
  terms: Uint8Array;
  /** The texts the pages link to each other with, per linked page ({@link AnchorCollector}). */
  anchors: PageAnchors[];
}

/** Options of {@link prepareDocs}. */
export interface PrepareOptions {
  /** Largest chunk, in estimated tokens. */
  maxTokens: number;
  /** Per-page limits (size, line length, HTML depth and elements; defaults: `DEFAULT_PAGE_LIMITS`). */
  limits?: Partial<PageLimits>;
}

/** A page left out of a library: over a limit, or its conversion or chunking failed. */
export interface SkippedPage {
  url: string;
  /** Why, in a sentence naming the limit and its setting. */
  reason: string;
  /** The error code (`PAGE_TOO_LARGE`, `PAGE_TOO_COMPLEX`, `INTERNAL_ERROR`). */
  code: string;
}

/** Reports pages done out of the total. */
export type PrepareProgress = (done: number, total: number) => void;

/** One batch of pages prepared by a {@link DocsPreparer}: its pages and the chunks they gave. */
export interface PreparedBatch {
  pages: PreparedPage[];
  chunks: PreparedChunk[];
  /** Pages of the batch left out (over a limit, or failing): the rest of the library is prepared. */
  skipped?: SkippedPage[];
}

/** What a {@link DocsPreparer} says once every batch is in. */
export interface PreparedTotals {
  /** Hash of every page's URL and markdown: changes whenever the content changes. */
  revision: string;
  /** The term index of every chunk of every batch. */
  terms: Uint8Array;
  /** The texts the pages of every batch link to each other with, per linked page ({@link AnchorCollector}). */
  anchors: PageAnchors[];
}

/**
 * {@link prepareDocs} a batch of pages at a time (a library that arrives in batches): duplicates are dropped
 * across batches, and the revision and term index cover every batch, so the batches' pages and chunks, in
 * order, and {@link finish}'s totals are exactly what one {@link prepareDocs} of all the pages gives.
 */
export class DocsPreparer {
  /** Pages (`page:` and the URL) and chunk ids seen: a large library's 100,000 ids in about 10 MB. */
  private seen = new CompactStringSet();
  private readonly hash = createHash('sha256');
  private readonly terms = new TermIndexBuilder();
  private readonly anchors = new AnchorCollector();

  /**
   * `takeTurns`: the pages are prepared on a thread that also answers calls (the main thread, a library under the
   * pool's `minChars`): other work gets a turn every few ms (a 1 MB batch is some 300 ms of chunking on a busy
   * 2-core machine, which held up every answer meanwhile).
   */
  constructor(
    private readonly options: PrepareOptions,
    takeTurns = false,
  ) {
    this.slicer = takeTurns ? new Slicer() : undefined;
  }

  private readonly slicer: Slicer | undefined;

  /** Prepares the next pages. */
  async add(input: readonly PreparablePage[], progress?: PrepareProgress): Promise<PreparedBatch> {
    const needsHtml = input.some((p) => p.markdown.trim() === '' && p.html);
    const htmlToMarkdown = needsHtml ? await loadHtmlToMarkdown() : undefined;
    const { seen, hash, options } = this;
    const chunks: PreparedChunk[] = [];
    const pages: PreparedPage[] = [];
    const skipped: SkippedPage[] = [];
    const limits = pageLimits(options.limits);
    // progress every 5 % of the pages at most
    const step = Math.max(1, Math.ceil(input.length / 20));
    for (const [index, page] of input.entries()) {
      if (this.slicer) await this.slicer.turn();
      if (progress && index > 0 && index % step === 0) progress(index, input.length);
      if (!seen.add(`page:${page.url}`)) continue;
      // one bad page never fails its library: over a limit, or throwing, it is left out and said why
      let markdown: string;
      let pieces: Chunk[];
      try {
        const html = page.markdown.trim() === '' && page.html && htmlToMarkdown ? page.html : undefined;
        if (html !== undefined) checkHtmlPage(html, page.url, limits);
        markdown = html !== undefined && htmlToMarkdown ? htmlToMarkdown(html, page.url).markdown : page.markdown;
        checkTextPage(markdown, page.url, limits);
        pieces = chunkMarkdown({ url: page.url, title: page.title, markdown }, { maxTokens: options.maxTokens });
      } catch (error) {
        skipped.push({
          url: page.url,
          code: isProContextError(error) ? error.code : 'INTERNAL_ERROR',
          reason: isProContextError(error)
            ? error.message
            : `The page ${page.url} could not be chunked (${errorText(error)}), so it was left out.`,
        });
        continue;
      }
      hash.update(page.url).update('\0').update(markdown).update('\0');
      this.anchors.addPage(page.url, markdown);
      pages.push({
        url: page.url,
        title: pieces[0]?.pageTitle ?? page.title,
        ...(page.section ? { section: page.section } : {}),
      });
      for (const piece of pieces) {
        // an empty chunk is left out, and its id not taken
        if (piece.body.trim() === '' || !seen.add(piece.id)) continue;
        const chunk: PreparedChunk = {
          id: piece.id,
          url: piece.url,
          pageTitle: piece.pageTitle,
          ...(page.section ? { section: page.section } : {}),
          headings: piece.headings,
          ...(piece.anchor ? { anchor: piece.anchor } : {}),
          body: piece.body,
          tokens: piece.tokens,
          order: piece.order,
        };
        chunks.push(chunk);
        this.terms.add(chunkText(chunk));
      }
    }
    progress?.(input.length, input.length);
    return { pages, chunks, ...(skipped.length > 0 ? { skipped } : {}) };
  }

  /** The revision and term index of every batch added. */
  finish(): PreparedTotals {
    // the duplicate check goes before the term index is laid out (it is the last thing a worker allocates)
    this.seen = new CompactStringSet();
    const anchors = this.anchors.finish();
    return { revision: this.hash.digest('hex').slice(0, 16), terms: this.terms.finish(), anchors };
  }
}

/**
 * A library's pages made ready to index: HTML-only pages converted to markdown, every page chunked by
 * headings, duplicate pages and chunks dropped, empty chunks left out, and a revision hash of the content.
 * The same on the main thread and in the chunking worker (`prepare-worker`).
 */
export async function prepareDocs(
  input: readonly PreparablePage[],
  options: PrepareOptions,
  progress?: PrepareProgress,
  takeTurns = false,
): Promise<PreparedDocs> {
  const preparer = new DocsPreparer(options, takeTurns);
  const { pages, chunks, skipped } = await preparer.add(input, progress);
  return { pages, chunks, ...(skipped ? { skipped } : {}), ...preparer.finish() };
}

/** The text of a chunk the term index covers: title, headings and body. */
function chunkText(c: Chunk): string {
  return `${c.pageTitle} ${c.headings.join(' ')} ${c.body}`;
}

/** The term index of chunks, over the text the engine weighs query terms in: title, headings and body. */
export function chunkTermIndex(chunks: readonly Chunk[]): Uint8Array {
  return buildTermIndex(
    (function* () {
      for (const c of chunks) yield chunkText(c);
    })(),
  );
}

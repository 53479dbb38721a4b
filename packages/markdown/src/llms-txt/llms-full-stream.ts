import type { DocPage } from '@pro-context/kernel';
import { looksLikeCtx } from './ctx.js';
import {
  closes,
  detectLlmsFull,
  FENCE_OPEN,
  FRONTMATTER_URL_KEYS,
  type FrontmatterBlock,
  firstHeading,
  frontmatterAt,
  headingAbove,
  type KnownUrl,
  knownUrlOf,
  type LlmsFullStyle,
  lastSegment,
  PageFinisher,
  SOURCE_LINE,
  type SplitLlmsFullOptions,
  splitLlmsFull,
  stripHash,
  titleField,
} from './llms-full.js';
import { detach, sniffNonMarkdown } from './markdown.js';

/** Options of {@link LlmsFullSplitter}. */
export interface LlmsFullSplitterOptions extends SplitLlmsFullOptions {
  /**
   * Characters read before the file's style is decided (see {@link LlmsFullSplitter}). Default 1 000 000. A file
   * no longer than this is split exactly as {@link splitLlmsFull} splits it.
   */
  openingChars?: number;
}

const DEFAULT_OPENING_CHARS = 1_000_000;
/** Lines a front-matter block may span (`frontmatterAt` looks this far). */
const FRONTMATTER_LOOKAHEAD = 40;

interface Candidate {
  line: number;
  url: string;
  block?: FrontmatterBlock;
}

interface Start {
  start: number;
  /** Lines `[skipFrom, skipTo]` are left out of the page (the marker, or the front-matter block). */
  skipFrom: number;
  skipTo: number;
  url: string;
  title?: string;
}

/**
 * Splits an llms-full.txt as it downloads, handing out pages as they complete, so the file is never held whole:
 * at most the opening part (`openingChars`) and the page being read. Its pages are those of {@link splitLlmsFull}
 * for the whole text, with two deliberate differences, both only for files longer than `openingChars`:
 * - the style (see {@link detectLlmsFull}) is decided from the opening part, not the whole file;
 * - the files whose pages cannot be told before the end are still read whole and split at the end: `ctx` files
 *   (their `<doc>` elements are parsed as one document), files split at their headings (whether a page is cut at
 *   H1s or H2s, and a TOC title matching a page, depend on the whole file), and text that may be JSON.
 *   The URL-marked styles (`source-lines`, `frontmatter`), which large generated files use, stream.
 *
 * Feed it text with {@link push} (any cut, even inside a `\r\n`) and call {@link end} once; both return the pages
 * completed so far, in file order.
 */
export class LlmsFullSplitter {
  /** The style, once decided (after `openingChars` or at the end). */
  style: LlmsFullStyle | undefined;
  readonly warnings: string[] = [];
  /** Why the text is not an llms-full.txt (`sniffNonMarkdown`), once decided: then no pages come. */
  notMarkdown: string | undefined;
  /** The first characters of the file (for its header), kept once the style is decided. */
  opening = '';

  private readonly openingChars: number;
  private readonly base: string;
  private readonly known: KnownUrl;
  private readonly finisher: PageFinisher;
  /** Text read before the style is decided, or, in whole-file mode, all of it. */
  private held: string[] = [];
  private heldChars = 0;
  private mode: 'opening' | 'stream' | 'whole' = 'opening';
  private first = true;
  private pagesOut = 0;

  // stream mode: the lines from `off` on (the page being read and the look-ahead)
  private lines: string[] = [];
  private off = 0;
  /** The part of a line not ended yet (a trailing `\r` is kept: it may be half of `\r\n`). */
  private rest = '';
  private ended = false;
  /** Lines below this were looked at for candidates. */
  private candScan = 0;
  private readonly candidates: Candidate[] = [];
  /** The next line `acceptMarkers` looks at. */
  private cursor = 0;
  private fence: string | undefined;
  private floor = -1;
  private current: Start | undefined;

  constructor(
    private readonly url: string,
    private readonly options: LlmsFullSplitterOptions = {},
  ) {
    this.openingChars = options.openingChars ?? DEFAULT_OPENING_CHARS;
    this.base = stripHash(url);
    this.known = knownUrlOf(options.toc, this.base);
    this.finisher = new PageFinisher(this.base, options.toc, () => 0);
  }

  /** Takes the next part of the text; returns the pages it completed. */
  push(text: string): DocPage[] {
    if (this.ended) throw new Error('LlmsFullSplitter: push after end');
    if (this.first && text.length > 0) {
      this.first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.mode === 'stream') return this.feed(text);
    this.held.push(text);
    this.heldChars += text.length;
    if (this.mode === 'whole' || this.heldChars < this.openingChars) return [];
    return this.decide(false);
  }

  /** Ends the text; returns the last pages. */
  end(): DocPage[] {
    if (this.ended) return [];
    const out = this.mode === 'opening' ? this.decide(true) : [];
    this.ended = true;
    if (this.mode === 'whole') {
      const text = this.held.join('');
      this.held = [];
      const split = splitLlmsFull(text, this.url, this.options);
      this.style = split.style;
      this.warnings.push(...split.warnings);
      if (split.pages.length === 0 && split.warnings[0]?.startsWith('not an llms-full.txt file: ')) {
        this.notMarkdown ??= split.warnings[0].slice('not an llms-full.txt file: '.length);
      }
      this.pagesOut += split.pages.length;
      return [...out, ...split.pages];
    }
    out.push(...this.feed(''));
    if (this.mode === 'stream') {
      if (this.current) this.emit(out, this.current, this.off + this.lines.length);
      else this.preamble(out, this.off + this.lines.length);
      this.lines = [];
      if (this.finisher.unresolved > 0) {
        this.warnings.push(`${this.finisher.unresolved} page URL(s) could not be resolved; anchors used instead`);
      }
      if (this.pagesOut === 0) this.warnings.push('no pages found in the llms-full.txt');
    }
    return out;
  }

  /** Decides the style from the text held so far (`whole`: it is all of it). */
  private decide(whole: boolean): DocPage[] {
    const text = this.held.join('');
    this.held = [text];
    this.opening = detach(text.slice(0, 65_536));
    this.mode = 'whole';
    if (looksLikeCtx(text)) {
      this.style = 'ctx';
      return [];
    }
    this.style = detectLlmsFull(text);
    // `sniffNonMarkdown` parses a body that opens like JSON whole: only the whole text can tell
    if (!whole && /^\s*[[{]/.test(text)) return [];
    this.notMarkdown = sniffNonMarkdown(text);
    // not markdown: nothing to split (the caller stops reading); headings: split at the end (see the class)
    if (this.notMarkdown !== undefined || this.style === 'headings') return [];
    this.mode = 'stream';
    this.held = [];
    return this.feed(text);
  }

  /** Cuts `text` into lines and runs the marker scan as far as the lines read allow. */
  private feed(text: string): DocPage[] {
    let chunk = this.rest + text;
    if (!this.ended && chunk.endsWith('\r')) {
      this.rest = '\r';
      chunk = chunk.slice(0, -1);
    } else {
      this.rest = '';
    }
    const parts = chunk.split(/\r\n|\r|\n/);
    if (this.ended) {
      for (const part of parts) this.lines.push(part);
    } else {
      this.rest = parts.pop()! + this.rest;
      for (const part of parts) this.lines.push(part);
    }
    const out: DocPage[] = [];
    this.scanCandidates();
    this.accept(out);
    return out;
  }

  private line(i: number): string {
    return this.lines[i - this.off]!;
  }

  private get total(): number {
    return this.off + this.lines.length;
  }

  /** Finds page-marker candidates as far as they can be told (a front-matter block needs its closing line). */
  private scanCandidates(): void {
    const total = this.total;
    let i = this.candScan;
    if (this.style === 'frontmatter') {
      for (; i < total; i++) {
        if (this.line(i).trim() !== '---') continue;
        if (!this.ended && i + FRONTMATTER_LOOKAHEAD > total) break;
        const view = this.view(i);
        const block = frontmatterAt(view.lines, view.at);
        if (!block) continue;
        const moved = { start: i, end: block.end - view.at + i, fields: block.fields };
        const key = Object.keys(moved.fields).find((k) => FRONTMATTER_URL_KEYS.test(k))!;
        this.candidates.push({ line: i, url: moved.fields[key]!, block: moved });
        i = moved.end;
      }
    } else {
      for (; i < total; i++) {
        const m = SOURCE_LINE.exec(this.line(i));
        if (m) this.candidates.push({ line: i, url: m[1]! });
      }
    }
    this.candScan = Math.min(i, total);
  }

  /** The lines from `i` on (up to the front-matter look-ahead), for the shared helpers that index lines. */
  private view(i: number): { lines: string[]; at: number } {
    return { lines: this.lines.slice(i - this.off, i - this.off + FRONTMATTER_LOOKAHEAD + 1), at: 0 };
  }

  /** `acceptMarkers` of the whole-file splitter, run line by line, stopping where it would need unread lines. */
  private accept(out: DocPage[]): void {
    while (this.cursor < this.candScan) {
      const i = this.cursor;
      const candidate = this.candidates[0];
      if (candidate?.line === i) {
        let take = this.fence === undefined || this.known(candidate.url);
        if (!take) {
          const next = this.candidates[1]?.line;
          const limit = next ?? this.candScan;
          let decided: boolean | undefined;
          for (let j = i + 1; j < limit; j++) {
            const line = this.line(j);
            if (FENCE_OPEN.test(line)) {
              decided = !closes(line, this.fence!);
              break;
            }
          }
          if (decided === undefined) {
            // no fence line before the next marker (or the end): the marker starts a page
            if (next === undefined && !(this.ended && this.candScan >= this.total)) return;
            decided = true;
          }
          take = decided;
        }
        this.candidates.shift();
        if (take) {
          this.begin(out, candidate);
          this.fence = undefined;
          this.cursor++;
          continue;
        }
      }
      const line = this.line(i);
      if (this.fence === undefined) {
        const open = FENCE_OPEN.exec(line);
        if (open && !(open[1]!.startsWith('`') && open[2]!.includes('`'))) this.fence = open[1]!;
      } else if (closes(line, this.fence)) {
        this.fence = undefined;
      }
      this.cursor++;
    }
  }

  /** A marker accepted at `candidate.line`: the page before it is complete. */
  private begin(out: DocPage[], candidate: Candidate): void {
    let next: Start;
    if (candidate.block) {
      const { block } = candidate;
      next = {
        start: block.start,
        skipFrom: block.start,
        skipTo: block.end,
        url: candidate.url,
        ...titleField(block.fields),
      };
    } else {
      const marker = candidate.line;
      const start = headingAbove(this.lines, marker - this.off, this.floor - this.off);
      next = {
        start: start === undefined ? marker : start + this.off,
        skipFrom: marker,
        skipTo: marker,
        url: candidate.url,
      };
      this.floor = marker;
    }
    if (this.current) this.emit(out, this.current, next.start);
    else this.preamble(out, next.start);
    this.current = next;
    // what the page before needed is gone; the new page's lines and the look-ahead stay
    this.lines.splice(0, next.start - this.off);
    this.off = next.start;
  }

  private preamble(out: DocPage[], end: number): void {
    const preamble = this.lines.slice(0, end - this.off).join('\n');
    if (preamble.replace(/\s+/g, '').length >= 200) {
      this.out(out, { title: firstHeading(preamble) ?? 'Introduction', markdown: preamble.trim(), matchTitle: false });
    }
  }

  private emit(out: DocPage[], s: Start, end: number): void {
    const parts: string[] = [];
    for (let j = s.start; j < end; j++) if (j < s.skipFrom || j > s.skipTo) parts.push(this.line(j));
    const markdown = parts.join('\n').trim();
    if (!markdown) return;
    this.out(out, {
      title: s.title ?? firstHeading(markdown) ?? lastSegment(s.url),
      url: s.url,
      markdown,
      matchTitle: false,
    });
  }

  private out(out: DocPage[], draft: Parameters<PageFinisher['page']>[0]): void {
    const page = this.finisher.page(draft);
    // strings cut from a line keep the whole text chunk it came from alive: copy the small ones out
    page.title = detach(page.title);
    if (page.section) page.section = detach(page.section);
    out.push(page);
    this.pagesOut++;
  }
}

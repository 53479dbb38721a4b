import type { DocPage, TocEntry } from '@pro-context/kernel';
import { createSlugger } from '../markdown/slug.js';
import { looksLikeCtx, parseCtx } from './ctx.js';
import { anchorUrl, cleanTitle, parseHeading, scanLines, sniffNonMarkdown, trimEndChars } from './markdown.js';
import { splitByHeadings } from './pages.js';

/**
 * How an llms-full.txt marks its pages:
 * - `ctx`: `<doc title=… desc=…>` elements (the proposal's `llms-ctx-full.txt`);
 * - `source-lines`: each page's heading is followed by `Source: <url>` (Mintlify, and `URL:` variants);
 * - `frontmatter`: each page opens with a `---` block holding `url:` or `source:` (vitepress-plugin-llms);
 * - `headings`: no page URLs at all, only headings (pydantic's mkdocs-llmstxt output, condensed manuals).
 */
export type LlmsFullStyle = 'ctx' | 'source-lines' | 'frontmatter' | 'headings';

/** Options of {@link splitLlmsFull}. */
export interface SplitLlmsFullOptions {
  /**
   * The site's TOC. A page without its own URL whose title matches exactly one TOC entry takes that entry's
   * URL; a page whose URL is in the TOC takes the entry's section.
   */
  toc?: readonly TocEntry[];
  /** Passed to the heading splitter: a top-level page longer than this is cut at its H2s. */
  maxPageChars?: number;
}

/** The result of {@link splitLlmsFull}. */
export interface SplitLlmsFullResult {
  style: LlmsFullStyle;
  pages: DocPage[];
  warnings: string[];
}

export const SOURCE_LINE = /^\s*(?:#{1,6}\s*|>\s*|[-*]\s+)?(?:source|url)\s*:\s*<?(https?:\/\/[^\s>]+)>?\s*$/i;
export const FRONTMATTER_URL_KEYS = /^(url|source|source_url|canonical|link|href)$/i;

export interface FrontmatterBlock {
  start: number;
  end: number;
  fields: Record<string, string>;
}

/** The front-matter block opening at line `i` if it names a page URL. */
export function frontmatterAt(lines: readonly string[], i: number): FrontmatterBlock | undefined {
  if (lines[i]?.trim() !== '---') return undefined;
  const fields: Record<string, string> = {};
  for (let j = i + 1; j < lines.length && j < i + 40; j++) {
    const t = lines[j]!;
    if (t.trim() === '---') {
      return Object.keys(fields).some((k) => FRONTMATTER_URL_KEYS.test(k)) ? { start: i, end: j, fields } : undefined;
    }
    const m = /^([A-Za-z_][\w-]*)\s*:(.*)$/.exec(t);
    if (m) fields[m[1]!.toLowerCase()] = unquote(m[2]!.trim());
    else if (!/^\s/.test(t) && t.trim()) return undefined;
  }
  return undefined;
}

/** `s` without one pair of matching quotes around it. */
function unquote(s: string): string {
  const q = s.charAt(0);
  return s.length >= 2 && (q === '"' || q === "'") && s.endsWith(q) ? s.slice(1, -1) : s;
}

export const FENCE_OPEN = /^\s*(`{3,}(?!`)|~{3,}(?!~))(.*)$/;
const FENCE_CLOSE = /^\s*(`{3,}|~{3,})\s*$/;

/**
 * The candidate page markers that really start pages. A marker met while a code block is open is a page
 * boundary unless the next fence line after it closes that block (then the marker is an example inside
 * code). So a page that ends with an unclosed fence (real MDX pages do) cannot swallow the pages after it:
 * the next page's first fence opens with an info string (```ts) or never comes. A marker naming a page of the
 * TOC (`known`) is a boundary even then.
 */
function acceptMarkers(
  lines: readonly string[],
  candidates: readonly number[],
  known: (line: number) => boolean = () => false,
): number[] {
  const accepted: number[] = [];
  let fence: string | undefined;
  let k = 0;
  for (let i = 0; i < lines.length; i++) {
    if (i === candidates[k]) {
      const next = candidates[k + 1] ?? lines.length;
      k++;
      if (fence === undefined || known(i) || !closedNext(lines, i + 1, next, fence)) {
        accepted.push(i);
        fence = undefined;
        continue;
      }
    }
    const line = lines[i]!;
    if (fence === undefined) {
      const open = FENCE_OPEN.exec(line);
      if (open && !(open[1]!.startsWith('`') && open[2]!.includes('`'))) fence = open[1]!;
    } else if (closes(line, fence)) {
      fence = undefined;
    }
  }
  return accepted;
}

export function closes(line: string, fence: string): boolean {
  const close = FENCE_CLOSE.exec(line);
  return close !== null && close[1]![0] === fence[0] && close[1]!.length >= fence.length;
}

/** Whether the first fence line in `[from, to)` closes `fence`. */
function closedNext(lines: readonly string[], from: number, to: number, fence: string): boolean {
  for (let j = from; j < to; j++) {
    const line = lines[j]!;
    if (FENCE_OPEN.test(line)) return closes(line, fence);
  }
  return false;
}

/** Whether a marker's URL (resolved against the file's URL) is a page of the TOC. */
export type KnownUrl = (url: string) => boolean;

/** {@link KnownUrl} for a TOC, marker URLs resolving against `base`. */
export function knownUrlOf(toc: readonly TocEntry[] | undefined, base: string): KnownUrl {
  const tocPages = new Set((toc ?? []).map((e) => comparableUrl(e.url)));
  return (raw) => {
    try {
      return tocPages.has(comparableUrl(new URL(raw, base).href));
    } catch {
      return false;
    }
  };
}

/** Lines of `Source: <url>` markers that start pages. */
function sourceMarkers(lines: readonly string[], known: KnownUrl = () => false): number[] {
  const candidates: number[] = [];
  for (let i = 0; i < lines.length; i++) if (SOURCE_LINE.test(lines[i]!)) candidates.push(i);
  return acceptMarkers(lines, candidates, (i) => known(SOURCE_LINE.exec(lines[i]!)![1]!));
}

/** Front-matter blocks that start pages. */
function frontmatterBlocks(lines: readonly string[], known: KnownUrl = () => false): FrontmatterBlock[] {
  const blocks = new Map<number, FrontmatterBlock>();
  for (let i = 0; i < lines.length; i++) {
    const block = frontmatterAt(lines, i);
    if (block) {
      blocks.set(i, block);
      i = block.end;
    }
  }
  const urlOf = (block: FrontmatterBlock) =>
    block.fields[Object.keys(block.fields).find((k) => FRONTMATTER_URL_KEYS.test(k))!]!;
  return acceptMarkers(lines, [...blocks.keys()], (i) => known(urlOf(blocks.get(i)!))).map((i) => blocks.get(i)!);
}

export function splitRaw(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

/** Which page-marking style an llms-full.txt uses (see {@link LlmsFullStyle}). */
export function detectLlmsFull(text: string): LlmsFullStyle {
  if (looksLikeCtx(text)) return 'ctx';
  const lines = splitRaw(text);
  const blocks = frontmatterBlocks(lines);
  const first = lines.findIndex((l) => l.trim() !== '');
  if (blocks.length >= 2 || (blocks.length === 1 && blocks[0]!.start === first)) return 'frontmatter';
  const markers = sourceMarkers(lines);
  if (markers.length >= 2 || (markers.length === 1 && headingAbove(lines, markers[0]!, -1) !== undefined)) {
    return 'source-lines';
  }
  return 'headings';
}

/** The heading at most three non-blank lines above `marker` (and after `floor`), if any. */
export function headingAbove(lines: readonly string[], marker: number, floor: number): number | undefined {
  let seen = 0;
  for (let i = marker - 1; i > floor && seen < 3; i--) {
    const line = lines[i]!;
    if (!line.trim()) continue;
    seen++;
    if (parseHeading(line)) return i;
  }
  return undefined;
}

export function stripHash(url: string): string {
  const at = url.indexOf('#');
  return at === -1 ? url : url.slice(0, at);
}

/** URL comparison key: no fragment, no `.md`/`index.md`/`index.html` suffix, no trailing slash. */
export function comparableUrl(url: string): string {
  return trimEndChars(
    stripHash(url)
      .replace(/\/index\.html?\.md$|\/index\.mdx?$|\/index\.html?$/i, '/')
      .replace(/\.html?\.md$|\.mdx?$|\.html?$/i, ''),
    '/',
  );
}

/**
 * Splits an llms-full.txt into pages, whatever its style (see {@link detectLlmsFull}). Pages without a URL
 * of their own get `<url>#<slug>` with the nearest heading as title (or a matching TOC entry's URL). Never
 * throws: garbage yields no pages and a warning.
 *
 * @param text - the file's text
 * @param url - where it was read from (relative page URLs resolve against it)
 */
export function splitLlmsFull(text: string, url: string, options: SplitLlmsFullOptions = {}): SplitLlmsFullResult {
  const body = text.replace(/^\uFEFF/, '');
  const base = stripHash(url);
  const style = looksLikeCtx(body) ? 'ctx' : detectLlmsFull(body);
  if (style !== 'ctx') {
    const notMarkdown = sniffNonMarkdown(body);
    if (notMarkdown) return { style, pages: [], warnings: [`not an llms-full.txt file: ${notMarkdown}`] };
  }
  const warnings: string[] = [];
  const drafts: PageDraft[] = [];

  if (style === 'ctx') {
    const ctx = parseCtx(body);
    for (const doc of ctx.docs) {
      const own = doc.url ?? ctx.preambleUrls.get(doc.title);
      drafts.push({
        title: doc.title,
        ...(own ? { url: own } : {}),
        ...(doc.section ? { section: doc.section } : {}),
        markdown: doc.content,
        matchTitle: true,
      });
    }
  } else if (style === 'headings') {
    for (const page of splitByHeadings(body, { maxPageChars: options.maxPageChars }).pages) {
      drafts.push({
        title: page.title,
        ...(page.section ? { section: page.section } : {}),
        markdown: page.markdown,
        matchTitle: page.level === 1,
      });
    }
  } else {
    const known = knownUrlOf(options.toc, base);
    const lines = splitRaw(body);
    const starts: { start: number; skip: Set<number>; url: string; title?: string }[] = [];
    if (style === 'frontmatter') {
      for (const block of frontmatterBlocks(lines, known)) {
        const key = Object.keys(block.fields).find((k) => FRONTMATTER_URL_KEYS.test(k))!;
        const skip = new Set<number>();
        for (let j = block.start; j <= block.end; j++) skip.add(j);
        starts.push({ start: block.start, skip, url: block.fields[key]!, ...titleField(block.fields) });
      }
    } else {
      let floor = -1;
      for (const marker of sourceMarkers(lines, known)) {
        const start = headingAbove(lines, marker, floor) ?? marker;
        starts.push({ start, skip: new Set([marker]), url: SOURCE_LINE.exec(lines[marker]!)![1]! });
        floor = marker;
      }
    }
    const preamble = lines.slice(0, starts[0]?.start ?? lines.length).join('\n');
    if (preamble.replace(/\s+/g, '').length >= 200) {
      drafts.push({ title: firstHeading(preamble) ?? 'Introduction', markdown: preamble.trim(), matchTitle: false });
    }
    for (let k = 0; k < starts.length; k++) {
      const s = starts[k]!;
      const end = starts[k + 1]?.start ?? lines.length;
      const markdown = lines
        .slice(s.start, end)
        .filter((_, j) => !s.skip.has(s.start + j))
        .join('\n')
        .trim();
      if (!markdown) continue;
      drafts.push({
        title: s.title ?? firstHeading(markdown) ?? lastSegment(s.url),
        url: s.url,
        markdown,
        matchTitle: false,
      });
    }
  }

  const draftTitles = new Map<string, number>();
  for (const d of drafts) {
    const key = d.title.trim().toLowerCase();
    draftTitles.set(key, (draftTitles.get(key) ?? 0) + 1);
  }
  const finisher = new PageFinisher(base, options.toc, (key) => draftTitles.get(key) ?? 0);
  const pages = drafts.map((d) => finisher.page(d));
  const { unresolved } = finisher;
  if (unresolved > 0) warnings.push(`${unresolved} page URL(s) could not be resolved; anchors used instead`);
  if (pages.length === 0) warnings.push('no pages found in the llms-full.txt');
  return { style, pages, warnings };
}

/**
 * A page as cut out of the file, before it is matched to the TOC. `matchTitle`: whether the page may take a TOC
 * entry's URL by title. Not for H2 chunks, whose titles ("Error handling") name a part of some page rather than
 * the TOC's page of that name.
 */
export interface PageDraft {
  title: string;
  url?: string;
  section?: string;
  markdown: string;
  matchTitle: boolean;
}

/**
 * Turns drafts into pages in file order: URLs resolved against the file's, matched to the TOC by URL (for the
 * section), else by a unique exact title (for URL and section); pages without a URL (or with one taken) get
 * `<file>#<slug>`. Stateful (slugs and URLs taken so far), so drafts must come in file order.
 */
export class PageFinisher {
  /** Draft URLs that could not be resolved. */
  unresolved = 0;
  private readonly slugger = createSlugger('github');
  private readonly byUrl = new Map<string, TocEntry>();
  private readonly byTitle = new Map<string, TocEntry | null>();
  private readonly usedUrls = new Set<string>();

  /** @param titleCount - how many drafts of the whole file have this (trimmed, lower-cased) title */
  constructor(
    private readonly base: string,
    toc: readonly TocEntry[] | undefined,
    private readonly titleCount: (key: string) => number,
  ) {
    for (const entry of toc ?? []) {
      this.byUrl.set(comparableUrl(entry.url), entry);
      const key = entry.title.trim().toLowerCase();
      this.byTitle.set(key, this.byTitle.has(key) ? null : entry);
    }
  }

  page(d: PageDraft): DocPage {
    let pageUrl: string | undefined;
    let section = d.section;
    if (d.url) {
      try {
        pageUrl = new URL(d.url, this.base).href;
      } catch {
        this.unresolved++;
      }
    }
    if (pageUrl) {
      const entry = this.byUrl.get(comparableUrl(pageUrl));
      if (entry?.section) section = entry.section;
    } else {
      const key = d.title.trim().toLowerCase();
      const entry = d.matchTitle && this.titleCount(key) === 1 ? this.byTitle.get(key) : undefined;
      if (entry && !this.usedUrls.has(entry.url)) {
        pageUrl = entry.url;
        if (entry.section) section = entry.section;
      }
    }
    if (!pageUrl || this.usedUrls.has(pageUrl)) pageUrl = anchorUrl(this.base, this.slugger.slug(d.title));
    this.usedUrls.add(pageUrl);
    return {
      url: pageUrl,
      title: cleanTitle(d.title) || 'Untitled',
      ...(section ? { section } : {}),
      markdown: d.markdown,
    };
  }
}

export function titleField(fields: Record<string, string>): { title?: string } {
  return fields.title ? { title: fields.title } : {};
}

/** The first heading of a page (fences counted within the page only). */
export function firstHeading(markdown: string): string | undefined {
  for (const l of scanLines(markdown)) {
    if (l.inCode) continue;
    const h = parseHeading(l.text);
    if (h) return cleanTitle(h.text);
  }
  return undefined;
}

export function lastSegment(url: string): string {
  try {
    const parts = new URL(url).pathname.split('/').filter(Boolean);
    return decodeURIComponent(parts.at(-1) ?? url).replace(/\.(md|mdx|html?)$/i, '') || url;
  } catch {
    return url;
  }
}

import { createSlugger } from '../markdown/slug.js';
import { cleanTitle, firstSentence, parseHeading, type ScannedLine, scanLines } from './markdown.js';

/** One page cut out of a bundle (a condensed manual, an llms-full.txt without page URLs). */
export interface SplitPage {
  title: string;
  /** The enclosing top-level heading when a large top-level page was cut at its H2s. */
  section?: string;
  /** Unique anchor of the page within the bundle: `<bundle url>#<slug>`. */
  slug: string;
  markdown: string;
  /** First sentence of the page's prose, for TOC entries. */
  description?: string;
  /** Level of the heading the page was cut at (1 for H1 pages and preambles, 2 for H2 pages). */
  level: 1 | 2;
}

/** Options of {@link splitByHeadings}. */
export interface SplitByHeadingsOptions {
  /**
   * A top-level (H1) page longer than this many characters is cut again at its H2s, so one huge section
   * (pydantic's llms-full.txt puts a whole "Concepts documentation" under one H1) becomes many pages.
   * Default 20 000 (about 5 000 tokens).
   */
  maxPageChars?: number;
}

/** The result of {@link splitByHeadings}. */
export interface SplitByHeadingsResult {
  /** The document's H1 when it has exactly one (it is then the title, and pages are its H2s). */
  title?: string;
  pages: SplitPage[];
}

interface Block {
  title: string;
  level: 1 | 2;
  section?: string;
  lines: ScannedLine[];
  /** Whether this block is text before the first heading (kept only when substantial). */
  preamble?: boolean;
}

const DEFAULT_MAX_PAGE_CHARS = 20_000;
/** A preamble shorter than this (non-blank characters) is a banner, not a page. */
const MIN_PREAMBLE_CHARS = 200;

function charCount(lines: readonly ScannedLine[]): number {
  let n = 0;
  for (const l of lines) n += l.text.length + 1;
  return n;
}

/** Whether a block has content beyond headings (and, for TOC-only blocks, beyond in-page anchor lists). */
function hasBody(lines: readonly ScannedLine[]): boolean {
  let body = false;
  for (const l of lines) {
    const t = l.text.trim();
    if (!t) continue;
    if (!l.inCode && parseHeading(t)) continue;
    // A list of in-page anchors is the document's own table of contents, not a page.
    if (!l.inCode && /^\s*[-*+]\s+\[[^\]]*\]\(#[^)]*\)\s*$/.test(l.text)) continue;
    body = true;
  }
  return body;
}

function nonBlankChars(lines: readonly ScannedLine[]): number {
  let n = 0;
  for (const l of lines) n += l.text.replace(/\s+/g, '').length;
  return n;
}

function cutAt(
  lines: ScannedLine[],
  level: number,
): { head: ScannedLine[]; parts: { title: string; lines: ScannedLine[] }[] } {
  const head: ScannedLine[] = [];
  const parts: { title: string; lines: ScannedLine[] }[] = [];
  for (const line of lines) {
    const h = line.inCode ? undefined : parseHeading(line.text);
    if (h && h.level === level) parts.push({ title: cleanTitle(h.text), lines: [line] });
    else if (parts.length > 0) parts[parts.length - 1]!.lines.push(line);
    else head.push(line);
  }
  return { head, parts };
}

/**
 * Cuts a markdown bundle into pages at its headings.
 *
 * With two or more H1s, each H1 starts a page (hono's llms-small.txt, concatenated llms-full.txt files);
 * an H1 page longer than `maxPageChars` is cut again at its H2s, with the H1 as their section. With one
 * H1 (or none), that H1 is the title and each H2 starts a page (instructor's llms.txt). Headings inside
 * fenced code never cut. Empty pages and pages that only list in-page anchors are dropped.
 */
export function splitByHeadings(text: string, options: SplitByHeadingsOptions = {}): SplitByHeadingsResult {
  const maxPageChars = options.maxPageChars ?? DEFAULT_MAX_PAGE_CHARS;
  const lines = scanLines(text);
  const h1s = lines.filter((l) => !l.inCode && parseHeading(l.text)?.level === 1);
  const blocks: Block[] = [];
  let title: string | undefined;

  if (h1s.length >= 2) {
    const { head, parts } = cutAt(lines, 1);
    blocks.push({ title: 'Introduction', level: 1, lines: head, preamble: true });
    for (const part of parts) {
      if (charCount(part.lines) <= maxPageChars) {
        blocks.push({ title: part.title, level: 1, lines: part.lines });
        continue;
      }
      const sub = cutAt(part.lines, 2);
      if (sub.parts.length === 0) {
        blocks.push({ title: part.title, level: 1, lines: part.lines });
        continue;
      }
      blocks.push({ title: part.title, level: 1, lines: sub.head });
      for (const p of sub.parts) blocks.push({ title: p.title, level: 2, section: part.title, lines: p.lines });
    }
  } else {
    const h1 = h1s[0];
    title = h1 ? cleanTitle(parseHeading(h1.text)!.text) : undefined;
    const { head, parts } = cutAt(lines, 2);
    blocks.push({ title: title ?? 'Introduction', level: 1, lines: head, preamble: !h1 });
    for (const part of parts) blocks.push({ title: part.title, level: 2, lines: part.lines });
  }

  const slugger = createSlugger('github');
  const pages: SplitPage[] = [];
  for (const block of blocks) {
    if (!hasBody(block.lines)) continue;
    if (block.preamble && nonBlankChars(block.lines) < MIN_PREAMBLE_CHARS) continue;
    const markdown = block.lines
      .map((l) => l.text)
      .join('\n')
      .trim();
    const description = firstSentence(block.lines);
    pages.push({
      title: block.title || 'Untitled',
      ...(block.section ? { section: block.section } : {}),
      slug: slugger.slug(block.title),
      markdown,
      ...(description ? { description } : {}),
      level: block.level,
    });
  }
  return { ...(title ? { title } : {}), pages };
}

import { estimateTokens } from '@pro-context/kernel';
import { closesFence, closingLine, openFence } from './fences.js';
import { splitFrontMatter } from './front-matter.js';
import { walkLines } from './headings.js';
import { type NormalizeOptions, normalizeMarkdown } from './normalize.js';
import { createSlugger, headingPlainText } from './slug.js';

/** One searchable, self-contained piece of a documentation page: a section (or part of one) under its headings. */
export interface Chunk {
  /** Stable id, unique within a page: `<url>#<anchor>`, with `~<n>` for the later parts of a split section. */
  id: string;
  /** Source page URL (without the anchor). */
  url: string;
  /** The page's title: its H1, else the front matter `title`, else the title given, else one made from the URL. */
  pageTitle: string;
  /** Heading path from the page title down to the deepest heading the chunk covers. */
  headings: string[];
  /** The anchor (slug) of the heading the body starts with; absent for the text before a page's first heading. */
  anchor?: string;
  /** Markdown of the section, starting with its heading line. */
  body: string;
  /** Estimated tokens of `body` (the kernel's `estimateTokens`). */
  tokens: number;
  /** Position of the chunk in the page, from 0. */
  order: number;
}

/** A page to chunk. */
export interface ChunkablePage {
  url: string;
  /** Title known from elsewhere (an llms.txt link, a TOC); used when the page has no H1 and no front matter title. */
  title?: string;
  markdown: string;
}

/** Options of {@link chunkMarkdown}. */
export interface ChunkOptions extends NormalizeOptions {
  /**
   * Largest chunk, in estimated tokens (default {@link DEFAULT_MAX_CHUNK_TOKENS}). Longer sections are split at
   * paragraph, list-item, table-row and code-block boundaries. A single code block longer than this is
   * kept whole, as its own chunk under its heading: cutting code gives an agent something it cannot run.
   */
  maxTokens?: number;
  /**
   * Sections whose own text (without the heading) is shorter than this, in estimated tokens, and that are
   * directly followed by one of their subsections, are joined to that subsection (default
   * {@link DEFAULT_MIN_CHUNK_TOKENS}), so a heading's short introduction is served with the content it introduces.
   */
  minTokens?: number;
}

/**
 * Default {@link ChunkOptions.maxTokens}. Most documentation sections (the unit an agent asks about) fit in
 * 800 estimated tokens whole, while get-docs' default budget of 5,000 still holds six or more chunks, so an
 * answer can combine the best section with its neighbours.
 */
export const DEFAULT_MAX_CHUNK_TOKENS = 800;

/** Default {@link ChunkOptions.minTokens}: about a paragraph (an intro shorter than that introduces its first subsection). */
export const DEFAULT_MIN_CHUNK_TOKENS = 150;

interface Section {
  level: number;
  /** Heading text, inline markdown kept, anchor suffix and HTML removed. Empty for the text before the first heading. */
  text: string;
  anchor: string | undefined;
  /** The heading line as it appears in chunk bodies. */
  headingLine: string;
  content: string[];
  path: string[];
}

interface Unit {
  level: number;
  path: string[];
  anchor: string | undefined;
  headingLine: string;
  body: string;
  /** Estimated tokens of the last section's own text, used to decide merging. */
  ownTokens: number;
  /** Whether the unit is a single section (only those are split). */
  single: boolean;
  content: string[];
}

/**
 * Splits a markdown page into chunks along its headings (H1–H6), for indexing and for get-docs answers.
 *
 * The page is first cleaned with {@link normalizeMarkdown} (admonitions, tabs, containers, MDX, includes…).
 * Each heading starts a section that carries its heading path and anchor; code blocks are never cut, and a
 * `#` line inside one is code, not a heading. Sections over `maxTokens` are split at block boundaries with
 * the heading line repeated at the top of every part; a section with only a short introduction is joined to
 * its first subsection.
 */
export function chunkMarkdown(page: ChunkablePage, options: ChunkOptions = {}): Chunk[] {
  const maxTokens = Math.max(50, options.maxTokens ?? DEFAULT_MAX_CHUNK_TOKENS);
  const minTokens = Math.max(0, options.minTokens ?? DEFAULT_MIN_CHUNK_TOKENS);
  const front = splitFrontMatter(page.markdown.includes('\r') ? page.markdown.replace(/\r\n?/g, '\n') : page.markdown);
  const normalized = normalizeMarkdown(page.markdown, options);
  const sections = parseSections(normalized);

  const first = sections.find((s) => s.level > 0);
  const pageTitle =
    (first?.level === 1 && first.text ? first.text : undefined) ?? front.title ?? page.title ?? titleFromUrl(page.url);
  assignPaths(sections, pageTitle);

  const units = toUnits(sections, pageTitle);
  const merged = mergeShortIntros(units, minTokens, maxTokens);
  // A heading with nothing under it (its content was a dynamic component, or its subsection was too long to
  // join) answers nothing; subsections still carry it in their heading path.
  const withText = merged.filter((u) => u.body !== u.headingLine);

  const chunks: Chunk[] = [];
  const ids = new Set<string>();
  for (const unit of withText.length > 0 ? withText : merged.slice(0, 1)) {
    const bodies = unit.single && estimateTokens(unit.body) > maxTokens ? splitUnit(unit, maxTokens) : [unit.body];
    bodies.forEach((body, part) => {
      const base = unit.anchor ? `${page.url}#${unit.anchor}` : page.url;
      let id = part === 0 ? base : `${base}~${part + 1}`;
      if (ids.has(id)) id = `${base}~o${chunks.length}`;
      ids.add(id);
      const chunk: Chunk = {
        id,
        url: page.url,
        pageTitle,
        headings: unit.path,
        body,
        tokens: estimateTokens(body),
        order: chunks.length,
      };
      if (unit.anchor) chunk.anchor = unit.anchor;
      chunks.push(chunk);
    });
  }
  return chunks;
}

/** Splits normalized markdown into sections at ATX headings outside code blocks. */
function parseSections(markdown: string): Section[] {
  const slugger = createSlugger();
  const sections: Section[] = [{ level: 0, text: '', anchor: undefined, headingLine: '', content: [], path: [] }];
  const open = walkLines(markdown.split('\n'), (line, _index, heading) => {
    const { text, explicitAnchor } = heading ? cleanHeading(heading.raw) : { text: '', explicitAnchor: undefined };
    if (heading && text) {
      const level = heading.level.length;
      const anchor = slugger.slug(text, explicitAnchor);
      sections.push({ level, text, anchor, headingLine: `${'#'.repeat(level)} ${text}`, content: [], path: [] });
    } else {
      (sections[sections.length - 1] as Section).content.push(line);
    }
  });
  const last = sections[sections.length - 1] as Section;
  if (open) last.content.push(closingLine(open));
  return sections;
}

/**
 * A trailing attribute list (`{ #id .class }`, `{: #id }`): where it starts (blanks before it included) and its
 * content (`attr[1]`), as `/[ \t]*\{:?[ \t]*([^{}]*)\}[ \t]*$/` finds it, in linear time (the pattern is cubic).
 */
function trailingAttributes(text: string): { index: number; 1: string } | undefined {
  const blank = (c: number): boolean => c === 0x20 || c === 0x09;
  let end = text.length;
  while (end > 0 && blank(text.charCodeAt(end - 1))) end -= 1;
  if (end === 0 || text.charCodeAt(end - 1) !== 0x7d) return undefined;
  const open = text.lastIndexOf('{', end - 2);
  if (open === -1 || text.lastIndexOf('}', end - 2) > open) return undefined;
  let from = open + 1;
  if (text.charCodeAt(from) === 0x3a) from += 1;
  while (from < end - 1 && blank(text.charCodeAt(from))) from += 1;
  let index = open;
  while (index > 0 && blank(text.charCodeAt(index - 1))) index -= 1;
  return { index, 1: text.slice(from, end - 1) };
}

/**
 * Heading text without its explicit anchor suffix and without HTML tags (outside code). Explicit anchors are
 * MkDocs / Pandoc attribute lists (`{ #anchor }`, `{#anchor .class}`) and Fumadocs heading ids
 * (`[#anchor]`, as in the zod docs: `` ### `z.deepPartial()` [#deep-partial] ``).
 */
export function cleanHeading(raw: string): { text: string; explicitAnchor: string | undefined } {
  let text = raw;
  let explicitAnchor: string | undefined;
  const attr = trailingAttributes(text);
  const fumadocs = /(?<=\S)[ \t]*\[#([\w\-.:]+)\][ \t]*$/.exec(text);
  if (attr && /(?:^|\s)[#.][\w-]|=/.test(attr[1] as string)) {
    explicitAnchor = /(?:^|\s)#([\w\-.:]+)/.exec(attr[1] as string)?.[1];
    text = text.slice(0, attr.index);
  } else if (fumadocs) {
    // Fumadocs' remark-heading: a trailing `[#id]` sets the heading's id (and is not shown).
    explicitAnchor = fumadocs[1];
    text = text.slice(0, fumadocs.index);
  }
  // Strip HTML/JSX tags (VitePress badges such as `<Badge type="info">4.0</Badge>`) but not `<T>` inside code.
  text = text
    .split(/(`+[^`]*`+)/)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/<\/?[A-Za-z][^<>]*>/g, '')))
    .join('')
    .replace(/\s+/g, ' ')
    .trim();
  return { text, explicitAnchor };
}

function assignPaths(sections: Section[], pageTitle: string): void {
  const stack: Section[] = [];
  for (const section of sections) {
    if (section.level === 0) {
      section.path = [pageTitle];
      continue;
    }
    while (stack.length > 0 && (stack[stack.length - 1] as Section).level >= section.level) stack.pop();
    stack.push(section);
    const texts = stack.map((s) => s.text);
    // The path always starts at the page title: pages whose first heading is an H2 (or a second H1) get it prepended.
    section.path = (stack[0] as Section).level === 1 && texts[0] === pageTitle ? texts : [pageTitle, ...texts];
  }
}

function toUnits(sections: Section[], pageTitle: string): Unit[] {
  const preamble = sections[0] as Section;
  const rest = sections.slice(1);
  const firstHeading = rest[0];
  const units: Unit[] = [];
  if (hasText(preamble.content)) {
    if (firstHeading?.level === 1) {
      // Text before the H1 (badges, a logo, a lead paragraph) belongs to the H1's section.
      firstHeading.content = [...trimBlank(preamble.content), '', ...trimBlank(firstHeading.content)];
    } else {
      preamble.headingLine = `# ${pageTitle}`;
      units.push(makeUnit(preamble));
    }
  }
  for (const section of rest) units.push(makeUnit(section));
  return units;
}

function hasText(lines: string[]): boolean {
  return lines.some((l) => l.trim() !== '');
}

function trimBlank(lines: string[]): string[] {
  let a = 0;
  let b = lines.length;
  while (a < b && (lines[a] as string).trim() === '') a += 1;
  while (b > a && (lines[b - 1] as string).trim() === '') b -= 1;
  return lines.slice(a, b);
}

/**
 * Whether a line is a thematic break (`---`, `* * *`, `___`: up to three spaces, then three or more of one of
 * `-*_` with spaces or tabs between). A scan, not a regex with a back-reference: the regex overflowed the
 * regex engine's stack on a 3 M-character `-` line (RangeError, and the library failed to index).
 */
function isThematicBreak(line: string): boolean {
  let i = 0;
  while (i < 3 && line.charCodeAt(i) === 0x20) i += 1;
  const marker = line.charCodeAt(i);
  if (marker !== 0x2d && marker !== 0x2a && marker !== 0x5f) return false;
  let count = 0;
  for (; i < line.length; i += 1) {
    const c = line.charCodeAt(i);
    if (c === marker) count += 1;
    else if (c !== 0x20 && c !== 0x09) return false;
  }
  return count >= 3;
}

/** Content without blank lines or thematic breaks at either end: a `---` closing a section separates nothing in a chunk. */
function trimContent(lines: string[]): string[] {
  let content = trimBlank(lines);
  while (content.length > 0 && isThematicBreak(content[content.length - 1] as string)) {
    content = trimBlank(content.slice(0, -1));
  }
  while (content.length > 0 && isThematicBreak(content[0] as string)) content = trimBlank(content.slice(1));
  return content;
}

function makeUnit(section: Section): Unit {
  const content = trimContent(section.content);
  const text = content.join('\n');
  return {
    level: section.level,
    path: section.path,
    anchor: section.anchor,
    headingLine: section.headingLine,
    body: text ? `${section.headingLine}\n\n${text}` : section.headingLine,
    ownTokens: text ? estimateTokens(text) : 0,
    single: true,
    content,
  };
}

/**
 * Joins a section whose own text is short to the subsection that directly follows it (repeatedly, so an H1
 * with a one-line intro, an H2 with a one-line intro and the H3 below travel together), while the result stays
 * within `maxTokens`. The merged chunk takes the subsection's heading path (which includes the parent) and the
 * parent's anchor (where its body starts).
 */
function mergeShortIntros(units: Unit[], minTokens: number, maxTokens: number): Unit[] {
  const out: Unit[] = [];
  let carry: Unit | null = null;
  for (let i = 0; i < units.length; i += 1) {
    let unit = units[i] as Unit;
    if (carry) {
      const body = `${carry.body}\n\n${unit.body}`;
      if (estimateTokens(body) <= maxTokens) {
        unit = { ...unit, anchor: carry.anchor ?? unit.anchor, body, single: false };
      } else {
        out.push(carry);
      }
      carry = null;
    }
    const next = units[i + 1];
    if (next && next.level > unit.level && unit.ownTokens < minTokens && estimateTokens(unit.body) < maxTokens) {
      carry = unit;
      continue;
    }
    out.push(unit);
  }
  if (carry) out.push(carry);
  return out;
}

interface Piece {
  text: string;
  code: boolean;
}

/** Splits an oversized single-section unit into bodies of at most `maxTokens`, each starting with the heading line. */
function splitUnit(unit: Unit, maxTokens: number): string[] {
  // The heading line starts every part, unless it takes half the budget itself: a heading line of 30 KB (a hostile
  // page) repeated in parts of 100 tokens made 34,517 parts of ~60 KB each (found by fuzzing); then only the
  // first part starts with it.
  const repeatHead = unit.headingLine !== '' && estimateTokens(unit.headingLine) * 2 <= maxTokens;
  const head = unit.headingLine && repeatHead ? `${unit.headingLine}\n\n` : '';
  const fits = (text: string): boolean => estimateTokens(head + text) <= maxTokens;
  const pieces: Piece[] = [];
  for (const block of toBlocks(unit.content)) {
    if (block.code || fits(block.text)) pieces.push(block);
    else for (const text of splitTextBlock(block.text, fits)) pieces.push({ text, code: false });
  }

  const parts: string[] = [];
  let acc: Piece[] = [];
  const join = (list: Piece[]): string => list.map((p) => p.text).join('\n\n');
  for (const piece of pieces) {
    if (acc.length > 0 && !fits(`${join(acc)}\n\n${piece.text}`)) {
      // Keep a lead-in ("Use it like this:") with the code block it introduces.
      const last = acc[acc.length - 1] as Piece;
      let moved: Piece | undefined;
      if (
        piece.code &&
        acc.length > 1 &&
        !last.code &&
        /:\s*$/.test(last.text) &&
        fits(`${last.text}\n\n${piece.text}`)
      ) {
        moved = acc.pop();
      }
      parts.push(head + join(acc));
      acc = moved ? [moved] : [];
    }
    acc.push(piece);
  }
  if (acc.length > 0) parts.push(head + join(acc));
  if (!repeatHead && unit.headingLine && parts.length > 0) parts[0] = `${unit.headingLine}\n\n${parts[0]}`;
  return parts.length > 0 ? parts : [unit.body];
}

/** Blocks of a section: fenced code blocks whole, other text split at blank lines. */
function toBlocks(lines: string[]): Piece[] {
  const blocks: Piece[] = [];
  let text: string[] = [];
  const flushText = (): void => {
    const t = trimBlank(text);
    if (t.length > 0) blocks.push({ text: t.join('\n'), code: false });
    text = [];
  };
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] as string;
    const fence = openFence(line);
    if (fence) {
      flushText();
      const code = [line];
      let j = i + 1;
      for (; j < lines.length; j += 1) {
        code.push(lines[j] as string);
        if (closesFence(fence, lines[j] as string)) break;
      }
      if (j >= lines.length) code.push(closingLine(fence));
      blocks.push({ text: code.join('\n'), code: true });
      i = j;
      continue;
    }
    if (line.trim() === '') flushText();
    else text.push(line);
  }
  flushText();
  return blocks;
}

/** Whether a line is a table's delimiter row (`| --- | :-: |`): cells of `:?-+:?` between pipes. Linear (the regex was cubic). */
function isTableDelimiter(line: string): boolean {
  let row = line.trim();
  if (row.startsWith('|')) row = row.slice(1);
  if (row.endsWith('|')) row = row.slice(0, -1);
  return row.split('|').every((cell) => /^:?-+:?$/.test(cell.trim()));
}
const LIST_ITEM = /^ {0,3}(?:[-*+]|\d{1,9}[.)])[ \t]/;

/** Splits a text block (no code fences) that is too long: tables by rows (header repeated), lists by items, then lines. */
function splitTextBlock(text: string, fits: (text: string) => boolean): string[] {
  const lines = text.split('\n');
  const isTable =
    lines.length > 2 && (lines[0] as string).trim().startsWith('|') && isTableDelimiter(lines[1] as string);
  if (isTable) {
    const header = lines.slice(0, 2).join('\n');
    return pack(
      lines.slice(2),
      (rows) => `${header}\n${rows.join('\n')}`,
      fits,
      (row) => hardSplit(row, fits),
    );
  }
  const groups: string[] = [];
  for (const line of lines) {
    if (groups.length === 0 || LIST_ITEM.test(line)) groups.push(line);
    else groups[groups.length - 1] = `${groups[groups.length - 1]}\n${line}`;
  }
  return pack(
    groups,
    (items) => items.join('\n'),
    fits,
    (group) =>
      pack(
        group.split('\n'),
        (ls) => ls.join('\n'),
        fits,
        (line) => hardSplit(line, fits),
      ),
  );
}

/** Greedily packs items into strings that fit; an item that does not fit alone is broken with `breakItem`. */
function pack(
  items: string[],
  render: (items: string[]) => string,
  fits: (text: string) => boolean,
  breakItem: (item: string) => string[],
): string[] {
  const out: string[] = [];
  let acc: string[] = [];
  for (const item of items) {
    if (!fits(render([item]))) {
      if (acc.length > 0) out.push(render(acc));
      acc = [];
      for (const piece of breakItem(item)) out.push(render([piece]));
      continue;
    }
    if (acc.length > 0 && !fits(render([...acc, item]))) {
      out.push(render(acc));
      acc = [];
    }
    acc.push(item);
  }
  if (acc.length > 0) out.push(render(acc));
  return out;
}

/** Last resort for a single over-long line: cut at whitespace, or anywhere if there is none. */
function hardSplit(line: string, fits: (text: string) => boolean): string[] {
  const out: string[] = [];
  let rest = line;
  while (rest.length > 0 && !fits(rest)) {
    let lo = 1;
    let hi = rest.length;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (fits(rest.slice(0, mid))) lo = mid;
      else hi = mid - 1;
    }
    const space = rest.lastIndexOf(' ', lo);
    const cut = space > lo / 2 ? space : lo;
    out.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
  }
  if (rest.length > 0) out.push(rest);
  return out;
}

function titleFromUrl(url: string): string {
  let path = url;
  try {
    path = new URL(url).pathname;
  } catch {
    // Not an absolute URL (a file path or an id): use it as it is.
  }
  const segments = path.split(/[\\/]/).filter(Boolean);
  let name = segments.pop() ?? '';
  if (/^(?:index|readme)(?:\.\w+)?$/i.test(name)) name = segments.pop() ?? name;
  name = decodeURIComponentSafe(name.replace(/\.(?:mdx?|html?|txt)$/i, '')).replace(/[-_]+/g, ' ');
  const text = headingPlainText(name).trim();
  return text ? text.charAt(0).toUpperCase() + text.slice(1) : url;
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

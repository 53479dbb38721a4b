/**
 * Small, pure markdown helpers shared by the llms.txt and llms-full.txt parsers: line scanning that knows
 * about fenced code, ATX headings, link syntax, anchor URLs and sniffing of content that is not markdown at
 * all. Plain text of inline markdown and heading slugs come from `@pro-context/markdown` (the `github`
 * flavour, which the anchors of pages cut out of these files have always used).
 *
 * Hand-written on purpose: llms.txt needs a line-oriented, forgiving reader rather than a full CommonMark tree.
 */
import { inlinePlainText } from '../markdown/slug.js';

/** One line of a document, with whether it sits inside a fenced code block (fence lines included). */
export interface ScannedLine {
  text: string;
  /** Zero-based line number. */
  index: number;
  inCode: boolean;
}

/** Splits `text` into lines (any newline convention) and marks fenced code. */
export function scanLines(text: string): ScannedLine[] {
  const raw = text.split(/\r\n|\r|\n/);
  const lines: ScannedLine[] = raw.map((t, index) => ({ text: t, index, inCode: false }));
  // Once a fence of some character and length finds no closing line, no later fence of that character
  // and at least that length can: remembering it keeps a file of stray fences linear, not quadratic.
  const unclosable = new Map<string, number>();
  let i = 0;
  while (i < lines.length) {
    // `(?!`)`: the marker is the whole run (else a run ended by a line separator is retried at every length)
    const open = /^\s*(`{3,}(?!`)|~{3,}(?!~))(.*)$/.exec(lines[i]!.text);
    // A backtick fence's info string cannot contain a backtick (else it is inline code).
    if (!open || (open[1]!.startsWith('`') && open[2]!.includes('`'))) {
      i++;
      continue;
    }
    const fence = open[1]!;
    if (fence.length >= (unclosable.get(fence[0]!) ?? Number.POSITIVE_INFINITY)) {
      i++;
      continue;
    }
    let close = -1;
    for (let j = i + 1; j < lines.length; j++) {
      const m = /^\s*(`{3,}|~{3,})\s*$/.exec(lines[j]!.text);
      if (m && m[1]![0] === fence[0] && m[1]!.length >= fence.length) {
        close = j;
        break;
      }
    }
    // An unclosed fence is treated as text: one stray ``` must not swallow the rest of a file.
    if (close === -1) {
      unclosable.set(fence[0]!, Math.min(fence.length, unclosable.get(fence[0]!) ?? Number.POSITIVE_INFINITY));
      i++;
      continue;
    }
    for (let j = i; j <= close; j++) lines[j]!.inCode = true;
    i = close + 1;
  }
  return lines;
}

/** An ATX heading: level 1–6 and its text (closing `#`s removed). */
export interface Heading {
  level: number;
  text: string;
}

/** The heading on this line, if it is an ATX heading (at most three spaces of indent). */
export function parseHeading(line: string): Heading | undefined {
  // the text is taken whole and trimmed in code: `[ \t]+(.*?)[ \t]*$` retried every split of a run of blanks
  const m = /^ {0,3}(#{1,6})(?:[ \t](.*))?$/.exec(line);
  if (!m) return undefined;
  let text = trimBlanks(m[2] ?? '');
  let hashes = text.length;
  while (hashes > 0 && text.charCodeAt(hashes - 1) === 0x23) hashes -= 1;
  // a closing `#` run after blanks goes, and so does a text of `#` only
  if (hashes === 0) text = '';
  else if (hashes < text.length && isBlank(text.charCodeAt(hashes - 1))) text = trimBlanks(text.slice(0, hashes));
  if (/^#+$/.test(text)) text = '';
  text = text.trim();
  if (!text) return undefined;
  return { level: m[1]!.length, text };
}

/** A markdown inline link `[label](destination "title")` found at a position of a string. */
export interface InlineLink {
  label: string;
  href: string;
  /** Index just after the closing parenthesis. */
  end: number;
  /** Whether it is an image (`![alt](src)`). */
  image: boolean;
}

const MAX_LABEL_CHARS = 1_000;
const MAX_HREF_CHARS = 4_096;
/** Only this much of a line is searched for links (real llms.txt lines are far shorter). */
const MAX_LINK_SCAN_CHARS = 20_000;

/**
 * Reads an inline link starting exactly at `start` (which must be `[`). Brackets in the label and
 * parentheses in the destination may nest; `<…>` destinations and quoted titles are understood.
 */
export function readLinkAt(s: string, start: number): InlineLink | undefined {
  if (s[start] !== '[') return undefined;
  let depth = 0;
  let i = start;
  // Labels and destinations are bounded (CommonMark caps labels near 1 000 characters), so a line of
  // unmatched brackets costs linear time, not quadratic.
  const labelEnd = Math.min(s.length, start + MAX_LABEL_CHARS);
  for (; i < labelEnd; i++) {
    const c = s[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '[') depth++;
    else if (c === ']') {
      depth--;
      if (depth === 0) break;
    }
  }
  if (depth !== 0 || s[i + 1] !== '(') return undefined;
  const label = s.slice(start + 1, i);
  let j = i + 2;
  while (s[j] === ' ' || s[j] === '\t') j++;
  let href: string;
  if (s[j] === '<') {
    const close = s.indexOf('>', j);
    if (close === -1) return undefined;
    href = s.slice(j + 1, close);
    j = close + 1;
  } else {
    let parens = 0;
    const from = j;
    const hrefEnd = Math.min(s.length, j + MAX_HREF_CHARS);
    for (; j < hrefEnd; j++) {
      const c = s[j];
      if (c === '\\') {
        j++;
        continue;
      }
      if (c === '(') parens++;
      else if (c === ')') {
        if (parens === 0) break;
        parens--;
      } else if (c === ' ' || c === '\t') break;
    }
    href = s.slice(from, j);
  }
  while (s[j] === ' ' || s[j] === '\t') j++;
  if (s[j] === '"' || s[j] === "'") {
    const q = s[j]!;
    const close = s.indexOf(q, j + 1);
    if (close === -1) return undefined;
    j = close + 1;
    while (s[j] === ' ' || s[j] === '\t') j++;
  }
  if (s[j] !== ')') return undefined;
  return { label, href: href.trim(), end: j + 1, image: start > 0 && s[start - 1] === '!' };
}

/** Every inline link of a line (images included, as their destinations are URLs too). */
export function findLinks(text: string): InlineLink[] {
  const line = text.length > MAX_LINK_SCAN_CHARS ? text.slice(0, MAX_LINK_SCAN_CHARS) : text;
  const links: InlineLink[] = [];
  let i = line.indexOf('[');
  while (i !== -1) {
    const link = readLinkAt(line, i);
    if (link) {
      links.push(link);
      i = line.indexOf('[', link.end);
    } else {
      i = line.indexOf('[', i + 1);
    }
  }
  return links;
}

/** Bare and autolinked `http(s)` URLs of a line (outside link syntax, which {@link findLinks} covers). */
export function findBareUrls(text: string): string[] {
  const line = text.length > MAX_LINK_SCAN_CHARS ? text.slice(0, MAX_LINK_SCAN_CHARS) : text;
  const urls: string[] = [];
  for (const m of line.matchAll(/<?(https?:\/\/[^\s<>()[\]"'`]+)>?/gi)) {
    urls.push(trimEndChars(m[1]!, '.,;:!?*_'));
  }
  return urls;
}

/** A list item that starts with a link: `- [Title](url): notes` (also `*`, `+`, `1.` and `**[Title](url)**`). */
export interface LinkItem {
  indent: number;
  label: string;
  href: string;
  /** Text after the link, separators (`:`, ` - `, `–`, `—`) removed. */
  rest: string;
}

/** The link list item on this line, if the line is one. */
export function parseLinkItem(line: string): LinkItem | undefined {
  // one blank after the marker, the rest trimmed in code (`\s+(.*)$` retried every split of a run of blanks)
  const m = /^(\s*)(?:[-*+]|\d{1,3}[.)])\s([\s\S]*)$/.exec(line);
  if (!m) return undefined;
  let body = m[2]!.trimStart();
  if (body === '') return undefined;
  let emphasis = '';
  const em = /^(\*\*|__)\[/.exec(body);
  if (em) {
    emphasis = em[1]!;
    body = body.slice(2);
  }
  const link = readLinkAt(body, 0);
  if (!link) return undefined;
  let rest = body.slice(link.end);
  if (emphasis && rest.startsWith(emphasis)) rest = rest.slice(emphasis.length);
  rest = rest.replace(/^\s*(?::|[-–—](?=\s)|\|)\s*/, '').trim();
  return { indent: m[1]!.replace(/\t/g, '    ').length, label: link.label, href: link.href, rest };
}

/** A heading or link label made presentable: inline markup removed, whitespace collapsed. */
export function cleanTitle(s: string): string {
  return inlinePlainText(s)
    .replace(/^#+\s*/, '')
    .trim();
}

/** Longest description kept for a TOC entry; TOCs go to agents whole, so prose is capped. */
export const MAX_DESCRIPTION_CHARS = 500;

/** Collapses whitespace and caps the length at a word boundary (with an ellipsis). */
export function capText(s: string, max = MAX_DESCRIPTION_CHARS): string {
  const t = s
    .slice(0, max * 4)
    .replace(/<br\s*\/?>/gi, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (t.length <= max) return t;
  const cut = t.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,;:.]+$/, '')}…`;
}

/**
 * `<base>#<slug>` as a normalised URL (`URL.href` percent-encodes non-ASCII fragments), so it compares equal
 * to `new URL(it).href` when an agent hands it back.
 */
export function anchorUrl(base: string, slug: string): string {
  try {
    return new URL(`#${slug}`, base).href;
  } catch {
    return `${base}#${slug}`;
  }
}

/** Why a text is not markdown at all, or `undefined` when it may be. */
export function sniffNonMarkdown(text: string): string | undefined {
  if (!text.trim()) return 'the file is empty';
  const head = text.slice(0, 4096);
  // NUL bytes, or many control / replacement characters, mean a binary file decoded as UTF-8.
  if (head.includes('\u0000')) return 'the file is binary';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: counting control characters is the point
  const odd = head.match(/[\u0001-\u0008\u000B\u000C\u000E-\u001F\u007F\uFFFD]/g)?.length ?? 0;
  if (odd > head.length * 0.05) return 'the file is binary';
  const start = text.trimStart().slice(0, 512).toLowerCase();
  if (/^(<!doctype html|<html[\s>]|<head[\s>]|<body[\s>]|<meta[\s>])/.test(start)) return 'the file is an HTML page';
  if (/^<\?xml/.test(start)) return 'the file is XML';
  if (start.startsWith('{') || start.startsWith('[')) {
    try {
      JSON.parse(text);
      return 'the file is JSON';
    } catch {
      // not JSON: may still be markdown that starts with a link
    }
  }
  return undefined;
}

/**
 * Whether a body is an HTML document (for pages, where HTML is served but not converted here). Only the
 * start counts: markdown pages often show `<html>` in their examples.
 */
export function looksLikeHtml(text: string): boolean {
  const start = text.trimStart().slice(0, 512).toLowerCase();
  return /^(?:<!doctype html|<html[\s>]|<head[\s>]|<body[\s>])/.test(afterLeadingComments(start));
}

/**
 * The first sentence of the first prose paragraph of a markdown body (for TOC descriptions of split pages).
 * Paragraphs that only introduce what follows ("Available modes:") are passed over when a later one exists.
 */
export function firstSentence(lines: readonly ScannedLine[], max = 200): string | undefined {
  const paragraphs: string[] = [];
  let current: string[] = [];
  for (const line of lines) {
    const t = line.text.trim();
    const prose =
      !line.inCode && t !== '' && !parseHeading(t) && !/^([-*+>|]|\d+[.)]\s|<|!\[|:::|---|===|\*\*\*)/.test(t);
    if (prose) {
      current.push(t);
      continue;
    }
    if (current.length > 0) {
      paragraphs.push(inlinePlainText(current.join(' ')));
      current = [];
      if (paragraphs.length >= 5) break;
    }
  }
  if (current.length > 0) paragraphs.push(inlinePlainText(current.join(' ')));
  const usable = paragraphs.filter((p) => p.length >= 12);
  const text = usable.find((p) => !p.endsWith(':')) ?? usable[0];
  if (!text) return undefined;
  const m = /^(.+?[.!?])(\s|$)/.exec(text);
  return capText(m ? m[1]! : text, max);
}

/** A copy of `text` that holds no reference to the (possibly huge) string it was cut from. */
export function detach(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

/**
 * `start` after the HTML comments (and the whitespace after each) it opens with; an unclosed comment stays. A scan:
 * the regex `^(<!--[\s\S]*?-->\s*)*` backtracked exponentially on a run of empty comments (213 bytes of `<!---->`: 14 s).
 */
function afterLeadingComments(start: string): string {
  let rest = start;
  while (rest.startsWith('<!--')) {
    const end = rest.indexOf('-->', 4);
    if (end === -1) break;
    rest = rest.slice(end + 3).trimStart();
  }
  return rest;
}

const isBlank = (c: number): boolean => c === 0x20 || c === 0x09;

/** `s` without spaces and tabs at either end (a scan). */
function trimBlanks(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && isBlank(s.charCodeAt(a))) a += 1;
  while (b > a && isBlank(s.charCodeAt(b - 1))) b -= 1;
  return s.slice(a, b);
}

/** `s` without the characters of `chars` at its end (a scan: `[…]+$` retries from every run that does not end `s`). */
export function trimEndChars(s: string, chars: string): string {
  let end = s.length;
  while (end > 0 && chars.includes(s.charAt(end - 1))) end -= 1;
  return s.slice(0, end);
}

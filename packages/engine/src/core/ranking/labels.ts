import { charsForTokens } from '@pro-context/kernel';
import { walkLines } from '@pro-context/markdown';
import type { StoredChunk } from '../../indexing/doc-store.js';
import { remember } from './memo.js';

/**
 * The chunk's URL with its heading anchor. A page URL that already has a fragment (a section of a single
 * llms.txt or llms-full.txt file is a "page" named by its anchor) gets the chunk's anchor in its place: a
 * URL has one fragment, and the chunk's is the more precise one.
 */
export function chunkUrl(chunk: StoredChunk): string {
  if (!chunk.anchor) return chunk.url;
  const hash = chunk.url.indexOf('#');
  return `${hash === -1 ? chunk.url : chunk.url.slice(0, hash)}#${chunk.anchor}`;
}

/**
 * The heading of the section {@link chunkUrl}'s anchor names: the first heading of the chunk's body. It is
 * not always the deepest heading of the chunk's path: a section with a short introduction is served joined
 * to its first subsection, under the subsection's heading path but with the parent's anchor (where the
 * body starts). Falls back to the deepest heading, then the page title.
 */
export function chunkTitle(chunk: StoredChunk): string {
  const deepest = chunk.headings[chunk.headings.length - 1] ?? chunk.pageTitle;
  if (!chunk.anchor) return deepest;
  let title = deepest;
  walkLines(chunk.body.split('\n'), (line, _index, _heading, inCode) => {
    const text = inCode ? undefined : headingText(line);
    if (text === undefined) return true;
    // the chunker writes heading lines as `#… <text>` with the path's own text, so a match is exact
    if (chunk.headings.includes(text) || text === chunk.pageTitle) title = text;
    return false;
  });
  return title;
}

/** A section path for display: the headings below the page title. */
export function sectionPath(chunk: StoredChunk): string {
  const path = chunk.headings[0] === chunk.pageTitle ? chunk.headings.slice(1) : chunk.headings;
  return [chunk.pageTitle, ...path].join(' › ');
}

/**
 * The heading path of the text a chunk's body starts with, for display: {@link sectionPath} down to
 * {@link chunkTitle} (a short intro served joined to its first subsection starts at the intro's heading).
 */
export function labelPath(chunk: StoredChunk): string {
  const title = chunkTitle(chunk);
  const at = chunk.headings.lastIndexOf(title);
  return sectionPath(at >= 0 ? { ...chunk, headings: chunk.headings.slice(0, at + 1) } : chunk);
}

/** A later part's body as it reads after the part before it: without the repeated heading line. */
export const withoutHeadingLine = (body: string): string => body.replace(/^#{1,6}[ \t].*\n+/, '');

/** A later part's body shown without the part before it: its heading line says it continues. */
export const continuedHeading = (body: string): string =>
  body.replace(
    /^(#{1,6}[ \t])(.*)$/m,
    (_line, marker: string, rest: string) => `${marker}${trimEndBlanks(rest)} (continued)`,
  );

/** The spaces and tabs a heading line may end with. */
const isBlank = (c: number): boolean => c === 32 || c === 9;

/** `text` without trailing spaces and tabs (a scan: `[ \t]*$` after a lazy run was quadratic, issue #25). */
function trimEndBlanks(text: string): string {
  let end = text.length;
  while (end > 0 && isBlank(text.charCodeAt(end - 1))) end--;
  return text.slice(0, end);
}

/**
 * The text of an ATX heading line, or undefined: what
 * `/^ {0,3}#{1,6}[ \t]+(.*?)[ \t]*$/` captured, with the blanks around the text trimmed in code so the match is
 * linear (issue #25).
 */
export function headingText(line: string): string | undefined {
  const rest = /^ {0,3}#{1,6}[ \t](.*)$/.exec(line)?.[1];
  if (rest === undefined) return undefined;
  let start = 0;
  while (start < rest.length && isBlank(rest.charCodeAt(start))) start++;
  return trimEndBlanks(rest.slice(start));
}

/** Cuts markdown to at most `tokens` estimated tokens at a paragraph (else line) boundary, outside code fences. */
export function cutAtBoundary(markdown: string, tokens: number): string {
  const limit = charsForTokens(tokens);
  if (markdown.length <= limit) return markdown;
  const lines = markdown.split('\n');
  let out = '';
  let inFence = false;
  let lastSafe = 0;
  for (const line of lines) {
    if (out.length + line.length + 1 > limit) break;
    out += `${line}\n`;
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    if (!inFence && (line.trim() === '' || /^#{1,6}\s/.test(line))) lastSafe = out.length;
  }
  if (lastSafe > 0) return out.slice(0, lastSafe).trimEnd();
  // no paragraph boundary fits: keep the lines that do, and close a code fence left open
  return inFence ? `${out.trimEnd()}\n\`\`\`` : out.trimEnd();
}

/** A heading as the identifier it names: no markup, anchor, call arguments, type parameters or ` | Section` suffix. */
export function headingIdentifier(heading: string): string {
  let name = headingIdentifiers.get(heading);
  if (name === undefined) {
    name = identifierOfHeading(heading);
    remember(headingIdentifiers, heading, name);
  }
  return name;
}

/** Results of {@link headingIdentifier} by heading: re-ranking asks for the same headings on every query. */
const headingIdentifiers = new Map<string, string>();

function identifierOfHeading(heading: string): string {
  const name = withoutSectionSuffix(withoutAttributesAndComments(heading).replace(/[`*]/g, ''))
    .replace(/^@/, '')
    .replace(/^(?:new|class|def|function|async|const|interface|type)\s+/, '')
    .replace(/^[^\w@$]+/, '');
  return withoutCallOrTypeArguments(name).trim().toLowerCase();
}

// issue #25: the three scans below give what these regexes gave on a heading, in linear time (each was retried from
// every opener of a long run): `/\{#[^}]*\}|\{\/\*.*?\*\/\}/g`, `/\s+\|\s+.*$/` and `/(?:\s*\(|(?<=\S)<).*$/`.

const isWhitespace = (c: string | undefined): boolean => c !== undefined && /\s/.test(c);
const isLineBreak = (c: string): boolean => c === '\n' || c === '\r' || c === '\u2028' || c === '\u2029';

function lastLineBreak(text: string): number {
  return Math.max(
    text.lastIndexOf('\n'),
    text.lastIndexOf('\r'),
    text.lastIndexOf('\u2028'),
    text.lastIndexOf('\u2029'),
  );
}

/** Without `{#anchor}` attributes and `{/* comments *\/}` (MDX), as `/\{#[^}]*\}|\{\/\*.*?\*\/\}/g` removed them. */
export function withoutAttributesAndComments(text: string): string {
  let out = '';
  let kept = 0;
  // the next `}`, `*\/}` and line break at or after a position, remembered (positions only grow): linear
  let brace = -2;
  let closer = -2;
  let lineBreak = -2;
  const next = (memo: number, from: number, find: (from: number) => number): number =>
    memo === -1 || (memo >= from && memo !== -2) ? memo : find(from);
  const nextLineBreak = (from: number): number => {
    for (let i = from; i < text.length; i++) if (isLineBreak(text[i] as string)) return i;
    return -1;
  };
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '{') continue;
    let end = -1;
    if (text[i + 1] === '#') {
      brace = next(brace, i + 2, (from) => text.indexOf('}', from));
      if (brace >= 0) end = brace + 1;
    } else if (text[i + 1] === '/' && text[i + 2] === '*') {
      closer = next(closer, i + 3, (from) => text.indexOf('*/}', from));
      lineBreak = next(lineBreak, i + 3, nextLineBreak);
      if (closer >= 0 && (lineBreak < 0 || lineBreak > closer)) end = closer + 3;
    }
    if (end < 0) continue;
    out += text.slice(kept, i);
    kept = end;
    i = end - 1;
  }
  return out + text.slice(kept);
}

/** Without a ` | Section` suffix, as `/\s+\|\s+.*$/` removed it (from the first `|` with blanks on both sides). */
export function withoutSectionSuffix(text: string): string {
  const lastBreak = lastLineBreak(text);
  for (let q = text.indexOf('|', 1); q > 0; q = text.indexOf('|', q + 1)) {
    if (!isWhitespace(text[q - 1]) || !isWhitespace(text[q + 1])) continue;
    // `\s+` after the bar may cross line breaks; `.*` after it may not
    let after = q + 1;
    while (isWhitespace(text[after])) after++;
    if (lastBreak >= after) continue;
    let start = q - 1;
    while (start > 0 && isWhitespace(text[start - 1])) start--;
    return text.slice(0, start);
  }
  return text;
}

/** Without call arguments or type parameters, as `/(?:\s*\(|(?<=\S)<).*$/` removed them (from the first `(` or `<`). */
export function withoutCallOrTypeArguments(text: string): string {
  for (let q = lastLineBreak(text) + 1; q < text.length; q++) {
    const c = text[q];
    if (c === '(') {
      let start = q;
      while (start > 0 && isWhitespace(text[start - 1])) start--;
      return text.slice(0, start);
    }
    if (c === '<' && q > 0 && !isWhitespace(text[q - 1])) return text.slice(0, q);
  }
  return text;
}

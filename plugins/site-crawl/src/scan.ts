/**
 * Linear-time scans for text of fetched pages (issue #25): each gives exactly what the regex in its comment gave,
 * without that regex's super-linear backtracking on hostile input.
 */

const isSpace = (c: string | undefined): boolean => c !== undefined && c !== '' && c.trim() === '';
const isLineBreak = (c: string | undefined): boolean => c === '\n' || c === '\r' || c === '\u2028' || c === '\u2029';

/** `/^#\s+(.+?)\s*#*\s*$/.exec(line)?.[1]`: an ATX `# Title` line's text. */
export function atxTitle(line: string): string | undefined {
  if (line[0] !== '#' || !isSpace(line[1])) return undefined;
  let w = 1;
  while (isSpace(line[w])) w++;
  const body = line.slice(w);
  if (body === '') {
    // Only spaces after `#`: `\s+` gives one back to `(.+?)`, the last that is not a line break.
    for (let i = line.length - 1; i > 1; i--) if (!isLineBreak(line[i])) return line[i];
    return undefined;
  }
  let tail = body.length;
  while (tail > 0 && isSpace(body[tail - 1])) tail--;
  while (tail > 0 && body[tail - 1] === '#') tail--;
  while (tail > 0 && isSpace(body[tail - 1])) tail--;
  const text = body.slice(0, Math.max(1, tail));
  for (const c of text) if (isLineBreak(c)) return undefined;
  return text;
}

/** `s.replace(/\s*\{#[^}]*\}\s*$/, '')`: a heading's trailing `{#id}` taken off. */
export function withoutHeadingId(s: string): string {
  let end = s.length;
  while (end > 0 && isSpace(s[end - 1])) end--;
  if (end < 3 || s[end - 1] !== '}') return s;
  const open = s.indexOf('{#', s.lastIndexOf('}', end - 2) + 1);
  if (open < 0 || open > end - 3) return s;
  let start = open;
  while (start > 0 && isSpace(s[start - 1])) start--;
  return s.slice(0, start);
}

const LOC_OPEN = /<(?:\w+:)?loc>/gi;
const LOC_CLOSE = /<\/(?:\w+:)?loc>/gi;
const CDATA_OPEN = '<![CDATA[';

/**
 * The texts of a sitemap's `<loc>` elements, as
 * `[...xml.matchAll(/<(?:\w+:)?loc>\s*(?:<!\[CDATA\[)?([\s\S]*?)(?:\]\]>)?\s*<\/(?:\w+:)?loc>/gi)].map((m) => m[1])`.
 */
export function sitemapLocTexts(xml: string): string[] {
  const texts: string[] = [];
  LOC_OPEN.lastIndex = 0;
  for (let open = LOC_OPEN.exec(xml); open; open = LOC_OPEN.exec(xml)) {
    let start = open.index + open[0].length;
    LOC_CLOSE.lastIndex = start;
    const close = LOC_CLOSE.exec(xml);
    if (!close) break;
    while (start < close.index && isSpace(xml[start])) start++;
    if (xml.startsWith(CDATA_OPEN, start) && start + CDATA_OPEN.length <= close.index) start += CDATA_OPEN.length;
    let end = close.index;
    while (end > start && isSpace(xml[end - 1])) end--;
    if (end - 3 >= start && xml.startsWith(']]>', end - 3)) end -= 3;
    texts.push(xml.slice(start, end));
    LOC_OPEN.lastIndex = close.index + close[0].length;
  }
  return texts;
}

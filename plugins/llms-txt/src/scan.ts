/**
 * Linear-time scans for text of fetched pages (issue #25): each gives exactly what the regex in its comment gave,
 * without that regex's super-linear backtracking on hostile input.
 */

const isSpace = (c: string | undefined): boolean => c !== undefined && c !== '' && c.trim() === '';
const isLineBreak = (c: string | undefined): boolean => c === '\n' || c === '\r' || c === '\u2028' || c === '\u2029';

/** `s.replace(/\/+$/, '')`. */
export function trimTrailingSlashes(s: string): string {
  let end = s.length;
  while (end > 0 && s[end - 1] === '/') end--;
  return s.slice(0, end);
}

/** `s.replace(/[?#].*$/, '')`: from the first `?` or `#` after the last line break. */
export function cutQueryAndHash(s: string): string {
  let from = 0;
  for (let i = s.length - 1; i >= 0; i--)
    if (isLineBreak(s[i])) {
      from = i + 1;
      break;
    }
  for (let i = from; i < s.length; i++) if (s[i] === '?' || s[i] === '#') return s.slice(0, i);
  return s;
}

/** `s.replace(/[^/]*$/, replacement)`: the last path segment replaced. */
export function replaceLastSegment(s: string, replacement: string): string {
  return `${s.slice(0, s.lastIndexOf('/') + 1)}${replacement}`;
}

/** `/^#\s+(.+?)\s*#*$/.exec(line)?.[1]`: an ATX `# Title` line's text. */
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
  while (tail > 0 && body[tail - 1] === '#') tail--;
  while (tail > 0 && isSpace(body[tail - 1])) tail--;
  const text = body.slice(0, Math.max(1, tail));
  for (const c of text) if (isLineBreak(c)) return undefined;
  return text;
}

/** `/^>\s*(.+)$/.exec(line)?.[1]`: a `> summary` line's text. */
export function quoteText(line: string): string | undefined {
  if (line[0] !== '>') return undefined;
  let w = 1;
  while (isSpace(line[w])) w++;
  const text = line.slice(w);
  if (text === '') {
    // Only spaces after `>`: `\s*` gives its last one back to `(.+)`, unless that is a line break.
    const last = line.length > 1 ? line[line.length - 1] : undefined;
    return last === undefined || isLineBreak(last) ? undefined : last;
  }
  for (const c of text) if (isLineBreak(c)) return undefined;
  return text;
}

const TITLE_OPEN = /<title/gi;
const TITLE_CLOSE = /<\/title>/iy;

/** `/<title[^>]*>([^<]*)<\/title>/i.exec(html)?.[1]`: the text of the first complete `<title>`. */
export function htmlTitleText(html: string): string | undefined {
  let gt = -1;
  let lt = -1;
  TITLE_OPEN.lastIndex = 0;
  for (let m = TITLE_OPEN.exec(html); m; m = TITLE_OPEN.exec(html)) {
    const after = m.index + m[0].length;
    if (gt < after) gt = html.indexOf('>', after);
    if (gt < 0) return undefined;
    if (lt <= gt) lt = html.indexOf('<', gt + 1);
    if (lt < 0) return undefined;
    TITLE_CLOSE.lastIndex = lt;
    if (TITLE_CLOSE.test(html)) return html.slice(gt + 1, lt);
    TITLE_OPEN.lastIndex = after;
  }
  return undefined;
}

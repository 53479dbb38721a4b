/**
 * Linear-time scans for text read from installed packages (issue #25): each gives exactly what the regex in its
 * comment gave, without that regex's super-linear backtracking on hostile input.
 */

const isSpace = (c: string | undefined): boolean => c !== undefined && c !== '' && c.trim() === '';
const isLineBreak = (c: string | undefined): boolean => c === '\n' || c === '\r' || c === '\u2028' || c === '\u2029';
const isWord = (c: string | undefined): boolean =>
  c !== undefined && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c === '_');

const LINK = /\{@link/g;

/** `text.replace(/\{@link\s+([^}|\s]+)(?:[|\s][^}]*)?\}/g, '`$1`')`: `{@link target|label}` as `` `target` ``. */
export function linksAsCode(text: string): string {
  let out = '';
  let pos = 0;
  let close = -1;
  LINK.lastIndex = 0;
  for (let m = LINK.exec(text); m; m = LINK.exec(text)) {
    let i = m.index + m[0].length;
    if (!isSpace(text[i])) continue;
    while (isSpace(text[i])) i++;
    const start = i;
    while (i < text.length && text[i] !== '}' && text[i] !== '|' && !isSpace(text[i])) i++;
    if (i === start) continue;
    if (close < i) close = text.indexOf('}', i);
    if (close < 0) break;
    out += `${text.slice(pos, m.index)}\`${text.slice(start, i)}\``;
    pos = close + 1;
    LINK.lastIndex = pos;
  }
  return out + text.slice(pos);
}

/** `/^@(\w+)\s*(.*)$/.exec(line)`'s groups: a JSDoc tag line's name and text. */
export function jsdocTag(line: string): { name: string; text: string } | undefined {
  if (line[0] !== '@' || !isWord(line[1])) return undefined;
  let i = 1;
  while (isWord(line[i])) i++;
  const text = line.slice(i).trimStart();
  for (const c of text) if (isLineBreak(c)) return undefined;
  return { name: line.slice(1, i), text };
}

/** `/^([=\-~^"'`#*+<>:._])\1{2,}\s*$/.exec(line)?.[1]`: the character of a section title's adornment line. */
export function adornmentOf(line: string): string | undefined {
  const c = line[0];
  if (c === undefined || !'=-~^"\'`#*+<>:._'.includes(c)) return undefined;
  const body = line.trimEnd();
  if (body.length < 3) return undefined;
  for (const x of body) if (x !== c) return undefined;
  return c;
}

/** An open fenced code block: its marker character, marker length, indentation and info string. */
export interface Fence {
  char: '`' | '~';
  length: number;
  indent: number;
  info: string;
}

// `(?!`)` makes the marker the whole run: without it a run ended by a line separator was retried at every length.
const FENCE_OPEN = /^([ \t]*)(`{3,}(?!`)|~{3,}(?!~))(.*)$/;
const FENCE_CLOSE = /^[ \t]*(`{3,}|~{3,})[ \t]*$/;

/** Width of a line's leading whitespace, a tab counting as four columns (enough for docs sources). */
export function indentWidth(line: string): number {
  let width = 0;
  for (const ch of line) {
    if (ch === ' ') width += 1;
    else if (ch === '\t') width += 4;
    else break;
  }
  return width;
}

/**
 * The fence a line opens, or `null`. Fences are recognised at any indentation: inside list items and
 * indented admonition bodies they sit deeper than CommonMark's three columns, and treating them as code
 * is what keeps `#` comments and blank lines inside them from being taken for structure.
 */
export function openFence(line: string): Fence | null {
  const m = FENCE_OPEN.exec(line);
  if (!m) return null;
  const marker = m[2] as string;
  const info = (m[3] as string).trim();
  const char = marker[0] as '`' | '~';
  // A backtick fence's info string cannot contain backticks (that is inline code such as ```x```).
  if (char === '`' && info.includes('`')) return null;
  return { char, length: marker.length, indent: indentWidth(line), info };
}

/** Whether `line` closes `fence`: same character, at least as long, nothing else on the line. */
export function closesFence(fence: Fence, line: string): boolean {
  const m = FENCE_CLOSE.exec(line);
  if (!m) return false;
  const marker = m[1] as string;
  return marker[0] === fence.char && marker.length >= fence.length;
}

/** The line that closes `fence` (used to repair a block left open at the end of a document or container). */
export function closingLine(fence: Fence): string {
  return ' '.repeat(fence.indent) + fence.char.repeat(fence.length);
}

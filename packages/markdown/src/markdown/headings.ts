import { closesFence, type Fence, openFence } from './fences.js';

/**
 * An ATX heading line: its `#` run (group 1) and raw text (group 2, absent for an empty heading). Its matching time
 * grows with the cube of a line's trailing blanks: the walker below uses {@link atxHeading}, which reads the same
 * headings in linear time; this pattern stays exported for callers that test short strings.
 */
export const ATX_HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;

const isBlank = (c: number): boolean => c === 0x20 || c === 0x09;

/**
 * The heading an ATX heading line holds, as {@link ATX_HEADING} reads it (up to three spaces, one to six `#`,
 * blanks, the text, an optional closing `#` run after blanks), or `undefined` (not a heading, or an empty one).
 * A scan in linear time.
 */
export function atxHeading(line: string): HeadingLine | undefined {
  let i = 0;
  while (i < 3 && line.charCodeAt(i) === 0x20) i += 1;
  const start = i;
  while (i < line.length && line.charCodeAt(i) === 0x23) i += 1;
  const level = i - start;
  if (level < 1 || level > 6) return undefined;
  if (i < line.length && !isBlank(line.charCodeAt(i))) return undefined;
  let end = line.length;
  while (end > i && isBlank(line.charCodeAt(end - 1))) end -= 1;
  // a closing `#` run, after blanks
  let hashes = end;
  while (hashes > i && line.charCodeAt(hashes - 1) === 0x23) hashes -= 1;
  if (hashes < end && (hashes === i || isBlank(line.charCodeAt(hashes - 1)))) end = hashes;
  while (end > i && isBlank(line.charCodeAt(end - 1))) end -= 1;
  while (i < end && isBlank(line.charCodeAt(i))) i += 1;
  if (i >= end) return undefined;
  const raw = line.slice(i, end);
  // `.` in the pattern stops at line separators: such a line is no heading
  if (/[\r\n\u2028\u2029]/.test(raw)) return undefined;
  return { level: line.slice(start, start + level), raw };
}

/** An ATX heading line outside fenced code: its `#` run and its raw text (before `cleanHeading`). */
export interface HeadingLine {
  level: string;
  raw: string;
}

/**
 * Walks markdown lines in order, telling `visit` which are ATX headings outside fenced code (a `#` line
 * inside a code block is code) and which belong to a code block (its fence lines included). Stops early
 * when `visit` returns `false`. Returns the fence still open after the last line (a page may end inside a
 * code block), or `null`.
 */
export function walkLines(
  lines: readonly string[],
  visit: (line: string, index: number, heading: HeadingLine | undefined, inCode: boolean) => unknown,
): Fence | null {
  let fence: Fence | null = null;
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] as string;
    let heading: HeadingLine | undefined;
    let inCode = true;
    if (fence) {
      if (closesFence(fence, line)) fence = null;
    } else {
      fence = openFence(line);
      inCode = fence !== null;
      if (!inCode) heading = atxHeading(line.endsWith('\r') ? line.slice(0, -1) : line);
    }
    if (visit(line, i, heading, inCode) === false) break;
  }
  return fence;
}

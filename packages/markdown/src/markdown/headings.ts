import { closesFence, type Fence, openFence } from './fences.js';

/** An ATX heading line: its `#` run (group 1) and raw text (group 2, absent for an empty heading). */
export const ATX_HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;

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
      const m = inCode ? null : ATX_HEADING.exec(line.replace(/\r$/, ''));
      if (m?.[1] && m[2]) heading = { level: m[1], raw: m[2] };
    }
    if (visit(line, i, heading, inCode) === false) break;
  }
  return fence;
}

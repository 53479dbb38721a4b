/**
 * Linear-time replacements for the link, image and tag patterns of heading text (issue #25): each gives exactly
 * what the global regex replace in its comment gave, without its quadratic retries on a heading of many unclosed
 * `[` or `<`.
 */

/** The first index of `ch` at or after a position, for positions asked in increasing order (amortized linear). */
function nextIndexOf(s: string, ch: string): (from: number) => number {
  let found = -2;
  let asked = -1;
  return (from) => {
    if (found === -1 && from >= asked) return -1;
    if (found < from) {
      found = s.indexOf(ch, from);
      asked = from;
    }
    return found;
  };
}

/**
 * `s.replace(/!\[([^\]]*)\]\([^)]*\)/g, …)`, `s.replace(/\[([^\]]*)\]\([^)]*\)/g, …)` (`image` false) or
 * `s.replace(/\[([^\]]*)\]\[[^\]]*\]/g, …)` (`second` `[`): each `[label](target)` / `[label][ref]` replaced by
 * `replace(label)`.
 */
export function replaceBracketLinks(
  s: string,
  image: boolean,
  second: '(' | '[',
  replace: (label: string) => string,
): string {
  const labelEnd = nextIndexOf(s, ']');
  const targetEnd = nextIndexOf(s, second === '(' ? ')' : ']');
  let out = '';
  let pos = 0;
  let from = 0;
  for (;;) {
    const open = s.indexOf(image ? '![' : '[', from);
    if (open < 0) break;
    const labelStart = open + (image ? 2 : 1);
    const close = labelEnd(labelStart);
    if (close < 0) break;
    if (s[close + 1] !== second) {
      from = open + 1;
      continue;
    }
    const end = targetEnd(close + 2);
    if (end < 0) {
      from = open + 1;
      continue;
    }
    out += s.slice(pos, open) + replace(s.slice(labelStart, close));
    pos = end + 1;
    from = pos;
  }
  return out + s.slice(pos);
}

const TAG_OPEN = /<\/?[A-Za-z]/g;

/** `s.replace(/<\/?[A-Za-z][^>]*>/g, replacement)`: HTML tags replaced. */
export function replaceTags(s: string, replacement: string): string {
  const tagEnd = nextIndexOf(s, '>');
  let out = '';
  let pos = 0;
  TAG_OPEN.lastIndex = 0;
  for (let m = TAG_OPEN.exec(s); m; m = TAG_OPEN.exec(s)) {
    const end = tagEnd(m.index + m[0].length);
    if (end < 0) break;
    out += s.slice(pos, m.index) + replacement;
    pos = end + 1;
    TAG_OPEN.lastIndex = pos;
  }
  return out + s.slice(pos);
}

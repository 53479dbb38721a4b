/**
 * Linear-time removal of raw-text elements and comments from HTML source, for the textual passes that run before
 * (or instead of) parsing. A lazy regex such as `<script\b[\s\S]*?<\/script\s*>` scans to the end of the page from
 * every opener that is never closed: quadratic in a page of unclosed `<script` (or `<!--`) openers. Here each
 * opener and closer is found once, left to right.
 */

/**
 * Replaces each `<name …>…</name>` (any of `names`, case-insensitive; the first closer of the same name ends it)
 * with what `replace` returns for its opening tag, inner text and closing tag. An opener never closed stays as
 * written, and so does the rest of the page (as the lazy regex would leave it).
 */
export function replaceElements(
  html: string,
  names: readonly string[],
  replace: (open: string, inner: string, close: string) => string,
): string {
  const alternatives = names.join('|');
  const openers = new RegExp(`<(${alternatives})\\b[^<>]*>`, 'gi');
  // per name: the offset after which no closer of that name exists (found once, so openers left unclosed cost nothing)
  const noCloserAfter = new Map<string, number>();
  let out = '';
  let from = 0;
  for (;;) {
    openers.lastIndex = from;
    const open = openers.exec(html);
    if (!open) break;
    const name = (open[1] as string).toLowerCase();
    const after = open.index + open[0].length;
    let close: RegExpExecArray | null = null;
    if ((noCloserAfter.get(name) ?? Number.POSITIVE_INFINITY) > after) {
      const closer = new RegExp(`</${name}\\s*>`, 'gi');
      closer.lastIndex = after;
      close = closer.exec(html);
      if (!close) noCloserAfter.set(name, after);
    }
    if (!close) {
      // not closed: the opener stays, and the search goes on after it (another element may be closed)
      out += html.slice(from, open.index + open[0].length);
      from = open.index + open[0].length;
      continue;
    }
    out += html.slice(from, open.index);
    out += replace(open[0], html.slice(open.index + open[0].length, close.index), close[0]);
    from = close.index + close[0].length;
  }
  return from === 0 ? html : out + html.slice(from);
}

/** Removes each `<name …>…</name>` of `names` (see {@link replaceElements}), putting `by` in its place. */
export function stripElements(html: string, names: readonly string[], by = ''): string {
  return replaceElements(html, names, () => by);
}

/** Replaces each `<!-- … -->` with `by`; an unclosed `<!--` stays, with what follows it. */
export function stripComments(html: string, by = ''): string {
  let out = '';
  let from = 0;
  for (;;) {
    const start = html.indexOf('<!--', from);
    if (start === -1) break;
    const end = html.indexOf('-->', start + 4);
    if (end === -1) break;
    out += html.slice(from, start) + by;
    from = end + 3;
  }
  return from === 0 ? html : out + html.slice(from);
}

/** The inner HTML of the first `<name …>…</name>` that is closed, or `undefined` (linear, as above). */
export function firstElementInner(html: string, name: string): string | undefined {
  let found: string | undefined;
  replaceElements(html, [name], (open, inner, close) => {
    found ??= inner;
    return `${open}${close}`;
  });
  return found;
}

/** `text` without the characters of `chars` (and, with `blanks`, whitespace) at its end: a scan, not `[…]+$`. */
export function trimEndOf(text: string, chars: string, blanks = false): string {
  let end = text.length;
  while (end > 0) {
    const c = text.charAt(end - 1);
    if (!chars.includes(c) && !(blanks && c.trim() === '')) break;
    end -= 1;
  }
  return end === text.length ? text : text.slice(0, end);
}

const DIV_CLOSE = /<\/div>/gi;
const DIV_OPEN = /<div/iy;
const CLASS_ATTR = /class="/gi;
const EC_LINE = /ec-line/gi;
const isWordChar = (c: string | undefined): boolean => c !== undefined && /\w/.test(c);

/**
 * `html.replace(/(<\/div>\s*)(<div\b[^>]*\bclass="[^"]*\bec-line\b)/gi, '$1\n$2')`: a newline between Expressive
 * Code's line `<div>`s, as a linear scan (each `class="` of an opening tag is looked at once; the regex retried
 * them for every split of the tag).
 */
export function breakBetweenEcLines(html: string): string {
  let out = '';
  let pos = 0;
  DIV_CLOSE.lastIndex = 0;
  for (let m = DIV_CLOSE.exec(html); m; m = DIV_CLOSE.exec(html)) {
    let open = m.index + m[0].length;
    while (open < html.length && (html[open] as string).trim() === '') open++;
    DIV_OPEN.lastIndex = open;
    if (!DIV_OPEN.test(html) || isWordChar(html[open + 4])) continue;
    let tagEnd = html.indexOf('>', open + 4);
    if (tagEnd < 0) tagEnd = html.length;
    // `[^>]*` is greedy: the last `class="` of the tag whose value has an `ec-line` wins, and its last `ec-line`.
    const classes: number[] = [];
    const tag = html.slice(open + 4, tagEnd);
    CLASS_ATTR.lastIndex = 0;
    for (let c = CLASS_ATTR.exec(tag); c; c = CLASS_ATTR.exec(tag))
      if (!isWordChar(html[open + 3 + c.index])) classes.push(open + 4 + c.index + 7);
    let end = -1;
    for (let k = classes.length - 1; k >= 0 && end < 0; k--) {
      const value = classes[k] as number;
      let valueEnd = html.indexOf('"', value);
      if (valueEnd < 0) valueEnd = html.length;
      const text = html.slice(value, valueEnd);
      EC_LINE.lastIndex = 0;
      for (let e = EC_LINE.exec(text); e; e = EC_LINE.exec(text)) {
        const at = value + e.index;
        if (!isWordChar(html[at - 1]) && !isWordChar(html[at + 7])) end = at + 7;
      }
    }
    if (end < 0) continue;
    out += `${html.slice(pos, open)}\n`;
    pos = open;
    DIV_CLOSE.lastIndex = end;
  }
  return out + html.slice(pos);
}

/**
 * Linear scans for the markdown a search index leaves out (issue #25): link targets `](url "title")` and MkDocs
 * attribute lists `{ #anchor .class }`. They find exactly what `/\]\([^)\s]*(?:\s+"[^"]*")?\)/g` and
 * `/\{\s*[#.][^}\n]*\}/g` found, but those regexes were retried from every opener of a long run (`](](](…`,
 * `{#{#{#…`), each retry scanning to the run's end: quadratic on fetched text. Here the next closer at or after a
 * position is remembered (positions only grow), so each character is looked at a constant number of times.
 */
export class NonProseScanner {
  private stop = -2; // next `)` or whitespace
  private stopEnd = -2; // the link end found for `stop` (memo of its title check)
  private stopResult = -1;
  private quote = -2; // next `"`
  private close = -2; // next `}` or `\n`

  constructor(private readonly text: string) {}

  /** End (exclusive) of the link target `](…)` at `i` (where `text[i]` is `]`), or -1. */
  linkTargetEnd(i: number): number {
    const text = this.text;
    if (text[i] !== ']' || text[i + 1] !== '(') return -1;
    this.stop = this.next(this.stop, i + 2, isLinkStop);
    const e = this.stop;
    if (e < 0) return -1;
    if (text[e] === ')') return e + 1;
    if (this.stopEnd === e) return this.stopResult;
    // whitespace, then an optional `"title"` before the `)`
    let w = e;
    while (w < text.length && isWhitespace(text[w] as string)) w++;
    let end = -1;
    if (text[w] === '"') {
      this.quote = this.next(this.quote, w + 1, (c) => c === '"');
      if (this.quote >= 0 && text[this.quote + 1] === ')') end = this.quote + 2;
    }
    this.stopEnd = e;
    this.stopResult = end;
    return end;
  }

  /** End (exclusive) of the attribute list `{ #… }` at `i` (where `text[i]` is `{`), or -1. */
  attributeListEnd(i: number): number {
    const text = this.text;
    if (text[i] !== '{') return -1;
    let w = i + 1;
    while (w < text.length && isWhitespace(text[w] as string)) w++;
    if (text[w] !== '#' && text[w] !== '.') return -1;
    this.close = this.next(this.close, w + 1, (c) => c === '}' || c === '\n');
    return this.close >= 0 && text[this.close] === '}' ? this.close + 1 : -1;
  }

  /** The first index at or after `from` whose character `wanted` accepts, or -1; `memo` is the last answer. */
  private next(memo: number, from: number, wanted: (c: string) => boolean): number {
    if (memo === -1 || memo >= from) return memo;
    for (let i = from; i < this.text.length; i++) if (wanted(this.text[i] as string)) return i;
    return -1;
  }
}

const WHITESPACE = /\s/;
const isWhitespace = (c: string): boolean => WHITESPACE.test(c);
const isLinkStop = (c: string): boolean => c === ')' || isWhitespace(c);

/**
 * `text` with each span `end(i)` finds replaced by `by`, scanning left to right as a global regex does; `openers`
 * finds the positions a span can start at (a global regex of fixed strings: linear).
 */
export function replaceSpans(text: string, openers: RegExp, end: (i: number) => number, by: string): string {
  let out = '';
  let kept = 0;
  openers.lastIndex = 0;
  for (let m = openers.exec(text); m !== null; m = openers.exec(text)) {
    const e = end(m.index);
    if (e < 0) {
      openers.lastIndex = m.index + 1;
      continue;
    }
    out += text.slice(kept, m.index) + by;
    kept = e;
    openers.lastIndex = e;
  }
  return kept === 0 ? text : out + text.slice(kept);
}

/**
 * Linear-time scans for text read from repositories (issue #25): each gives exactly what the regex in its comment
 * gave, without that regex's super-linear backtracking on hostile input.
 */

const isSpace = (c: string | undefined): boolean => c !== undefined && c !== '' && c.trim() === '';
const isLineBreak = (c: string | undefined): boolean => c === '\n' || c === '\r' || c === '\u2028' || c === '\u2029';
const isBlank = (c: string | undefined): boolean => c === ' ' || c === '\t';

/** `s.replace(/\/+$/, '')`. */
export function trimTrailingSlashes(s: string): string {
  let end = s.length;
  while (end > 0 && s[end - 1] === '/') end--;
  return s.slice(0, end);
}

/** `s.replace(/^\.?\/+|\/+$/g, '')`: leading `./` or `/`s and trailing `/`s taken off. */
export function trimPathSlashes(s: string): string {
  let start = s[0] === '.' && s[1] === '/' ? 1 : 0;
  if (s[start] === '/') while (s[start] === '/') start++;
  else start = 0;
  return start === s.length ? '' : trimTrailingSlashes(s.slice(start));
}

/** The lines of a text as `^` and `$` of a multiline regex see them (split at every line break). */
function linesOf(text: string): string[] {
  return text.split(/[\n\r\u2028\u2029]/);
}

/** A line without its leading and trailing spaces and tabs. */
function trimBlanks(line: string): string {
  let start = 0;
  let end = line.length;
  while (start < end && isBlank(line[start])) start++;
  while (end > start && isBlank(line[end - 1])) end--;
  return line.slice(start, end);
}

/** `[...text.matchAll(/^[ \t]*\{\*[ \t]*(\S+).*?\*\}[ \t]*$/gm)].map((m) => m[1])`: `{* path … *}` targets. */
export function codeIncludeTargets(text: string): string[] {
  const targets: string[] = [];
  for (const line of linesOf(text)) {
    const t = trimBlanks(line);
    if (t.length < 5 || !t.startsWith('{*') || !t.endsWith('*}')) continue;
    const inner = t.slice(2, -2);
    let start = 0;
    while (isBlank(inner[start])) start++;
    let end = start;
    while (end < inner.length && !isSpace(inner[end])) end++;
    if (end > start) targets.push(inner.slice(start, end));
  }
  return targets;
}

/** `[...text.matchAll(/^[ \t]*\{!>?[ \t]*(.+?)[ \t]*!\}[ \t]*$/gm)].map((m) => m[1])`: `{! path !}` targets. */
export function markdownIncludeTargets(text: string): string[] {
  const targets: string[] = [];
  const target = (body: string): string | undefined => {
    let start = 0;
    while (isBlank(body[start])) start++;
    let end = body.length;
    while (end > start && isBlank(body[end - 1])) end--;
    if (end > start) return body.slice(start, end);
    // only blanks: `[ \t]*` gives its last one back to `(.+?)`
    return body.length > 0 ? body[body.length - 1] : undefined;
  };
  for (const line of linesOf(text)) {
    const t = trimBlanks(line);
    if (t.length < 5 || !t.startsWith('{!') || !t.endsWith('!}')) continue;
    const inner = t.slice(2, -2);
    const found = (inner[0] === '>' ? target(inner.slice(1)) : undefined) ?? target(inner);
    if (found !== undefined) targets.push(found);
  }
  return targets;
}

/** `/^([=\-`:'"~^_*+#<>.])\1{2,}\s*$/.test(line)`: a section title's adornment line. */
export function isAdornment(line: string): boolean {
  const c = line[0];
  if (c === undefined || !'=-`:\'"~^_*+#<>.'.includes(c)) return false;
  const body = line.trimEnd();
  if (body.length < 3) return false;
  for (const x of body) if (x !== c) return false;
  return true;
}

/** `/^(\s*)\.\.\s+([\w:-]+)::\s*(.*)$/.exec(line)`'s groups: a directive's indent, name and argument. */
export function directiveOf(line: string): { indent: string; name: string; argument: string } | undefined {
  let i = 0;
  while (isSpace(line[i])) i++;
  const indent = line.slice(0, i);
  if (line[i] !== '.' || line[i + 1] !== '.' || !isSpace(line[i + 2])) return undefined;
  i += 2;
  while (isSpace(line[i])) i++;
  const nameStart = i;
  while (i < line.length && /[\w:-]/.test(line[i] as string)) i++;
  const runEnd = i;
  let firstText = -1;
  let lastBreak = -1;
  for (let j = runEnd; j < line.length; j++) {
    if (isLineBreak(line[j])) lastBreak = j;
    else if (firstText < 0 && !isSpace(line[j])) firstText = j;
  }
  // `(.*)$` cannot cross a line break: one after the argument's text means no match.
  if (firstText >= 0 && firstText < lastBreak) return undefined;
  const breakAfter = lastBreak >= 0;
  // The name is the longest run before a `::` (only the one at the run's end when a line break follows).
  for (let k = runEnd - 2; k > nameStart; k--) {
    if (line[k] === ':' && line[k + 1] === ':') {
      if (breakAfter && k !== runEnd - 2) return undefined;
      return { indent, name: line.slice(nameStart, k), argument: line.slice(k + 2).trimStart() };
    }
    if (breakAfter) return undefined;
  }
  return undefined;
}

/** `line.replace(/\s*::\s*$/, replacement)`: a paragraph's closing `::` replaced. */
export function replaceClosingColons(line: string, replacement: string): string {
  const end = line.trimEnd().length;
  if (end < 2 || line[end - 1] !== ':' || line[end - 2] !== ':') return line;
  let start = end - 2;
  while (start > 0 && isSpace(line[start - 1])) start--;
  return `${line.slice(0, start)}${replacement}`;
}

const isRoleChar = (c: string | undefined): boolean => c !== undefined && /[\w:.-]/.test(c);

/** The first index at or after a position of any of `chars`, for positions asked in increasing order. */
function nextIndexOfAny(s: string, chars: string): (from: number) => number {
  let found = -2;
  let asked = -1;
  return (from) => {
    if (found === -1 && from >= asked) return -1;
    if (found < from) {
      asked = from;
      found = -1;
      for (let i = from; i < s.length; i++)
        if (chars.includes(s[i] as string)) {
          found = i;
          break;
        }
    }
    return found;
  };
}

/**
 * `text.replace(/:[\w:.-]+:`~?([^`<]*?)(?:\s*<([^>]+)>)?`/g, (_m, label, target) => replace(label, target))`:
 * Sphinx roles (`:func:`~a.b``, `:ref:`label <target>``).
 */
export function replaceRoles(text: string, replace: (label: string, target: string | undefined) => string): string {
  const labelEnd = nextIndexOfAny(text, '`<');
  const targetEnd = nextIndexOfAny(text, '>');
  let runStart = -1;
  let runEnd = -1;
  let spacesFor = -1;
  let spacesStart = -1;
  let out = '';
  let pos = 0;
  let from = 0;
  for (;;) {
    const start = text.indexOf(':', from);
    if (start < 0) break;
    from = start + 1;
    if (!(runStart <= start + 1 && start + 1 < runEnd)) {
      runStart = start + 1;
      runEnd = runStart;
      while (isRoleChar(text[runEnd])) runEnd++;
    }
    // the name's run must end with `:` right before a backtick
    if (runEnd - (start + 1) < 2 || text[runEnd - 1] !== ':' || text[runEnd] !== '`') continue;
    let labelStart = runEnd + 1;
    if (text[labelStart] === '~') labelStart++;
    const q = labelEnd(labelStart);
    if (q < 0) break;
    if (text[q] === '`') {
      out += text.slice(pos, start) + replace(text.slice(labelStart, q), undefined);
      pos = q + 1;
      from = pos;
      continue;
    }
    const g = targetEnd(q + 1);
    if (g < 0 || g === q + 1 || text[g + 1] !== '`') continue;
    if (spacesFor !== q) {
      spacesFor = q;
      spacesStart = q;
      while (spacesStart > 0 && isSpace(text[spacesStart - 1])) spacesStart--;
    }
    out +=
      text.slice(pos, start) + replace(text.slice(labelStart, Math.max(labelStart, spacesStart)), text.slice(q + 1, g));
    pos = g + 2;
    from = pos;
  }
  return out + text.slice(pos);
}

/** `text.replace(/`([^`<]+?)\s*<(https?:[^>]+)>`__?/g, '[$1]($2)')`: reStructuredText hyperlinks as markdown links. */
export function hyperlinksAsMarkdown(text: string): string {
  const labelEnd = nextIndexOfAny(text, '`<');
  const targetEnd = nextIndexOfAny(text, '>');
  let spacesFor = -1;
  let spacesStart = -1;
  let out = '';
  let pos = 0;
  let from = 0;
  for (;;) {
    const start = text.indexOf('`', from);
    if (start < 0) break;
    from = start + 1;
    const q = labelEnd(start + 1);
    if (q < 0) break;
    if (text[q] !== '<' || q < start + 2) continue;
    const scheme = text.startsWith('https:', q + 1) ? 6 : text.startsWith('http:', q + 1) ? 5 : 0;
    if (!scheme) continue;
    const g = targetEnd(q + 1 + scheme);
    if (g < 0 || g === q + 1 + scheme || text[g + 1] !== '`' || text[g + 2] !== '_') continue;
    if (spacesFor !== q) {
      spacesFor = q;
      spacesStart = q;
      while (spacesStart > 0 && isSpace(text[spacesStart - 1])) spacesStart--;
    }
    const end = text[g + 3] === '_' ? g + 4 : g + 3;
    out += `${text.slice(pos, start)}[${text.slice(start + 1, Math.max(start + 2, spacesStart))}](${text.slice(q + 1, g)})`;
    pos = end;
    from = pos;
  }
  return out + text.slice(pos);
}

/** `text.replace(/`([^`]+)`__?(?=\W|$)/g, '$1')`: reStructuredText references (`` `name`_ ``) as their text. */
export function referencesAsText(text: string): string {
  let out = '';
  let pos = 0;
  let from = 0;
  for (;;) {
    const start = text.indexOf('`', from);
    if (start < 0) break;
    const close = text.indexOf('`', start + 1);
    if (close < 0) break;
    from = close;
    if (close === start + 1 || text[close + 1] !== '_') continue;
    const end = text[close + 2] === '_' ? close + 3 : close + 2;
    const after = text[end];
    if (after !== undefined && /\w/.test(after)) continue;
    out += text.slice(pos, start) + text.slice(start + 1, close);
    pos = end;
    from = pos;
  }
  return out + text.slice(pos);
}

import { closesFence, closingLine, type Fence, indentWidth, openFence } from './fences.js';
import { splitFrontMatter } from './front-matter.js';

/** Options of {@link normalizeMarkdown}. */
export interface NormalizeOptions {
  /**
   * Returns the text of a file pulled in by an include directive (`{* path *}`, `{! path !}`,
   * `--8<-- "path"`), with `path` exactly as written in the page, or `undefined` when it is not available.
   * Without it, a block-level include becomes a one-line note naming the file, and an include inside a
   * code block is left as written.
   */
  resolveInclude?: (path: string) => string | undefined;
}

/**
 * Cleans documentation markdown from MkDocs, Docusaurus, VitePress and MDX sources into plain CommonMark
 * (+ GFM tables) that reads well for an agent and indexes well for search:
 *
 * - front matter, HTML comments, `<script>`/`<style>` blocks and MDX `import`/`export` lines are dropped;
 * - admonitions (`!!! note "Title"`, `??? tip`), pymdown blocks (`/// note | Title` … `///`), VitePress and
 *   Docusaurus containers (`::: tip` … `:::`), content tabs (`=== "Tab"`) and JSX components (`<Tab value="x">`,
 *   `<Callout>`) become a bold label line (`**Note: Title**`) followed by their dedented body;
 * - mkdocstrings directives (`::: pkg.module`) become `API reference: \`pkg.module\``;
 * - include directives are resolved through {@link NormalizeOptions.resolveInclude} or named;
 * - setext headings become ATX headings, reference-style links become inline links, fence info strings are
 *   reduced to the language (and a title), and fences left open are closed.
 *
 * Code blocks are never altered inside, except that a resolvable include line inside one is replaced by the
 * file's text.
 */
export function normalizeMarkdown(markdown: string, options: NormalizeOptions = {}): string {
  const { body } = splitFrontMatter(markdown.includes('\r') ? markdown.replace(/\r\n?/g, '\n') : markdown);
  const state: State = { refs: new Map(), resolveInclude: options.resolveInclude, depth: 0 };
  const lines = transform(body.split('\n'), state);
  return finish(lines, state.refs);
}

interface State {
  /** Link reference definitions, by lower-cased label. */
  refs: Map<string, string>;
  resolveInclude: ((path: string) => string | undefined) | undefined;
  /** Include nesting depth, to stop an include cycle. */
  depth: number;
}

const ADMONITION = /^([ \t]*)(?:!!!|\?\?\?\+?)[ \t]*(\S.*)$/;
const CONTENT_TAB = /^([ \t]*)===[!+]?[ \t]+"([^"]*)"[ \t]*$/;
// vitepress-plugin-tabs: `== Tab` (and `=== Tab` when nested) inside a `::: tabs` container.
const VITEPRESS_TAB = /^ {0,3}={2,}[ \t]+([^="\s][^=]*)$/;
const PYMDOWN_BLOCK = /^[ \t]*(\/{3,})[ \t]*([A-Za-z][\w-]*)[ \t]*(?:\|(.*))?$/;
const PYMDOWN_CLOSE = /^[ \t]*(\/{3,})[ \t]*$/;
const CONTAINER = /^([ \t]*)(:{3,}(?!:))(.*)$/;
// The patterns of this file match each line in linear time: a part that ends a line takes the rest (`(.*)$`) and is
// trimmed in code, rather than a lazy `(.*?)` before `[ \t]*$`, which retries every split of a run of spaces
// (quadratic or cubic in the line's length; the robustness package's ReDoS test checks every literal).
const INCLUDE_BLOCK = /^([ \t]*)\{\*(.*)\*\}[ \t]*$/;
const INCLUDE_MACRO = /^([ \t]*)\{!>?(.+)!\}[ \t]*$/;
const SNIPPET = /^([ \t]*);?-{2,}8<-{2,}[ \t]+["']?([^"'\s]+)["']?[ \t]*$/;
const LINK_REF_DEF = /^[ \t]*\[([^\]^\n][^\]\n]*)\]:[ \t]*<?(\S+?)>?(?:[ \t]+(?:"[^"]*"|'[^']*'|\([^)]*\)))?[ \t]*$/;
const ABBREVIATION = /^\*\[[^\]]+\]:/;
const MDX_IMPORT = /^import[ \t]+(?:[\w*${},][\w*${}\s,]*[ \t]from[ \t]+)?["'][^"']+["'];?[ \t]*$/;
const MDX_IMPORT_START = /^import[ \t]+(?:type[ \t]+)?\{[^}]*$/;
const MDX_EXPORT = /^export[ \t]+(?:const|let|var|function|default|async|class|\{)/;
// A self-closing tag's `/` is read by the attributes part when there are attributes (`<A x />`), else by `\/`
// (`<A/>`): one way to match each tag, so the repetition cannot backtrack exponentially (`<A\t/>` × 27 took 4.7 s).
const JSX_TAGS_LINE = /^[ \t]*(?:<\/?[A-Z][\w.]*(?:[ \t][^<>]*|\/)?>[ \t]*)+$/;
const JSX_TAG = /<(\/?)([A-Z][\w.]*)((?:[ \t][^<>]*?)?)(\/?)>/g;
const JSX_OPEN_UNFINISHED = /^[ \t]*<[A-Z][\w.]*(?:[ \t][^>]*)?$/;
const JSX_INLINE_BLOCK = /^([ \t]*)<([A-Z][\w.]*)((?:[ \t][^<>]*?)?)>(.*)<\/\2>[ \t]*$/;
const HTML_WRAPPER =
  /^[ \t]*<\/?(?:div|span|section|center|figure|figcaption|picture|details|p)(?:[ \t][^<>]*)?>[ \t]*$/i;
const HTML_SUMMARY = /^([ \t]*)<summary[^>]*>(.*)<\/summary>[ \t]*$/i;
const HTML_BREAK = /^[ \t]*<br[ \t]*\/?>[ \t]*$/i;
const RAW_BLOCK_START = /^[ \t]*<(script|style)(?:[\s>]|$)/i;
const SETEXT_UNDERLINE = /^ {0,3}(=+|-+)[ \t]*$/;
const TOC_MARKER = /^[ \t]*\[TOC\][ \t]*$/;
// A Python-Markdown attribute list standing alone on its line (`{#field-after-validator}`, `{: .note }`).
const ATTR_LIST_LINE = /^[ \t]*\{:?[ \t]*[#.][\w-][^{}]*\}[ \t]*$/;

const CONTAINER_TYPES: Record<string, string | null> = {
  tip: 'Tip',
  note: 'Note',
  info: 'Info',
  warning: 'Warning',
  danger: 'Danger',
  caution: 'Caution',
  important: 'Important',
  details: 'Details',
  // Grouping containers whose children carry their own labels.
  'code-group': null,
  tabs: null,
  // langgraph's per-language sections.
  python: 'Python',
  js: 'JavaScript',
  javascript: 'JavaScript',
  typescript: 'TypeScript',
};

const CALLOUT_TYPES: Record<string, string> = {
  warn: 'Warning',
  warning: 'Warning',
  error: 'Danger',
  danger: 'Danger',
  info: 'Info',
  tip: 'Tip',
  success: 'Tip',
  note: 'Note',
};

const CALLOUT_COMPONENTS = new Set(['Callout', 'Admonition', 'Aside', 'Note', 'Tip', 'Warning', 'Info', 'Danger']);

// Console transcripts in docs often carry terminal colours as HTML (`<font color="#4E9A06">`, `<span style=…>`):
// the markup is noise for search and for the agent reading the output.
const TERMINAL_BLOCK = /^(console|shell|shell-session|sh|bash|zsh|text|terminal)\b/i;
const TERMINAL_MARKUP = /<\/?(?:font|span|b|i|u|strong|em)(?:\s[^<>]*)?>/gi;

function stripTerminalMarkup(line: string): string {
  return line.includes('<') ? line.replace(TERMINAL_MARKUP, '') : line;
}

function transform(lines: string[], state: State): string[] {
  const out: string[] = [];
  let fence: Fence | null = null;
  // Index in `out` where the current paragraph starts (-1: not in a paragraph), for setext headings.
  let paraStart = -1;
  const pymdownStack: number[] = [];

  const emit = (line: string, paragraph = false): void => {
    if (paragraph) {
      if (paraStart === -1) paraStart = out.length;
    } else {
      paraStart = -1;
    }
    out.push(line);
  };
  // A label line stands as its own paragraph so it never runs into the body's first line.
  const emitLabel = (indent: string, label: string | null): void => {
    if (label) {
      if (out.length > 0 && out[out.length - 1] !== '') emit('');
      emit(indent + label);
      emit('');
    } else {
      paraStart = -1;
    }
  };
  const emitBlock = (block: string[], indent: string): void => {
    for (const l of block) emit(l ? indent + l : '');
  };
  // An admonition or a content tab: a label, then the block indented under line `at`, dedented and cleaned
  // in turn. Returns the index of the block's last line.
  const emitLabelledBlock = (at: number, indent: string, label: string | null): number => {
    const width = indentWidth(lines[at] as string) + 4;
    const { body, next } = collectIndented(lines, at + 1, width);
    emitLabel(indent, label);
    emitBlock(
      transform(
        body.map((l) => dedent(l, width)),
        state,
      ),
      indent,
    );
    emit('');
    return next - 1;
  };

  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] as string;

    if (fence) {
      if (closesFence(fence, line)) {
        fence = null;
        emit(line);
      } else {
        const included = includeInCode(line, state);
        if (included) for (const l of included) emit(l);
        else emit(TERMINAL_BLOCK.test(fence.info) ? stripTerminalMarkup(line) : line);
      }
      continue;
    }

    const opened = openFence(line);
    if (opened) {
      fence = opened;
      emit(cleanFenceLine(line, opened));
      continue;
    }

    const trimmed = line.trim();
    if (trimmed === '') {
      emit('');
      continue;
    }

    if (line.includes('<!--') && outsideCodeSpan(line, '<!--')) {
      const { text, next } = stripDelimited(lines, i, '<!--', '-->');
      i = next;
      if (text.trim() !== '') {
        // Re-run the rules on what is left of the line (often nothing).
        lines[i] = text;
        i -= 1;
      }
      continue;
    }

    if (line.includes('{/*') && outsideCodeSpan(line, '{/*')) {
      // MDX comments, possibly spanning lines and holding markup (even fences) that must not be parsed.
      const { text, next } = stripDelimited(lines, i, '{/*', '*/}');
      i = next;
      if (text.trim() !== '') {
        lines[i] = text;
        i -= 1;
      }
      continue;
    }

    if (plainTextStart(line, trimmed)) {
      // None of the rules below matches a line that starts with a letter or a digit (other than an MDX
      // `import`/`export` at the start of the line): each needs a marker character first.
      emit(line, isParagraphLine(line));
      continue;
    }

    const raw = RAW_BLOCK_START.exec(line);
    if (raw) {
      // A Vue/MDX <script> or <style> block: code for the site, not documentation. Unclosed, only its line goes.
      const end = new RegExp(`</${(raw[1] as string).toLowerCase()}\\s*>`, 'i');
      let j = i;
      while (j < lines.length && !end.test(lines[j] as string)) j += 1;
      if (j < lines.length) i = j;
      paraStart = -1;
      continue;
    }

    let m = ADMONITION.exec(line);
    if (m) {
      const indent = m[1] as string;
      const { type, title } = parseAdmonitionHeader(m[2] as string);
      if (type) {
        i = emitLabelledBlock(i, indent, admonitionLabel(type, title));
        continue;
      }
    }

    m = CONTENT_TAB.exec(line);
    if (m) {
      i = emitLabelledBlock(i, m[1] as string, m[2] ? `**${m[2]}**` : null);
      continue;
    }

    m = VITEPRESS_TAB.exec(line);
    if (m) {
      emitLabel('', `**${(m[1] as string).trim()}**`);
      continue;
    }

    m = PYMDOWN_BLOCK.exec(line);
    if (m) {
      pymdownStack.push((m[1] as string).length);
      emitLabel(leading(line), pymdownLabel(m[2] as string, m[3]));
      continue;
    }
    m = PYMDOWN_CLOSE.exec(line);
    if (m) {
      const at = pymdownStack.lastIndexOf((m[1] as string).length);
      if (at !== -1) pymdownStack.length = at;
      paraStart = -1;
      continue;
    }

    m = CONTAINER.exec(line);
    if (m) {
      const rest = trimBlanks(m[3] as string);
      if (rest === '') {
        paraStart = -1;
        continue;
      }
      const { label, skipOptions } = containerLabel(rest);
      emitLabel(m[1] as string, label);
      if (skipOptions) {
        // mkdocstrings options are a YAML block indented under the directive.
        const width = indentWidth(line) + 1;
        let j = i + 1;
        while (j < lines.length && (lines[j] as string).trim() !== '' && indentWidth(lines[j] as string) >= width) {
          j += 1;
        }
        i = j - 1;
      }
      continue;
    }

    const block = includeBlock(line);
    if (block) {
      const { indent, path, args } = block;
      const text = resolve(path, state);
      if (text !== undefined) emitBlock(codeBlock(selectLines(text, args), path), indent);
      else emit(`${indent}${includeNote('Code example', path)}`);
      continue;
    }

    const include = includeDirective(line);
    if (include) {
      const { indent, path } = include;
      const text = resolve(path, state);
      if (text !== undefined && state.depth < 5) {
        state.depth += 1;
        emitBlock(transform(text.replace(/\r\n?/g, '\n').split('\n'), state), indent);
        state.depth -= 1;
      } else {
        emit(`${indent}${includeNote('Included', path)}`);
      }
      continue;
    }

    if (MDX_IMPORT.test(line)) {
      paraStart = -1;
      continue;
    }
    if (MDX_IMPORT_START.test(line)) {
      let j = i;
      while (j < lines.length && j - i < 50 && !/\bfrom[ \t]+["']/.test(lines[j] as string)) j += 1;
      if (j < lines.length && j - i < 50) {
        i = j;
        paraStart = -1;
        continue;
      }
    }
    if (MDX_EXPORT.test(line)) {
      i = skipBalanced(lines, i);
      paraStart = -1;
      continue;
    }

    if (JSX_OPEN_UNFINISHED.test(line)) {
      // A component whose attributes span several lines: join them and treat it as one tag line.
      let j = i;
      let joined = line;
      while (j + 1 < lines.length && j - i < 40 && !/>[ \t]*$/.test(lines[j] as string)) {
        j += 1;
        joined += ` ${(lines[j] as string).trim()}`;
      }
      if (/>[ \t]*$/.test(joined) && JSX_TAGS_LINE.test(joined.replace(/\s+/g, ' '))) {
        emitLabel(leading(line), jsxLabel(joined.replace(/\s+/g, ' ')));
        i = j;
        continue;
      }
    }
    if (JSX_TAGS_LINE.test(line)) {
      emitLabel(leading(line), jsxLabel(line));
      continue;
    }
    m = JSX_INLINE_BLOCK.exec(line);
    if (m) {
      const label = jsxLabel(`<${m[2]}${m[3]}>`);
      emit(`${m[1]}${label ? `${label} ` : ''}${(m[4] as string).trim()}`);
      continue;
    }

    m = HTML_SUMMARY.exec(line);
    if (m) {
      const text = (m[2] as string).replace(/<[^<>]+>/g, '').trim();
      if (text) emit(`${m[1]}**${text}**`);
      continue;
    }
    if (
      HTML_WRAPPER.test(line) ||
      HTML_BREAK.test(line) ||
      TOC_MARKER.test(line) ||
      ABBREVIATION.test(line) ||
      ATTR_LIST_LINE.test(line)
    ) {
      paraStart = -1;
      continue;
    }

    m = LINK_REF_DEF.exec(line);
    if (m && paraStart === -1) {
      const label = normalizeLabel(m[1] as string);
      if (!state.refs.has(label)) state.refs.set(label, m[2] as string);
      continue;
    }

    if (paraStart !== -1 && SETEXT_UNDERLINE.test(line)) {
      const text = out
        .slice(paraStart)
        .map((l) => l.trim())
        .join(' ');
      out.length = paraStart;
      emit(`${trimmed.startsWith('=') ? '#' : '##'} ${text}`);
      continue;
    }

    emit(line, isParagraphLine(line));
  }

  if (fence) out.push(closingLine(fence));
  return out;
}

/**
 * Whether no block rule of {@link transform} can apply to `line` (`trimmed` is its trimmed text): it starts,
 * after its whitespace, with an ASCII letter or digit, and is not an MDX `import`/`export` line. Every rule's
 * pattern needs a marker first (`!`, `?`, `=`, `/`, `:`, `{`, `;`, `-`, `<`, `[`, `*`) or one of those words
 * at the start of the line.
 */
function plainTextStart(line: string, trimmed: string): boolean {
  const c = trimmed.charCodeAt(0);
  const alphanumeric = (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39);
  return alphanumeric && !line.startsWith('import') && !line.startsWith('export');
}

function isParagraphLine(line: string): boolean {
  if (indentWidth(line) >= 4) return false;
  const t = line.trim();
  if (t === '') return false;
  return (
    !/^(?:#{1,6}(?:\s|$)|[-*+](?:\s|$)|\d{1,9}[.)](?:\s|$)|>|\||<)/.test(t) && !/^[-*_](?:[ \t]*[-*_]){2,}$/.test(t)
  );
}

function leading(line: string): string {
  return /^[ \t]*/.exec(line)?.[0] ?? '';
}

/** Removes `cols` columns of leading whitespace (a tab counts as four). */
function dedent(line: string, cols: number): string {
  let i = 0;
  let width = 0;
  while (i < line.length && width < cols) {
    const ch = line[i];
    if (ch === ' ') width += 1;
    else if (ch === '\t') width += 4;
    else break;
    i += 1;
  }
  return line.slice(i);
}

/** The body of an indented container: following lines that are blank or indented at least `width`. */
function collectIndented(lines: string[], start: number, width: number): { body: string[]; next: number } {
  let last = start - 1;
  let fence: Fence | null = null;
  for (let j = start; j < lines.length; j += 1) {
    const l = lines[j] as string;
    if (fence) {
      // Inside a code block in the body, only a closing fence at the body's indentation matters.
      if (closesFence(fence, l)) fence = null;
      last = j;
      continue;
    }
    if (l.trim() === '') continue;
    if (indentWidth(l) < width) break;
    fence = openFence(l);
    last = j;
  }
  return { body: lines.slice(start, last + 1), next: last + 1 };
}

function parseAdmonitionHeader(rest: string): { type: string | undefined; title: string | undefined } {
  // `!!! note "Title"`, `!!!info  "Title"`, `!!! tip inline end`, and `??? "Title"` (no type: a note).
  const m = /^(?:([A-Za-z][\w-]*)((?:[ \t]+[A-Za-z][\w-]*)*))?(?:[ \t]*"(.*)")?[ \t]*$/.exec(rest.trim());
  if (!m || (m[1] === undefined && m[3] === undefined)) return { type: undefined, title: undefined };
  return { type: m[1] ?? 'note', title: m[3] };
}

function titleCase(type: string): string {
  const words = type.replace(/[-_]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function admonitionLabel(type: string, title: string | undefined): string | null {
  // `!!! note ""` is an admonition without a title bar: only the body shows.
  if (title === '') return null;
  const name = titleCase(type);
  if (title === undefined) return `**${name}**`;
  if (title.toLowerCase().startsWith(type.toLowerCase())) return `**${title}**`;
  return `**${name}: ${title}**`;
}

function pymdownLabel(type: string, title: string | undefined): string | null {
  const t = type.toLowerCase();
  const text = title?.trim();
  if (t === 'tab' || t === 'details' || t === 'html' || t === 'admonition') {
    return text ? `**${text}**` : t === 'details' ? '**Details**' : null;
  }
  return admonitionLabel(type, text || undefined);
}

function containerLabel(rest: string): { label: string | null; skipOptions: boolean } {
  const m = /^([\w-]+)(?:[ \t](.*))?$/.exec(rest) ?? /^\{?\.?([\w-]+)\}?(?:[ \t](.*))?$/.exec(rest);
  const word = m?.[1];
  if (!word) {
    // An mkdocstrings directive with a dotted path: `::: pydantic.main.BaseModel`.
    if (/^[A-Za-z_][\w.]*$/.test(rest)) return { label: `API reference: \`${rest}\``, skipOptions: true };
    return { label: null, skipOptions: false };
  }
  const known = CONTAINER_TYPES[word.toLowerCase()];
  const title = m?.[2]?.replace(/<[^<>]+>/g, '').trim();
  if (known !== undefined) {
    if (known === null) return { label: null, skipOptions: false };
    if (!title) return { label: `**${known}**`, skipOptions: false };
    return { label: admonitionLabel(known, title), skipOptions: false };
  }
  if (!m?.[2] && /[._]/.test(word)) return { label: `API reference: \`${word}\``, skipOptions: true };
  return { label: admonitionLabel(word, title || undefined), skipOptions: false };
}

function jsxLabel(line: string): string | null {
  const labels: string[] = [];
  for (const tag of line.matchAll(JSX_TAG)) {
    if (tag[1] || tag[4]) continue; // closing and self-closing tags carry no text worth keeping
    const name = tag[2] as string;
    const attrs = tag[3] ?? '';
    const attr = (key: string): string | undefined =>
      new RegExp(`\\b${key}=(?:"([^"]*)"|'([^']*)'|\\{["'\`]([^"'\`]*)["'\`]\\})`).exec(attrs)?.slice(1).find(Boolean);
    const text = attr('title') ?? attr('value') ?? attr('label') ?? attr('summary');
    if (CALLOUT_COMPONENTS.has(name)) {
      const kind = CALLOUT_TYPES[(attr('type') ?? name).toLowerCase()] ?? 'Note';
      labels.push(text ? `**${kind}: ${text}**` : `**${kind}**`);
    } else if (text) {
      labels.push(`**${text}**`);
    }
  }
  return labels.length ? labels.join(' ') : null;
}

/** Whether the first `marker` on the line is outside inline code (an even number of backticks before it). */
function outsideCodeSpan(line: string, marker: string): boolean {
  const before = line.slice(0, line.indexOf(marker));
  return (before.match(/`/g)?.length ?? 0) % 2 === 0;
}

/** Per line array and closer: the line from which on no closer is left (so unclosed openers cost nothing more). */
const noCloserFrom = new WeakMap<string[], Map<string, number>>();

/**
 * Removes comments (`<!-- -->`, MDX `{/* *\/}`) starting on line `i`, possibly spanning lines. An opener
 * that is never closed is dropped alone rather than swallowing the rest of the page. Linear: the text is read
 * once with a cursor, and a search for a closer in the following lines that failed is not repeated (a page of
 * unclosed `<!--` lines took seconds when each opener re-joined and re-searched the rest of the page).
 */
function stripDelimited(lines: string[], i: number, open: string, close: string): { text: string; next: number } {
  let memo = noCloserFrom.get(lines);
  if (!memo) {
    memo = new Map();
    noCloserFrom.set(lines, memo);
  }
  let line = lines[i] as string;
  let j = i;
  let pos = 0;
  let text = '';
  for (;;) {
    const start = line.indexOf(open, pos);
    if (start === -1) {
      text += line.slice(pos);
      break;
    }
    text += line.slice(pos, start);
    const end = line.indexOf(close, start + open.length);
    if (end !== -1) {
      pos = end + close.length;
      continue;
    }
    // a closer never spans lines: look for it in the lines that follow
    let k = j + 1;
    let found = -1;
    if (k < (memo.get(close) ?? Number.POSITIVE_INFINITY)) {
      for (; k < lines.length; k += 1) {
        found = (lines[k] as string).indexOf(close);
        if (found !== -1) break;
      }
      if (found === -1) memo.set(close, j + 1);
    }
    if (found === -1) {
      // never closed: the opener alone goes
      pos = start + open.length;
      continue;
    }
    line = lines[k] as string;
    pos = found + close.length;
    j = k;
  }
  // Whatever followed the comment on its last line is processed as that line.
  return { text, next: j };
}

function skipBalanced(lines: string[], i: number): number {
  let depth = 0;
  for (let j = i; j < lines.length && j - i < 200; j += 1) {
    for (const ch of lines[j] as string) {
      if (ch === '{' || ch === '(' || ch === '[') depth += 1;
      else if (ch === '}' || ch === ')' || ch === ']') depth -= 1;
    }
    if (depth <= 0) return j;
  }
  return i;
}

function resolve(path: string, state: State): string | undefined {
  try {
    return state.resolveInclude?.(path);
  } catch {
    return undefined;
  }
}

function includeInCode(line: string, state: State): string[] | null {
  if (!state.resolveInclude) return null;
  const m = includeDirective(line);
  if (!m) return null;
  const text = resolve(m.path, state);
  if (text === undefined) return null;
  const indent = m.indent;
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => (l ? indent + l : ''));
}

/** `s` without the spaces and tabs at either end (a scan, for text a pattern left untrimmed). */
function trimBlanks(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && (s.charCodeAt(a) === 0x20 || s.charCodeAt(a) === 0x09)) a += 1;
  while (b > a && (s.charCodeAt(b - 1) === 0x20 || s.charCodeAt(b - 1) === 0x09)) b -= 1;
  return a === 0 && b === s.length ? s : s.slice(a, b);
}

/** A code include `{* path args *}` standing alone on its line: its indentation, path and the arguments after it. */
function includeBlock(line: string): { indent: string; path: string; args: string } | null {
  const m = INCLUDE_BLOCK.exec(line);
  if (!m) return null;
  const inner = trimBlanks(m[2] as string);
  let end = 0;
  while (end < inner.length && !/\s/.test(inner.charAt(end))) end += 1;
  if (end === 0) return null;
  return { indent: m[1] as string, path: inner.slice(0, end), args: inner.slice(end) };
}

/** An include line (`{! path !}`, `{!> path !}`, `--8<-- "path"`): its indentation and path. */
function includeDirective(line: string): { indent: string; path: string } | null {
  const m = INCLUDE_MACRO.exec(line);
  if (m) {
    const path = trimBlanks(m[2] as string);
    return path ? { indent: m[1] as string, path } : null;
  }
  const s = SNIPPET.exec(line);
  return s ? { indent: s[1] as string, path: s[2] as string } : null;
}

function displayPath(path: string): string {
  return path.replace(/^(?:\.\.?\/)+/, '');
}

function includeNote(kind: string, path: string): string {
  return `_${kind}: \`${displayPath(path)}\` (not inlined)_`;
}

const LANGUAGE_BY_EXTENSION: Record<string, string> = {
  py: 'python',
  ts: 'ts',
  tsx: 'tsx',
  js: 'js',
  mjs: 'js',
  jsx: 'jsx',
  json: 'json',
  toml: 'toml',
  yaml: 'yaml',
  yml: 'yaml',
  sh: 'bash',
  md: 'markdown',
  html: 'html',
  css: 'css',
  sql: 'sql',
  txt: '',
};

/** The file's text as a fenced block whose fence is longer than any backtick run inside it. */
function codeBlock(text: string, path: string): string[] {
  const ext = /\.([\w]+)$/.exec(path)?.[1]?.toLowerCase() ?? '';
  const lang = LANGUAGE_BY_EXTENSION[ext] ?? ext;
  const longest = Math.max(0, ...(text.match(/`{3,}/g) ?? []).map((s) => s.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x0a) end -= 1;
  return [`${fence}${lang}`, ...text.slice(0, end).split('\n'), fence];
}

/** Applies fastapi's `ln[1:5,10]` line selection to an included file (1-based, inclusive). */
function selectLines(text: string, args: string): string {
  const m = /\bln\[([^[\]]*)\]/.exec(args);
  if (!m) return text;
  const all = text.replace(/\r\n?/g, '\n').split('\n');
  const picked: string[] = [];
  for (const part of (m[1] as string).split(',')) {
    const [a, b] = part.split(':').map((s) => s.trim());
    const from = a ? Number.parseInt(a, 10) : 1;
    const to = b === undefined ? from : b ? Number.parseInt(b, 10) : all.length;
    if (Number.isNaN(from) || Number.isNaN(to)) continue;
    if (picked.length) picked.push('...');
    picked.push(...all.slice(Math.max(0, from - 1), to));
  }
  return picked.length ? picked.join('\n') : text;
}

/** Reduces a fence's info string to the language plus a `title` when one was given. */
function cleanFenceLine(line: string, fence: Fence): string {
  const info = fence.info;
  if (info === '') return line;
  const title = /\btitle=["']([^"']*)["']/.exec(info)?.[1] ?? /\[([^[\]]+)\]/.exec(info)?.[1];
  let lang = info.split(/\s+/)[0] ?? '';
  if (lang.includes('=')) lang = '';
  lang = lang
    .replace(/^\{?\.?/, '')
    .replace(/[{}:[\]].*$/, '')
    .toLowerCase();
  const marker = fence.char.repeat(fence.length);
  return `${leading(line)}${marker}${lang}${title ? ` title="${title}"` : ''}`;
}

function normalizeLabel(label: string): string {
  return label.trim().replace(/\s+/g, ' ').toLowerCase();
}

// `[text][label]`, `[text][]` and `[label]` (shortcut), where text may hold one level of brackets.
const REF_LINK = /(!?)\[((?:[^[\]]|\[[^[\]]*\])*)\](?:\[([^[\]]*)\])?(?![([:])/g;

/**
 * The code spans of a line as `[start, end)` offsets: a run of backticks opens one, closed by the next run of the
 * same length. A scan in linear time (the regex `(`+)[\s\S]*?\1` was cubic in a long run of backticks).
 */
function codeSpans(line: string): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  for (let i = 0; i < line.length; ) {
    if (line.charCodeAt(i) !== 0x60) {
      i += 1;
      continue;
    }
    let j = i;
    while (j < line.length && line.charCodeAt(j) === 0x60) j += 1;
    runs.push([i, j - i]);
    i = j;
  }
  // next[k]: the index of the next run as long as run k, or -1
  const next = new Array<number>(runs.length).fill(-1);
  const seen = new Map<number, number>();
  for (let k = runs.length - 1; k >= 0; k -= 1) {
    const length = (runs[k] as [number, number])[1];
    next[k] = seen.get(length) ?? -1;
    seen.set(length, k);
  }
  const spans: Array<[number, number]> = [];
  for (let k = 0; k < runs.length; ) {
    const close = next[k] as number;
    if (close === -1) {
      k += 1;
      continue;
    }
    const [start] = runs[k] as [number, number];
    const [at, length] = runs[close] as [number, number];
    spans.push([start, at + length]);
    k = close + 1;
  }
  return spans;
}

function resolveRefLinks(line: string, refs: Map<string, string>): string {
  if (!line.includes('[')) return line;
  // Without definitions only a full reference (`[text][label]`) changes (it becomes its text), and it has `][`.
  if (refs.size === 0 && !line.includes('][')) return line;
  const spans = codeSpans(line);
  const inCode = (at: number): boolean => spans.some(([a, b]) => at >= a && at < b);
  return line.replace(REF_LINK, (whole, bang: string, text: string, ref: string | undefined, offset: number) => {
    if (inCode(offset)) return whole;
    const label = normalizeLabel(ref ? ref : text);
    if (ref === undefined && !refs.has(label)) return whole;
    const url = refs.get(label);
    if (url !== undefined) return `${bang}[${text}](${url})`;
    // A full reference without a definition is a cross-reference (mkdocs-autorefs:
    // `[BaseModel][pydantic.main.BaseModel]`, `[class method][classmethod]`) whose target is not here: keep the text.
    if (ref) return text;
    return whole;
  });
}

/**
 * The line without its trailing spaces and tabs, keeping a hard break (two or more spaces) as two spaces. A scan
 * from the end: `/[ \t]+$/` retries from every space of a long run that does not end the line (quadratic: 100,000
 * spaces then `x ` took 11–15 s).
 */
function trimTrailingSpace(line: string): string {
  let end = line.length;
  while (end > 0) {
    const c = line.charCodeAt(end - 1);
    if (c !== 0x20 && c !== 0x09) break;
    end -= 1;
  }
  if (end === line.length) return line;
  return line.length - end >= 2 ? `${line.slice(0, end)}  ` : line.slice(0, end);
}

/** Resolves reference links outside code and collapses runs of blank lines. */
function finish(lines: string[], refs: Map<string, string>): string {
  const out: string[] = [];
  let fence: Fence | null = null;
  for (const line of lines) {
    if (fence) {
      if (closesFence(fence, line)) fence = null;
      out.push(line);
      continue;
    }
    const opened = openFence(line);
    if (opened) {
      fence = opened;
      out.push(line);
      continue;
    }
    if (line.trim() === '') {
      if (out.length > 0 && out[out.length - 1] !== '') out.push('');
      continue;
    }
    out.push(resolveRefLinks(trimTrailingSpace(line), refs));
  }
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out.join('\n');
}

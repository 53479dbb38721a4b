import { ProContextError } from '@pro-context/kernel';

/**
 * Per-page limits of page conversion (HTML to markdown, normalization, chunking): fetched content is hostile, and
 * one page must never cost the server more than a small, known amount of time and memory.
 */
export interface PageLimits {
  /** Largest page, in characters of its text (about its bytes): a longer page is refused before parsing. */
  maxBytes: number;
  /** Longest line of a markdown or text page, in characters (HTML is often one long line: not checked). */
  maxLineLength: number;
  /** Deepest nesting of HTML elements (a linear pre-scan of the tags, before parsing). */
  maxDepth: number;
  /**
   * Most HTML elements in one page (counted by the same pre-scan; the tags inside `<pre>` are not counted: they
   * are stripped before parsing). Conversion costs some kilobytes per element (the DOM, then turndown's copy).
   */
  maxNodes: number;
  /** Time one page's conversion may take in the page worker, ms: past it the worker is stopped. */
  timeBudgetMs: number;
}

/** The defaults of {@link PageLimits}. */
export const DEFAULT_PAGE_LIMITS: Readonly<PageLimits> = Object.freeze({
  maxBytes: 5_000_000,
  maxLineLength: 100_000,
  maxDepth: 256,
  maxNodes: 30_000,
  timeBudgetMs: 10_000,
});

/** The setting that raises each limit (the engine's options, section `engine`). */
export const PAGE_LIMIT_SETTINGS: Readonly<Record<keyof PageLimits, string>> = Object.freeze({
  maxBytes: 'engine.pages.maxBytes',
  maxLineLength: 'engine.pages.maxLineLength',
  maxDepth: 'engine.pages.maxDepth',
  maxNodes: 'engine.pages.maxNodes',
  timeBudgetMs: 'engine.pages.timeBudgetMs',
});

/** The error a page over one of its limits raises: `PAGE_TOO_LARGE` (bytes) or `PAGE_TOO_COMPLEX` (the rest). */
export function pageLimitError(
  url: string,
  limit: keyof PageLimits | 'memory',
  value: number | undefined,
  limits: PageLimits,
  what?: string,
): ProContextError {
  // (the element count is what a conversion's memory grows with: the setting that bounds it)
  const setting = limit === 'memory' ? PAGE_LIMIT_SETTINGS.maxNodes : PAGE_LIMIT_SETTINGS[limit];
  const max = limit === 'memory' ? undefined : limits[limit];
  const describe: Record<keyof PageLimits | 'memory', string> = {
    maxBytes: `is ${value} characters long, over the limit of ${max}`,
    maxLineLength: `has a line of ${value} characters, over the limit of ${max}`,
    maxDepth: `nests HTML elements ${value} deep, over the limit of ${max}`,
    maxNodes: `has ${value} HTML elements, over the limit of ${max}`,
    timeBudgetMs: `took more than ${max} ms to convert`,
    memory: 'ran out of the memory a page may take while being converted',
  };
  const text = `The page ${url} ${what ?? describe[limit]} (setting ${setting}), so it was not converted.`;
  return new ProContextError(limit === 'maxBytes' ? 'PAGE_TOO_LARGE' : 'PAGE_TOO_COMPLEX', text, {
    details: { url, limit, setting, ...(max === undefined ? {} : { max }), ...(value === undefined ? {} : { value }) },
  });
}

/**
 * The `PAGE_TOO_LARGE` of a page whose fetch was cut at `maxBytes` (an `HttpClient` request with
 * `maxBodyBytes: limits.maxBytes` fails with `INVALID_CONTENT` and that cap in its details, before the body is held),
 * else `undefined`.
 */
export function oversizeBody(error: unknown, url: string, limits: PageLimits): ProContextError | undefined {
  const e = error as { code?: unknown; details?: { maxBodyBytes?: unknown } } | null;
  if (e?.code !== 'INVALID_CONTENT' || e.details?.maxBodyBytes !== limits.maxBytes) return undefined;
  return pageLimitError(
    url,
    'maxBytes',
    undefined,
    limits,
    `is larger than the limit of ${limits.maxBytes} bytes (it was not read further)`,
  );
}

/** Limits with defaults filled in. */
export function pageLimits(given: Partial<PageLimits> = {}): PageLimits {
  const out = { ...DEFAULT_PAGE_LIMITS };
  for (const key of Object.keys(out) as (keyof PageLimits)[]) {
    const value = given[key];
    if (typeof value === 'number' && Number.isFinite(value) && value > 0) out[key] = value;
  }
  return out;
}

/** Throws the limit a markdown or text page is over (size, then line length): one pass over its text. */
export function checkTextPage(text: string, url: string, limits: PageLimits): void {
  if (text.length > limits.maxBytes) throw pageLimitError(url, 'maxBytes', text.length, limits);
  let start = 0;
  for (;;) {
    const end = text.indexOf('\n', start);
    const length = (end < 0 ? text.length : end) - start;
    if (length > limits.maxLineLength) throw pageLimitError(url, 'maxLineLength', length, limits);
    if (end < 0) return;
    start = end + 1;
  }
}

// Elements without content (no closing tag) and those whose content is raw text (no tags inside).
const VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
  'keygen',
  '!doctype',
]);
// (`pre` too: the conversion strips the tags inside a `<pre>` as text before parsing, so they never become nodes)
const RAW_TEXT = new Set([
  'script',
  'style',
  'textarea',
  'title',
  'xmp',
  'iframe',
  'noembed',
  'noframes',
  'plaintext',
  'pre',
]);
// An open element that the opening of another closes without its end tag (the usual HTML shorthands: `<li>` after
// `<li>`, `<p>` before a block): the same rules as the HTML parser's, in the cases that matter for depth.
const BLOCKS_CLOSING_P = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'details',
  'div',
  'dl',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'table',
  'ul',
]);
const IMPLIED_CLOSE: Record<string, readonly string[]> = {
  li: ['li'],
  dt: ['dt', 'dd'],
  dd: ['dt', 'dd'],
  tr: ['tr', 'td', 'th'],
  td: ['td', 'th'],
  th: ['td', 'th'],
  thead: ['tbody', 'tfoot', 'tr', 'td', 'th'],
  tbody: ['thead', 'tbody', 'tr', 'td', 'th'],
  tfoot: ['thead', 'tbody', 'tr', 'td', 'th'],
  option: ['option'],
  optgroup: ['optgroup', 'option'],
  rt: ['rt', 'rp'],
  rp: ['rt', 'rp'],
};

/** What {@link scanHtml} measured. */
export interface HtmlShape {
  /** Deepest nesting of elements. */
  depth: number;
  /** Start tags (elements). */
  nodes: number;
}

/**
 * The element depth and count of an HTML page, read from its tags in one pass (no DOM, constant work per
 * character): comments, raw-text elements and quoted attribute values are skipped as a parser would; end tags
 * close up to their element when it is open, and the HTML shorthands that close elements implicitly are applied.
 * Stops early once `stopAt` is exceeded (the page is refused anyway).
 */
export function scanHtml(html: string, stopAt?: Partial<HtmlShape>): HtmlShape {
  const stack: string[] = [];
  const open = new Map<string, number>();
  let depth = 0;
  let nodes = 0;
  const push = (name: string) => {
    stack.push(name);
    open.set(name, (open.get(name) ?? 0) + 1);
    if (stack.length > depth) depth = stack.length;
  };
  const pop = () => {
    const name = stack.pop() as string;
    open.set(name, (open.get(name) ?? 1) - 1);
    return name;
  };
  const n = html.length;
  let i = 0;
  while (i < n) {
    const lt = html.indexOf('<', i);
    if (lt < 0 || lt + 1 >= n) break;
    const next = html.charCodeAt(lt + 1);
    if (next === 33 /* ! */) {
      if (html.startsWith('<!--', lt)) {
        const end = html.indexOf('-->', lt + 4);
        i = end < 0 ? n : end + 3;
      } else {
        const end = html.indexOf('>', lt + 2);
        i = end < 0 ? n : end + 1;
      }
      continue;
    }
    const closing = next === 47; /* / */
    let j = closing ? lt + 2 : lt + 1;
    const nameStart = j;
    while (j < n) {
      const c = html.charCodeAt(j);
      // letters, digits, '-', ':', '_', '.'
      if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 45 || c === 58 || c === 95)
        j += 1;
      else break;
    }
    if (j === nameStart) {
      i = lt + 1; // a lone '<' is text
      continue;
    }
    const name = html.slice(nameStart, j).toLowerCase();
    // the tag's end, quoted attribute values skipped
    let quote = 0;
    let k = j;
    for (; k < n; k += 1) {
      const c = html.charCodeAt(k);
      if (quote) {
        if (c === quote) quote = 0;
      } else if (c === 34 || c === 39) quote = c;
      else if (c === 62 /* > */) break;
    }
    const selfClosing = k > j && html.charCodeAt(k - 1) === 47;
    i = k + 1;
    if (closing) {
      if ((open.get(name) ?? 0) > 0) while (stack.length > 0 && pop() !== name);
      continue;
    }
    nodes += 1;
    if (stopAt?.nodes !== undefined && nodes > stopAt.nodes) return { depth, nodes };
    const implied = IMPLIED_CLOSE[name];
    if (implied) {
      const top = stack[stack.length - 1];
      if (top && implied.includes(top)) pop();
      // a cell's row, a row's section: one more level may close (`<td>…<tr>` closes the cell, then the row)
      const again = stack[stack.length - 1];
      if (again && implied.includes(again)) pop();
    }
    if (BLOCKS_CLOSING_P.has(name) && stack[stack.length - 1] === 'p') pop();
    if (VOID.has(name) || selfClosing) continue;
    if (RAW_TEXT.has(name)) {
      const end = indexOfCaseless(html, `</${name}`, i);
      i = end < 0 ? n : end;
      continue;
    }
    push(name);
    if (stopAt?.depth !== undefined && depth > stopAt.depth) return { depth, nodes };
  }
  return { depth, nodes };
}

/** `indexOf` of an ASCII lower-case needle, ignoring the case of the haystack. */
function indexOfCaseless(text: string, needle: string, from: number): number {
  for (let at = text.indexOf('<', from); at >= 0; at = text.indexOf('<', at + 1)) {
    let ok = true;
    for (let m = 1; m < needle.length; m += 1) {
      // (ASCII letters to lower case; '/', '-' and digits already have the bit)
      if ((text.charCodeAt(at + m) | 0x20) !== needle.charCodeAt(m)) {
        ok = false;
        break;
      }
    }
    if (ok) return at;
  }
  return -1;
}

/** Throws the limit an HTML page is over (size, then nesting depth and element count, by {@link scanHtml}). */
export function checkHtmlPage(html: string, url: string, limits: PageLimits): void {
  if (html.length > limits.maxBytes) throw pageLimitError(url, 'maxBytes', html.length, limits);
  const shape = scanHtml(html, { depth: limits.maxDepth, nodes: limits.maxNodes });
  if (shape.depth > limits.maxDepth) {
    throw pageLimitError(url, 'maxDepth', undefined, limits, `nests HTML elements more than ${limits.maxDepth} deep`);
  }
  if (shape.nodes > limits.maxNodes) {
    throw pageLimitError(url, 'maxNodes', undefined, limits, `has more than ${limits.maxNodes} HTML elements`);
  }
}

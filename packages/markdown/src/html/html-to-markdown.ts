/// <reference path="./turndown-plugin-gfm.d.ts" />
import { gfm } from '@joplin/turndown-plugin-gfm';
import { isProbablyReaderable, Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import { slugify } from '../markdown/slug.js';
import type { DomDocument, DomElement, DomNode } from './dom.js';
import {
  breakBetweenEcLines,
  firstElementInner,
  replaceElements,
  stripComments,
  stripElements,
  trimEndOf,
} from './strip.js';

/** The main content of an HTML page as markdown. */
export interface HtmlToMarkdownResult {
  /** The page's title: its H1, else `og:title`, else `<title>` without the site name. */
  title: string;
  /** Markdown of the main content only (no navigation, sidebars, footers), starting with `# title`. */
  markdown: string;
  /**
   * Every link of the whole page (navigation included), absolute, without fragment, in document order and
   * once each: what a crawler follows. `<a href>` only; `rel=nofollow` links are left out.
   */
  links: string[];
}

// Site chrome that is never documentation: navigation, search, permalinks, edit links, copy buttons, for
// MkDocs (Material), Docusaurus, VitePress, Sphinx/Read the Docs and generic class names. Matched by one tree
// walk: a selector list this long costs linkedom more than the rest of a conversion.
const CHROME_TAGS = new Set([
  'SCRIPT',
  'STYLE',
  'NOSCRIPT',
  'TEMPLATE',
  'IFRAME',
  'OBJECT',
  'EMBED',
  'FORM',
  'BUTTON',
  'INPUT',
  'SELECT',
  'TEXTAREA',
  'SVG',
  'CANVAS',
  'DIALOG',
  'NAV',
  // Starlight's custom elements: the page's table of contents, mobile menu and theme/language pickers.
  'STARLIGHT-TOC',
  'MOBILE-STARLIGHT-TOC',
  'STARLIGHT-MENU-BUTTON',
  'STARLIGHT-THEME-SELECT',
  'STARLIGHT-LANG-SELECT',
  'SITE-SEARCH',
]);
const CHROME_ROLES = new Set(['navigation', 'search', 'banner', 'contentinfo']);
// Mintlify marks its chrome by id: the side navigation, top bar, page TOC, prev/next links, feedback and footer.
const CHROME_IDS = new Set([
  'toc',
  'sidebar',
  'navbar',
  'table-of-contents',
  'table-of-contents-content',
  'pagination',
  'footer',
  'page-context-menu',
]);
const CHROME_CLASSES = new Set([
  'headerlink',
  'header-anchor',
  'hash-link',
  'anchor-link',
  'anchorjs-link',
  'linenos',
  'linenodiv',
  'md-header',
  'md-tabs',
  'md-sidebar',
  'md-footer',
  'md-search',
  'md-source-file',
  'md-content__button',
  'md-clipboard',
  'md-feedback',
  'md-top',
  'md-dialog',
  'md-banner',
  'md-announce',
  'sidebar',
  'sphinxsidebar',
  'toc',
  'table-of-contents',
  'theme-doc-toc-mobile',
  'theme-doc-footer',
  'theme-edit-this-page',
  'theme-last-updated',
  'pagination-nav',
  'breadcrumbs',
  'breadcrumb',
  'VPNav',
  'VPSidebar',
  'VPLocalNav',
  'VPDocFooter',
  'VPDocAside',
  'edit-link',
  'skip-link',
  'rst-footer-buttons',
  'wy-nav-side',
  'related',
  'footer',
  'cookie-banner',
  // Docusaurus
  'theme-doc-breadcrumbs',
  'theme-doc-version-badge',
  'theme-doc-version-banner',
  'theme-doc-toc-desktop',
  // VitePress
  'VPDocOutlineDropdown',
  'prev-next',
  // Sphinx themes (Furo, PyData, Read the Docs)
  'edit-this-page',
  'view-this-page',
  'content-icon-container',
  'toc-drawer',
  'sidebar-drawer',
  'mobile-header',
  'related-pages',
  'bd-sidebar-primary',
  'bd-sidebar-secondary',
  'bd-header-article',
  'prev-next-area',
  'wy-breadcrumbs-aside',
  'version-switcher__container',
  // Starlight
  'pagination-links',
  'sl-anchor-link',
  'right-sidebar-container',
  'sl-banner',
  'sl-skip-link',
  // Mintlify
  'feedback-toolbar',
  // MkDocs Material version picker (when outside the header)
  'md-version',
]);

function isChrome(el: DomElement): boolean {
  if (CHROME_TAGS.has(el.nodeName.toUpperCase())) return true;
  const role = el.getAttribute('role');
  if (role && CHROME_ROLES.has(role)) return true;
  const id = el.getAttribute('id');
  if (id && CHROME_IDS.has(id)) return true;
  const cls = el.getAttribute('class');
  if (cls) for (const c of cls.split(/\s+/)) if (CHROME_CLASSES.has(c)) return true;
  // VitePress writes a code block's language as a label beside its <pre> (`<span class="lang">ts</span>`).
  if (el.nodeName === 'SPAN' && cls === 'lang' && /\blanguage-/.test(el.parentElement?.getAttribute('class') ?? ''))
    return true;
  return false;
}

/** Removes site chrome below `root` in one walk. */
function removeChrome(root: DomElement): void {
  const doomed: DomElement[] = [];
  const walk = (el: DomElement): void => {
    for (const child of Array.from(el.children)) {
      if (isChrome(child)) doomed.push(child);
      else walk(child);
    }
  };
  walk(root);
  for (const el of doomed) el.remove();
}

// Containers that hold a documentation page's content, most specific first.
const CONTENT_ROOTS = [
  'article.md-content__inner',
  '.md-content article',
  '.theme-doc-markdown',
  '.vp-doc',
  '#content-area',
  '.rst-content [role=main]',
  '[role=main] .body',
  'div.body[role=main]',
  '[itemprop=articleBody]',
  '.markdown-body',
  'main article',
  'article',
  'main',
  '[role=main]',
  '#content',
  '#main-content',
  '.content',
  '.markdown',
  '.docs-content',
  '.document',
];

/**
 * Converts an HTML page to markdown of its main content: the documentation, not the site around it.
 *
 * A known documentation container (MkDocs Material's article, Docusaurus, VitePress, Sphinx, `<main>`,
 * `<article>`) is used when the page has one; otherwise Readability extracts the content when the page looks
 * readable (it returns navigation text on short pages, hence the gate), and the body is the last resort.
 * Links and images are made absolute against `baseUrl` (and a `<base href>`), code blocks keep their
 * language, tables become GFM tables, admonition titles and content tabs stay readable, and the H1 is kept
 * (or added from the title) so the markdown starts with `# title`.
 */
export function htmlToMarkdown(html: string, baseUrl: string): HtmlToMarkdownResult {
  const slim = slimHtml(html);
  const source = /<html[\s>]/i.test(slim) ? slim : `<!DOCTYPE html><html><head></head><body>${slim}</body></html>`;
  const { document: parsed } = parseHTML(source) as unknown as { document: DomDocument };
  // A page that is all one unclosed comment (`<!-- … <html>`) parses to no root element, and linkedom's `title`,
  // `head` and `body` getters then throw (found by fuzzing): such a page has no content.
  const document = (parsed as { documentElement?: unknown }).documentElement
    ? parsed
    : (parseHTML('<!DOCTYPE html><html><head></head><body></body></html>') as unknown as { document: DomDocument })
        .document;

  const base = resolveBase(document, baseUrl);
  absolutizeLinks(document, base);
  const links = pageLinks(document);
  const pageTitle = documentTitle(document);

  let root = findContentRoot(document);
  // Turndown takes the element itself when there is one, sparing it a second parse of the same HTML.
  let content: string | DomElement;
  let contentHtml: string;
  if (root) {
    cleanTree(root, document);
    content = root;
    contentHtml = '';
  } else if (isProbablyReaderable(document as never)) {
    const clone = document.cloneNode(true);
    if (clone.body) removeChrome(clone.body);
    if (clone.body) flattenCodeBlocks(clone.body);
    const article = readable(clone);
    contentHtml = typeof article?.content === 'string' ? article.content : '';
    content = contentHtml;
    if (!contentHtml && document.body) {
      root = document.body;
      cleanTree(root, document);
      content = root;
    }
  } else {
    root = document.body;
    if (root) cleanTree(root, document);
    content = root ?? '';
    contentHtml = '';
  }

  const h1 = typeof content === 'string' ? firstHeadingText(contentHtml) : elementHeadingText(content);
  const title = h1 || pageTitle || titleFromUrl(base);
  if (typeof content !== 'string') polyfillTableRows(content);
  let markdown = tidy(convert(content as unknown as TurndownService.Node));
  markdown = dropShortLeadIn(markdown);
  if (!/^# /.test(markdown)) markdown = markdown ? `# ${title}\n\n${markdown}` : `# ${title}`;
  return { title, markdown, links };
}

/**
 * Readability's extraction, or `null` when it finds nothing or throws: on some broken pages (a root element that
 * is not `<html>`) it reads a null `tagName` (found by fuzzing); the page's body is converted instead.
 */
function readable(clone: unknown): { content?: unknown } | null {
  try {
    return new Readability(clone as never, { keepClasses: true, charThreshold: 100 }).parse();
  } catch (error) {
    if (error instanceof TypeError) return null;
    throw error;
  }
}

/**
 * The content as markdown. The gfm plugin's table rules assume well-formed tables and throw on some broken ones
 * (a row whose children are text: "node.getAttribute is not a function", found by fuzzing); such a page is
 * converted again without the plugin (its tables become text) rather than failing.
 */
function convert(content: TurndownService.Node): string {
  try {
    return turndown().turndown(content);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    return turndown(false).turndown(content);
  }
}

/** The page's followable links (already absolute), without fragments, once each. */
function pageLinks(document: DomDocument): string[] {
  const out = new Set<string>();
  for (const a of document.querySelectorAll('a[href]')) {
    if (/\bnofollow\b/i.test(a.getAttribute('rel') ?? '')) continue;
    const href = a.getAttribute('href') ?? '';
    if (!/^https?:/i.test(href)) continue;
    const hash = href.indexOf('#');
    out.add(hash === -1 ? href : href.slice(0, hash));
  }
  return [...out];
}

/**
 * Drops what the DOM never needs before parsing: scripts, styles, inline SVG icons, and the highlighting
 * markup inside `<pre>` (a `<pre>` cannot nest, so its tags can be stripped textually; entities stay encoded).
 * On a long docs page this removes most nodes, and node creation is most of linkedom's parse time.
 */
function slimHtml(html: string): string {
  // scans, not lazy regexes: those were quadratic in a page of openers never closed
  return replaceElements(
    stripComments(stripElements(html, ['script', 'style', 'svg'])),
    ['pre'],
    (open, inner, close) => {
      const code = /^\s*(?:<[^>]*>\s*)*?(<code\b[^>]*>)/i.exec(inner)?.[1];
      // Expressive Code (Starlight) writes each line as a <div class="ec-line">, with no newline between them.
      const text = breakBetweenEcLines(inner.replace(/<br\s*\/?>/gi, '\n')).replace(/<[^<>]*>/g, '');
      return code ? `${open}${code}${text}</code>${close}` : `${open}${text}${close}`;
    },
  );
}

/**
 * What precedes the H1 on a docs page is chrome the extraction missed (breadcrumbs, a menu, a version switcher)
 * when it is short; long text before the H1 is content and stays.
 */
function dropShortLeadIn(markdown: string): string {
  const h1 = /^# \S/m.exec(markdown);
  if (!h1 || h1.index === 0) return markdown;
  const before = markdown.slice(0, h1.index);
  if (before.length > 500 || /^\s*(```|~~~)/m.test(before)) return markdown;
  return markdown.slice(h1.index);
}

function resolveBase(document: DomDocument, baseUrl: string): string {
  const href = document.querySelector('base[href]')?.getAttribute('href');
  if (!href) return baseUrl;
  try {
    return new URL(href, baseUrl).href;
  } catch {
    return baseUrl;
  }
}

// linkedom has no baseURI, so links are made absolute before extraction (Readability would otherwise leave them).
function absolutizeLinks(document: DomDocument, base: string): void {
  for (const el of document.querySelectorAll('a[href], img[src], source[src]')) {
    const attr = el.tagName === 'A' ? 'href' : 'src';
    const value = (el.getAttribute(attr) ?? '').trim();
    if (/^(?:javascript|data|vbscript):/i.test(value)) {
      el.removeAttribute(attr);
      continue;
    }
    try {
      el.setAttribute(attr, new URL(value, base).href);
    } catch {
      // An unparsable URL stays as written.
    }
  }
}

function documentTitle(document: DomDocument): string {
  const h1 = document.querySelector('main h1, article h1, [role=main] h1, h1');
  const fromH1 = h1 ? collapse(textWithoutPermalinks(h1)) : '';
  if (fromH1) return fromH1;
  const og = document.querySelector('meta[property="og:title"]')?.getAttribute('content')?.trim();
  if (og) return stripSiteName(og);
  return stripSiteName(collapse(document.title ?? ''));
}

function stripSiteName(title: string): string {
  // "Models - Pydantic Validation", "Clients | HTTPX": the page part comes first.
  const parts = title.split(/\s[-|–—·]\s/);
  return (parts.length > 1 ? parts[0] : title)?.trim() ?? '';
}

function textWithoutPermalinks(el: DomElement): string {
  const clone = el.cloneNode(true);
  for (const a of clone.querySelectorAll('.headerlink, .header-anchor, .hash-link, .anchor-link')) a.remove();
  return trimEndOf(clone.textContent ?? '', '¶#\u200b', true);
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function findContentRoot(document: DomDocument): DomElement | null {
  for (const selector of CONTENT_ROOTS) {
    const el = document.querySelector(selector);
    // A container with almost no text is a wrapper of the real content (or an empty shell): look further.
    if (el && collapse(el.textContent ?? '').length >= 200) return el;
  }
  return null;
}

/** Removes site chrome inside the content root and reshapes widgets turndown cannot read well. */
function cleanTree(root: DomElement, document: DomDocument): void {
  removeChrome(root);
  // Site headers outside the article (an article's own <header> holds its H1). Footers hold edit links, "last
  // updated" and prev/next links even inside <main> (Starlight, Mintlify); only a quotation's own footer stays.
  // A header holding the page's H1 stays wherever it is (Mintlify's sits beside the content, not in it).
  for (const el of root.querySelectorAll('header, footer')) {
    const keep =
      el.nodeName === 'FOOTER'
        ? el.closest('blockquote, figure') !== null
        : el.parentElement?.closest('article, main, [role=main]') || el.querySelector('h1');
    if (!keep) el.remove();
  }
  // Permalink anchors inside headings whose text is only an icon or a zero-width space (Mintlify, many themes).
  for (const a of root.querySelectorAll('h1 a, h2 a, h3 a, h4 a, h5 a, h6 a')) {
    if (!(a.textContent ?? '').replace(/[\s\u200b¶#]+/g, '')) a.remove();
  }
  // Mintlify's code block: a header with the language and a copy tooltip above the <pre>; keep the <pre>.
  for (const block of root.querySelectorAll('.code-block')) {
    const pre = block.querySelector('pre');
    if (pre) replaceWith(block, pre);
  }
  flattenCodeBlocks(root);
  // Pygments tables with line numbers: keep only the code.
  for (const table of root.querySelectorAll('table.highlighttable')) {
    const pre = table.querySelector('td.code pre, pre');
    if (pre) replaceWith(table, pre);
    else table.remove();
  }
  // MkDocs Material content tabs: labels sit apart from their panels; put each label above its panel.
  for (const set of root.querySelectorAll('.tabbed-set')) {
    const labels = [...set.querySelectorAll('.tabbed-labels > label')];
    const blocks = [...set.querySelectorAll('.tabbed-content > .tabbed-block')];
    if (labels.length === blocks.length) {
      blocks.forEach((block, i) => {
        const p = document.createElement('p');
        p.innerHTML = `<strong>${escapeHtml(collapse(labels[i]?.textContent ?? ''))}</strong>`;
        insertBefore(block, p);
      });
      for (const label of labels) label.remove();
    }
  }
}

/**
 * Replaces each `<pre>`'s highlighted markup (thousands of spans on a long page) by its plain text, keeping the
 * language in `data-lang`: turndown walks every node, and this is most of a docs page's nodes.
 */
function flattenCodeBlocks(root: DomElement): void {
  for (const pre of root.querySelectorAll('pre')) {
    const code = pre.querySelector('code') ?? pre;
    const lang = codeLanguage(pre, code);
    const text = code.textContent ?? '';
    pre.setAttribute('data-lang', lang);
    pre.textContent = text;
  }
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function replaceWith(el: DomElement, replacement: DomElement): void {
  (el as unknown as { replaceWith(node: DomElement): void }).replaceWith(replacement);
}

function insertBefore(el: DomElement, node: DomElement): void {
  (el as unknown as { before(node: DomElement): void }).before(node);
}

/**
 * The GFM table rule reads `table.rows`, which linkedom does not implement; without it tables come out as run-on
 * text. Turndown clones the tree it is given, so the property goes on the elements' prototype (once), as a getter
 * that answers only for tables.
 */
function polyfillTableRows(root: DomElement): void {
  const table = root.querySelector('table');
  if (!table) return;
  const proto = Object.getPrototypeOf(table) as object;
  if ('rows' in proto) return;
  // The plugin reads `rows` once per cell: cache per table (turndown does not change rows while converting).
  const cache = new WeakMap<object, DomElement[]>();
  Object.defineProperty(proto, 'rows', {
    configurable: true,
    get(this: DomElement) {
      if (this.nodeName !== 'TABLE') return undefined;
      let rows = cache.get(this);
      if (!rows) {
        rows = Array.from(this.querySelectorAll('tr')).filter((tr) => tr.closest('table') === this);
        cache.set(this, rows);
      }
      return rows;
    },
  });
}

function elementHeadingText(root: DomElement): string {
  const h1 = root.querySelector('h1');
  return h1 ? collapse(textWithoutPermalinks(h1)) : '';
}

function firstHeadingText(html: string): string {
  const inner = firstElementInner(html, 'h1');
  if (inner === undefined) return '';
  return trimEndOf(collapse(decodeEntities(inner.replace(/<[^<>]+>/g, ''))), '¶#\u200b').trim();
}

function decodeEntities(text: string): string {
  return text
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;|&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

function titleFromUrl(url: string): string {
  try {
    const segments = new URL(url).pathname.split('/').filter(Boolean);
    const last = segments.pop()?.replace(/\.html?$/i, '');
    const name = last === 'index' ? segments.pop() : last;
    return name ? decodeURIComponent(name).replace(/[-_]+/g, ' ') : new URL(url).hostname;
  } catch {
    return url;
  }
}

const services = new Map<boolean, TurndownService>();

/** One configured turndown service, reused: building one costs more than converting a small page. */
const STRAY_TABLE_PARTS = new Set(['TD', 'TH', 'TR', 'THEAD', 'TBODY', 'TFOOT']);

function insideTable(node: { parentNode: unknown }): boolean {
  for (let p = node.parentNode as { nodeName?: string; parentNode?: unknown } | null; p; p = p.parentNode as typeof p) {
    if (p.nodeName === 'TABLE') return true;
  }
  return false;
}

/** The converter, with the gfm plugin (tables, strikethrough, task lists) or, as a fallback, without it. */
function turndown(withGfm = true): TurndownService {
  const cached = services.get(withGfm);
  if (cached) return cached;
  const td = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '_',
    strongDelimiter: '**',
  });
  if (withGfm) td.use(gfm);
  // A cell or row outside any table (stray `<td>` in broken HTML) is its content: the gfm plugin looks up its table
  // in a WeakMap and threw on `null` ("Invalid value used as weak map key"), failing the page (found by fuzzing).
  td.addRule('strayTableParts', {
    filter: (node) => STRAY_TABLE_PARTS.has(node.nodeName) && !insideTable(node),
    replacement: (content) => content,
  });
  td.remove(['script', 'style', 'noscript', 'iframe', 'form', 'button', 'input', 'select', 'textarea']);
  // Escaping every `_`, `*` and `[` in prose makes identifiers such as model\_config unreadable and unsearchable;
  // only escape what would change the block structure at the start of a line.
  // A text node that starts a line has no leading whitespace (turndown collapses it); one that has it is mid-line.
  td.escape = (text: string): string =>
    text
      .replace(/^([#>+-])(?=\s)/, '\\$1')
      .replace(/^(\d+)\.(?=\s)/, '$1\\.')
      .replace(/^(`{3,}|~{3,})/, '\\$1');
  // Inline code is its text: API pages put <strong> and links inside <code>, which must not become markup.
  td.addRule('inlineCodeText', {
    filter: (node) => node.nodeName === 'CODE' && node.parentNode?.nodeName !== 'PRE',
    replacement: (_content, node) => {
      const text = ((node as unknown as DomElement).textContent ?? '').replace(/\s+/g, ' ');
      if (!text.trim()) return '';
      const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((s) => s.length));
      const ticks = '`'.repeat(longest + 1);
      const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
      return `${ticks}${pad}${text}${pad}${ticks}`;
    },
  });
  td.addRule('fencedCodeWithLanguage', {
    filter: (node) => node.nodeName === 'PRE',
    replacement: (_content, node) => {
      const pre = node as unknown as DomElement;
      const code = pre.querySelector('code') ?? pre;
      const lang = pre.getAttribute('data-lang') ?? codeLanguage(pre, code);
      const text = (code.textContent ?? '').replace(/\n$/, '');
      const longest = Math.max(0, ...(text.match(/`{3,}/g) ?? []).map((s) => s.length));
      const fence = '`'.repeat(Math.max(3, longest + 1));
      return `\n\n${fence}${lang}\n${text}\n${fence}\n\n`;
    },
  });
  // A heading keeps its HTML id when that differs from the slug the chunker would make (API pages use ids such as
  // `pydantic.BaseModel.model_dump`), so chunk anchors still point at the real page anchors.
  td.addRule('headingWithAnchor', {
    filter: ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'],
    replacement: (content, node) => {
      const level = Number(node.nodeName.charAt(1));
      const text = content.replace(/\s+/g, ' ').trim();
      if (!text) return '';
      const id = (node as unknown as DomElement).getAttribute('id') ?? '';
      const keep = level > 1 && /^[\w.:-]+$/.test(id) && id !== slugify(text);
      return `\n\n${'#'.repeat(level)} ${text}${keep ? ` {#${id}}` : ''}\n\n`;
    },
  });
  td.addRule('admonitionTitle', {
    filter: (node) => {
      const el = node as unknown as DomElement;
      return (
        (el.nodeName === 'P' && /\badmonition-title\b/.test(el.getAttribute('class') ?? '')) ||
        el.nodeName === 'SUMMARY'
      );
    },
    replacement: (content) => {
      const text = content.trim();
      return text ? `\n\n**${text}**\n\n` : '';
    },
  });
  td.addRule('dataImages', {
    filter: (node) => node.nodeName === 'IMG' && !(node as unknown as DomElement).getAttribute('src'),
    replacement: () => '',
  });
  services.set(withGfm, td);
  return td;
}

function codeLanguage(pre: DomElement, code: DomElement): string {
  const classes: string[] = [code.getAttribute('class') ?? '', pre.getAttribute('class') ?? ''];
  let parent: DomNode | null = pre.parentNode;
  for (let depth = 0; parent && depth < 3; depth += 1) {
    const cls = (parent as DomElement).getAttribute?.('class');
    if (cls) classes.push(cls);
    parent = parent.parentNode;
  }
  const dataLang =
    code.getAttribute('data-lang') ??
    pre.getAttribute('data-language') ??
    code.getAttribute('language') ??
    pre.getAttribute('language');
  if (dataLang) return dataLang.toLowerCase();
  for (const cls of classes) {
    const m = /(?:^|\s)(?:language|lang|highlight-source|highlight)-([\w+#.-]+)/.exec(cls);
    if (m && m[1] !== 'default') return (m[1] as string).toLowerCase();
  }
  return '';
}

/** Blank-line runs collapsed outside code, trailing spaces dropped, turndown's wide list padding narrowed. */
function tidy(markdown: string): string {
  const out: string[] = [];
  let fence: string | null = null;
  for (const raw of markdown.split('\n')) {
    if (fence) {
      out.push(raw);
      if (raw.trim() === fence) fence = null;
      continue;
    }
    const open = /^\s*(`{3,}|~{3,})/.exec(raw);
    if (open) {
      fence = open[1] as string;
      out.push(raw);
      continue;
    }
    const line = raw.trimEnd().replace(/^(\s*)([-*+]|\d+\.)\s{2,3}(?=\S)/, '$1$2 ');
    if (line === '' && (out.length === 0 || out[out.length - 1] === '')) continue;
    out.push(line);
  }
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out.join('\n');
}

import { walkLines } from '../markdown/headings.js';
import { inlinePlainText } from '../markdown/slug.js';

/** Distinct link texts kept per page, at most (the first seen; later links only add to their counts). */
export const MAX_ANCHOR_TEXTS = 50;
/** Characters of one link text, at most (a longer text is cut at a word). */
export const MAX_ANCHOR_CHARS = 80;
/** Links read from one page, at most (a hostile page of a million links costs no more than this). */
export const MAX_LINKS_PER_PAGE = 400;
/** Links held for a whole library until its pages are all known, at most. */
export const MAX_LINKS = 100_000;
/** Characters of a link target read, at most. */
const MAX_TARGET_CHARS = 2_000;

/** The texts other pages of a library link to one of its pages with, each with how many links use it. */
export interface PageAnchors {
  url: string;
  /** `[text, links]`, most used first (ties: first seen first), at most {@link MAX_ANCHOR_TEXTS}. */
  texts: [string, number][];
}

/** A link of a page: its text and where it points (host and path, see {@link pathKey}). */
interface HeldLink {
  from: string;
  host: string;
  segments: string[];
  text: string;
}

/**
 * A page's path as a list of segments, without what differs between a page's source file and its served URL: a
 * `.md`/`.mdx`/`.html` extension, a trailing `index` and a trailing slash (`/guide/index.md`, `/guide/` and
 * `/guide.html` are the same page).
 */
export function pathKey(pathname: string): string[] {
  const segments = pathname.split('/').filter((s) => s !== '');
  const last = segments.length - 1;
  if (last >= 0) {
    const name = segments[last] as string;
    const dot = name.lastIndexOf('.');
    const ext = dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
    const stem = ext === 'md' || ext === 'mdx' || ext === 'html' || ext === 'htm' ? name.slice(0, dot) : name;
    if (stem === 'index' || stem === 'README' || stem === 'readme') segments.pop();
    else segments[last] = stem;
  }
  return segments.map((s) => {
    try {
      return decodeURIComponent(s).toLowerCase();
    } catch {
      return s.toLowerCase();
    }
  });
}

/**
 * The inline links of a markdown page, `[text](target)`, outside fenced code, in one pass over each line (each
 * character is read once: a `[` restarts the text, a target is read up to its `)` or {@link MAX_TARGET_CHARS}).
 * Images (`![alt](src)`) are not links.
 */
export function markdownLinks(markdown: string, limit = MAX_LINKS_PER_PAGE): { text: string; target: string }[] {
  const out: { text: string; target: string }[] = [];
  walkLines(markdown.split('\n'), (line, _index, _heading, inCode) => {
    if (inCode || line.indexOf('](') < 0) return true;
    let open = -1;
    let i = 0;
    while (i < line.length) {
      const c = line.charCodeAt(i);
      if (c === 0x5b /* [ */) {
        open = i > 0 && line.charCodeAt(i - 1) === 0x21 /* ! */ ? -1 : i;
        i += 1;
      } else if (c === 0x5d /* ] */ && open >= 0 && line.charCodeAt(i + 1) === 0x28 /* ( */) {
        const text = line.slice(open + 1, i);
        const start = i + 2;
        let end = start;
        const stop = Math.min(line.length, start + MAX_TARGET_CHARS);
        while (end < stop && line.charCodeAt(end) !== 0x29 /* ) */ && line.charCodeAt(end) !== 0x20) end += 1;
        if (end < line.length && end > start) out.push({ text, target: line.slice(start, end) });
        if (out.length >= limit) return false;
        open = -1;
        i = end + 1;
      } else i += 1;
    }
    return true;
  });
  return out;
}

/** A link text as an anchor: plain text, no URL, at most {@link MAX_ANCHOR_CHARS} (cut at a word). */
function anchorText(raw: string): string | undefined {
  let text = inlinePlainText(raw)
    .replace(/[`*_]+/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (text.length < 2 || text.includes('://')) return undefined;
  if (text.length > MAX_ANCHOR_CHARS) {
    const cut = text.lastIndexOf(' ', MAX_ANCHOR_CHARS);
    text = text.slice(0, cut > MAX_ANCHOR_CHARS / 2 ? cut : MAX_ANCHOR_CHARS);
  }
  return text;
}

/**
 * Where a page's link points, resolved against the page's URL: http(s) only; undefined for an in-page anchor, a
 * mail address or a target that is no URL.
 */
export function linkTarget(target: string, base: URL | string): URL | undefined {
  if (target.startsWith('#') || target.startsWith('mailto:')) return undefined;
  let url: URL;
  try {
    url = new URL(target, base);
  } catch {
    return undefined;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
}

/**
 * Finds which of a set of pages a link target names: on the same host, by the longest end of its path (up to three
 * segments of {@link pathKey}) that names one page only.
 */
export class PagePaths {
  /** Each path end (host, then 1 to 3 segments) and the page it names; -1 when it names several. */
  private readonly ends = new Map<string, number>();

  constructor(pages: readonly { host: string; segments: readonly string[] }[]) {
    for (const [n, page] of pages.entries()) {
      for (let len = 1; len <= Math.min(3, page.segments.length); len++) {
        const key = `${page.host}\u0000${page.segments.slice(-len).join('/')}`;
        this.ends.set(key, this.ends.has(key) ? -1 : n);
      }
    }
  }

  /** The index of the page `host` and `segments` name, or undefined when none does unambiguously. */
  find(host: string, segments: readonly string[]): number | undefined {
    for (let len = Math.min(3, segments.length); len >= 1; len--) {
      const found = this.ends.get(`${host}\u0000${segments.slice(-len).join('/')}`);
      if (found !== undefined && found >= 0) return found;
    }
    return undefined;
  }
}

/**
 * Collects the texts a library's pages link to each other with (issue #28: "a page linked as *Strict Mode* from
 * twenty places is about strict mode"). Pages are added as they are prepared; a link may point to a page not
 * seen yet, so targets are matched to pages in {@link finish}: resolved against the linking page's URL, on the
 * same host, by the longest unambiguous end of the path (up to three segments, extensions and `index` aside), so
 * that a source's relative link (`../concepts/fields.md`) finds the page as it is served
 * (`/pydantic/concepts/fields/index.md`), and a site-absolute one (`/config/retry`) the page under the site's base
 * path (`/vitest/config/retry.md`). Bounded: {@link MAX_LINKS_PER_PAGE} per page, {@link MAX_LINKS} in all,
 * {@link MAX_ANCHOR_TEXTS} texts per page; linear in the pages' length.
 */
export class AnchorCollector {
  private readonly links: HeldLink[] = [];
  private readonly pages: { url: string; host: string; segments: string[] }[] = [];

  /** Reads the links of one page (its markdown as chunked). */
  addPage(url: string, markdown: string): void {
    let base: URL;
    try {
      base = new URL(url);
    } catch {
      return;
    }
    this.pages.push({ url, host: base.host, segments: pathKey(base.pathname) });
    if (this.links.length >= MAX_LINKS) return;
    for (const link of markdownLinks(markdown, Math.min(MAX_LINKS_PER_PAGE, MAX_LINKS - this.links.length))) {
      const text = anchorText(link.text);
      if (text === undefined) continue;
      const target = linkTarget(link.target, base);
      if (target === undefined) continue;
      this.links.push({ from: url, host: target.host, segments: pathKey(target.pathname), text });
    }
  }

  /** Every page's anchors (pages no other page links to are left out), in the order the pages were added. */
  finish(): PageAnchors[] {
    const paths = new PagePaths(this.pages);
    const byPage = new Map<number, Map<string, [string, number]>>();
    for (const link of this.links) {
      const target = paths.find(link.host, link.segments);
      if (target === undefined || this.pages[target]?.url === link.from) continue;
      let texts = byPage.get(target);
      if (texts === undefined) {
        texts = new Map();
        byPage.set(target, texts);
      }
      const key = link.text.toLowerCase();
      const known = texts.get(key);
      if (known) known[1] += 1;
      else if (texts.size < MAX_ANCHOR_TEXTS) texts.set(key, [link.text, 1]);
    }
    this.links.length = 0;
    const out: PageAnchors[] = [];
    for (const [n, page] of this.pages.entries()) {
      const texts = byPage.get(n);
      if (!texts) continue;
      // most used first; the sort is stable, so ties keep the order the texts were first seen in
      out.push({ url: page.url, texts: [...texts.values()].sort((a, b) => b[1] - a[1]) });
    }
    return out;
  }
}

import { loadHtmlToMarkdown } from '../html/lazy.js';
import { checkHtmlPage, checkTextPage, type PageLimits } from '../html/limits.js';
import { type ReadablePage, readablePage } from '../markdown/readable.js';

/** One page to convert: its text as fetched, what it is, and what the caller wants of it. */
export interface PageWork {
  /** `html` is converted to markdown of its main content; `markdown` (or text) is taken as it is. */
  kind: 'html' | 'markdown';
  text: string;
  /** The page's URL: links are made absolute against it, and limit errors name it. */
  url: string;
  /** Also make it readable (read-page's form: `readablePage`), and leave the raw markdown out of the answer. */
  readable?: boolean;
}

/** A converted page. */
export interface ConvertedPage {
  /** The HTML page's title (empty for markdown). */
  title: string;
  /** The page as markdown (HTML converted); empty when `readable` was asked (see {@link readable}). */
  markdown: string;
  /** The HTML page's links (what a crawler follows): absolute, without fragment, once each. */
  links: string[];
  /** The readable form, when asked. */
  readable?: ReadablePage;
}

/**
 * Converts one page within `limits` (size, line length, nesting depth, element count; the time budget is the
 * page worker's): throws `PAGE_TOO_LARGE` / `PAGE_TOO_COMPLEX` naming the page, the limit and its setting. The
 * checks are linear passes over the text, made before anything is parsed.
 */
export async function convertPage(work: PageWork, limits: PageLimits): Promise<ConvertedPage> {
  if (work.kind === 'html') {
    checkHtmlPage(work.text, work.url, limits);
    const converted = (await loadHtmlToMarkdown())(work.text, work.url);
    checkTextPage(converted.markdown, work.url, limits);
    if (!work.readable) return converted;
    return { title: converted.title, markdown: '', links: converted.links, readable: readablePage(converted.markdown) };
  }
  checkTextPage(work.text, work.url, limits);
  if (!work.readable) return { title: '', markdown: work.text, links: [] };
  return { title: '', markdown: '', links: [], readable: readablePage(work.text) };
}

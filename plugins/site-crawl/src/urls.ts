import { sitemapLocTexts } from './scan.js';

/** The folder a crawl stays in, and the URL it starts from. */
export interface CrawlScope {
  /** The start URL, normalized (a folder URL ends with `/`). */
  startUrl: string;
  /** `origin + path prefix` every crawled page must start with (ends with `/`). */
  prefix: string;
  origin: string;
}

/** Files a crawl never reads as pages (assets, archives, data). */
const NOT_A_PAGE =
  /\.(png|jpe?g|gif|svg|webp|avif|ico|bmp|pdf|zip|gz|tgz|bz2|xz|tar|whl|exe|dmg|css|js|mjs|cjs|map|json|xml|rss|atom|txt|csv|ya?ml|toml|woff2?|ttf|otf|eot|mp3|mp4|webm|ogg|wav|ipynb|py|rs|go|java|c|h)$/i;

/**
 * The scope of a crawl from a docs URL: a URL whose last segment has no extension is a folder
 * (`https://docs.acme.dev/latest` → `…/latest/`); a page URL (`…/docs/index.html`) scopes to its folder.
 */
export function scopeOf(docsUrl: string): CrawlScope {
  const url = new URL(docsUrl);
  url.hash = '';
  url.search = '';
  const last = url.pathname.split('/').pop() ?? '';
  if (last !== '' && !/\.[a-z0-9]+$/i.test(last)) url.pathname = `${url.pathname}/`;
  const folder = url.pathname.slice(0, url.pathname.lastIndexOf('/') + 1);
  const startUrl = normalizePageUrl(url.href) ?? url.href;
  return { startUrl, prefix: `${url.origin}${folder}`, origin: url.origin };
}

/** A page URL as the crawl keys it: no fragment, `…/index.html` as its folder URL; `undefined` if not http(s). */
export function normalizePageUrl(raw: string, base?: string): string | undefined {
  let url: URL;
  try {
    url = base === undefined ? new URL(raw) : new URL(raw, base);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  url.hash = '';
  if (/\/index\.html?$/i.test(url.pathname)) url.pathname = url.pathname.replace(/index\.html?$/i, '');
  return url.href;
}

/** Whether a normalized URL is a page of the scope: same origin and folder, no query, not an asset. */
export function inScope(url: string, scope: CrawlScope): boolean {
  if (!url.startsWith(scope.prefix)) return false;
  const parsed = new URL(url);
  if (parsed.search) return false;
  return !NOT_A_PAGE.test(parsed.pathname);
}

/** The markdown twins of a page URL, most likely first (none for a URL that is markdown already). */
export function markdownTwins(pageUrl: string): string[] {
  const url = new URL(pageUrl);
  if (/\.(md|mdx|markdown)$/i.test(url.pathname)) return [];
  const twin = (pathname: string): string => {
    const u = new URL(url.href);
    u.pathname = pathname;
    return u.href;
  };
  if (url.pathname.endsWith('/')) return [twin(`${url.pathname}index.md`)];
  if (/\.html?$/i.test(url.pathname)) return [twin(url.pathname.replace(/\.html?$/i, '.md'))];
  return [twin(`${url.pathname}.md`)];
}

/** Where a site's sitemap may be: beside the docs, then at the root of the origin (each once). */
export function sitemapCandidates(scope: CrawlScope): string[] {
  return [...new Set([`${scope.prefix}sitemap.xml`, `${scope.origin}/sitemap.xml`])];
}

/** The `<loc>`s of a sitemap and whether it is a sitemap index (whose locs are more sitemaps). */
export function parseSitemap(xml: string): { index: boolean; locs: string[] } | undefined {
  const head = xml.slice(0, 4096);
  const index = /<(?:\w+:)?sitemapindex[\s>]/i.test(head) || /<(?:\w+:)?sitemapindex[\s>]/i.test(xml);
  if (!index && !/<(?:\w+:)?urlset[\s>]/i.test(xml)) return undefined;
  const locs: string[] = [];
  for (const text of sitemapLocTexts(xml)) {
    const loc = decodeXml(text.trim());
    if (loc) locs.push(loc);
  }
  return { index, locs };
}

function decodeXml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#(\d+);/g, (_m, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&amp;/g, '&');
}

/**
 * The TOC section of a page: its first folder below the scope, as words (`advanced/clients/` → `Advanced`);
 * `undefined` for pages at the top of the scope.
 */
export function sectionOf(url: string, scope: CrawlScope): string | undefined {
  const rest = url.slice(scope.prefix.length).split('/').filter(Boolean);
  if (rest.length < 2) return undefined;
  const first = decodeURIComponent(rest[0] as string).replace(/\.html?$/i, '');
  const words = first.replace(/[-_]+/g, ' ').trim();
  return words ? words.charAt(0).toUpperCase() + words.slice(1) : undefined;
}

/** A page's name from its URL, for pages without a heading. */
export function titleFromUrl(url: string): string {
  const segments = new URL(url).pathname.split('/').filter(Boolean);
  const last = segments.pop()?.replace(/\.(html?|md)$/i, '');
  const name = last === 'index' ? segments.pop() : last;
  const words = name ? decodeURIComponent(name).replace(/[-_]+/g, ' ').trim() : '';
  return words ? words.charAt(0).toUpperCase() + words.slice(1) : new URL(url).host;
}

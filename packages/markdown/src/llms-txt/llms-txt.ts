import type { DocPage, TocEntry } from '@pro-context/kernel';
import { inlinePlainText, slugify } from '../markdown/slug.js';
import { looksLikeCtx, parseCtx } from './ctx.js';
import { detectLlmsFull, splitLlmsFull } from './llms-full.js';
import {
  anchorUrl,
  capText,
  cleanTitle,
  findBareUrls,
  findLinks,
  firstSentence,
  MAX_DESCRIPTION_CHARS,
  parseHeading,
  parseLinkItem,
  scanLines,
  sniffNonMarkdown,
} from './markdown.js';
import { splitByHeadings } from './pages.js';

/** One section of an llms.txt (an H2, or an H1 used as a section), with its file list. */
export interface LlmsTxtSection {
  name: string;
  /** `## Optional` (and headings under it): links that "can be skipped if a shorter context is needed". */
  optional: boolean;
  entries: TocEntry[];
}

/**
 * How a file was read:
 * - `index`: the llms.txt proposal's shape (H1, `> summary`, sections of `- [title](url): notes`);
 * - `manual`: a condensed manual with few or no link lists (hono's llms-small.txt, instructor's llms.txt),
 *   whose headings make the table of contents, each entry pointing into the file itself (`<url>#<slug>`);
 * - `ctx`: an XML-wrapped context file (`<project><doc title=…>`), one entry per doc;
 * - `invalid`: not an llms.txt at all (HTML, JSON, binary, empty, or text with neither links nor headings).
 */
export type LlmsTxtFormat = 'index' | 'manual' | 'ctx' | 'invalid';

/** A parsed llms.txt. Parsing never throws; problems become {@link ParsedLlmsTxt.warnings}. */
export interface ParsedLlmsTxt {
  format: LlmsTxtFormat;
  /** The H1. */
  title?: string;
  /** The blockquote after the H1. */
  summary?: string;
  /** Markdown between the summary and the first section. */
  details?: string;
  /** Named sections in file order, each with its entries (sections without entries are left out). */
  sections: LlmsTxtSection[];
  /** Every entry in file order, de-duplicated by URL, each carrying its section name. */
  entries: TocEntry[];
  /** Every absolute http(s) URL the file links to, outside code (for the `read-page` allowlist). */
  links: string[];
  /** What was odd or skipped, for the logs; a single warning explains an `invalid` file. */
  warnings: string[];
}

/** Ratio of content lines to link entries above which a file is a manual rather than an index. */
const MANUAL_RATIO = 10;
/** Content lines a file needs before the ratio can make it a manual (small indexes often carry prose). */
const MANUAL_MIN_LINES = 200;
/** Longest description made from a prose line that holds a link (sections without a link list). */
const PROSE_DESCRIPTION_CHARS = 200;

function withoutHash(url: string): string {
  const at = url.indexOf('#');
  return at === -1 ? url : url.slice(0, at);
}

function resolveHttp(href: string, baseUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    try {
      url = new URL(href, baseUrl);
    } catch {
      return undefined;
    }
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
}

function invalid(reason: string): ParsedLlmsTxt {
  return { format: 'invalid', sections: [], entries: [], links: [], warnings: [`not an llms.txt file: ${reason}`] };
}

interface OpenSection {
  name: string;
  level: number;
  optional: boolean;
  entries: TocEntry[];
  /** Links in prose lines, used as entries when the section has no link list. */
  proseLinks: TocEntry[];
}

/**
 * Parses an llms.txt (or a file served in its place) into a table of contents.
 *
 * Follows the llms.txt proposal and tolerates what real files do: no H1, H1s used as sections, several
 * H1s, descriptions running over several lines (with nested bullets and blank lines, as Mintlify writes
 * them), nested link lists, `- [title](url) - notes`, relative links (resolved against `baseUrl`) and
 * repeated links (kept once). Headings and links inside fenced code are ignored. Files that are mostly
 * content become a `manual` (their headings are the TOC); XML-wrapped `llms-ctx` files list their docs.
 *
 * @param text - the file's text
 * @param baseUrl - the URL it was read from (after redirects): relative links resolve against it
 */
export function parseLlmsTxt(text: string, baseUrl: string): ParsedLlmsTxt {
  const body = text.replace(/^\uFEFF/, '');
  if (looksLikeCtx(body)) return parseCtxFile(body, baseUrl);
  const notMarkdown = sniffNonMarkdown(body);
  if (notMarkdown) return invalid(notMarkdown);

  const warnings: string[] = [];
  const lines = scanLines(body);
  const headings = lines.filter((l) => !l.inCode && parseHeading(l.text));
  const h1Count = headings.filter((l) => parseHeading(l.text)!.level === 1).length;

  // Several H1s, the first one directly followed by a link list: the H1s are sections (langgraph's mkdocs
  // llms.txt), not a title.
  let h1AsSections = false;
  if (h1Count >= 2) {
    const firstH1 = headings.find((l) => parseHeading(l.text)!.level === 1)!;
    for (const l of lines.slice(firstH1.index + 1)) {
      if (l.inCode || !l.text.trim()) continue;
      if (parseHeading(l.text)) break;
      if (parseLinkItem(l.text)) h1AsSections = true;
      break;
    }
  }

  const links = new Set<string>();
  const entries: TocEntry[] = [];
  const seen = new Set<string>();
  const sections: OpenSection[] = [];
  const detailLines: string[] = [];
  const summaryLines: string[] = [];
  let title: string | undefined;
  let section: OpenSection | undefined;
  let optionalLevel = 0; // level of the `Optional` heading in force, 0 when none
  let phase: 'start' | 'summary' | 'details' | 'sections' = 'start';
  let last: { entry: TocEntry; parts: string[]; length: number } | undefined;
  const continuations: { entry: TocEntry; parts: string[]; length: number }[] = [];
  let entryLines = 0;
  let contentLines = 0;
  let duplicates = 0;
  let unresolved = 0;

  const collectLinks = (line: string) => {
    for (const link of findLinks(line)) {
      const url = resolveHttp(link.href, baseUrl);
      if (url && !link.href.startsWith('#')) links.add(url);
    }
    for (const bare of findBareUrls(line)) {
      const url = resolveHttp(bare, baseUrl);
      if (url) links.add(url);
    }
  };

  for (const line of lines) {
    if (line.inCode) {
      if (line.text.trim()) contentLines++;
      if (phase === 'details' || phase === 'summary') detailLines.push(line.text);
      continue;
    }
    const raw = line.text;
    const heading = parseHeading(raw);
    if (heading) {
      last = undefined;
      const name = cleanTitle(heading.text);
      if (title === undefined && heading.level === 1 && !h1AsSections && phase === 'start' && entries.length === 0) {
        title = name;
        phase = 'summary';
        continue;
      }
      if (optionalLevel && heading.level <= optionalLevel) optionalLevel = 0;
      const isOptional = /^optional$/i.test(name);
      if (isOptional) optionalLevel = heading.level;
      section = { name, level: heading.level, optional: isOptional || optionalLevel > 0, entries: [], proseLinks: [] };
      sections.push(section);
      phase = 'sections';
      continue;
    }
    collectLinks(raw);
    if (!raw.trim()) {
      if (phase === 'details') detailLines.push('');
      if (phase === 'summary' && summaryLines.length > 0) phase = 'details';
      continue;
    }
    if (phase === 'start' || phase === 'summary') {
      if (/^\s*>/.test(raw) && detailLines.length === 0 && (summaryLines.length === 0 || phase === 'summary')) {
        summaryLines.push(raw.replace(/^\s*>\s?/, ''));
        phase = 'summary';
        continue;
      }
      if (phase === 'summary' || title !== undefined) phase = 'details';
    }

    const item = parseLinkItem(raw);
    if (item) {
      const url = resolveHttp(item.href, baseUrl);
      const selfAnchor =
        item.href.startsWith('#') || (url?.includes('#') === true && withoutHash(url) === withoutHash(baseUrl));
      if (selfAnchor) continue; // the file's own table of contents, not a page
      if (!url) {
        unresolved++;
        contentLines++;
        continue;
      }
      entryLines++;
      if (phase !== 'sections') phase = 'sections';
      if (seen.has(url)) {
        duplicates++;
        last = undefined;
        continue;
      }
      seen.add(url);
      const entry: TocEntry = { title: cleanTitle(item.label) || url, url };
      if (section) entry.section = section.name;
      entries.push(entry);
      section?.entries.push(entry);
      last = { entry, parts: item.rest ? [item.rest] : [], length: item.rest.length };
      continuations.push(last);
      continue;
    }

    contentLines++;
    if (last) {
      // Mintlify descriptions run on over several lines, blank lines and nested bullets included.
      if (last.length < MAX_DESCRIPTION_CHARS * 2) {
        last.parts.push(raw.trim());
        last.length += raw.length;
      }
      continue;
    }
    if (phase === 'details' || phase === 'start') {
      detailLines.push(raw);
      if (phase === 'start') phase = 'details';
      continue;
    }
    if (section) {
      for (const link of findLinks(raw)) {
        const url = resolveHttp(link.href, baseUrl);
        if (!url || link.image || link.href.startsWith('#')) continue;
        section.proseLinks.push({
          title: cleanTitle(link.label) || url,
          url,
          description: capText(inlinePlainText(raw), PROSE_DESCRIPTION_CHARS),
          section: section.name,
        });
      }
    }
  }

  for (const { entry, parts } of continuations) {
    const description = capText(parts.join(' '));
    if (description) entry.description = description;
  }

  const summary = summaryLines.length > 0 ? summaryLines.join(' ').replace(/\s+/g, ' ').trim() : undefined;
  const details = detailLines.join('\n').trim() || undefined;
  const headingCount = headings.length - (title === undefined ? 0 : 1);

  const manual =
    headingCount + (title === undefined ? 0 : 1) > 0 &&
    (entryLines === 0 || (contentLines > MANUAL_MIN_LINES && entryLines * MANUAL_RATIO < contentLines));
  if (manual) return manualFile(body, baseUrl, { title, summary, links, warnings, entryLines, contentLines });

  // A section without a link list but with links in its prose (langgraph's "see the LangSmith
  // documentation") still points somewhere worth listing.
  for (const s of sections) {
    if (s.entries.length > 0) continue;
    for (const entry of s.proseLinks) {
      if (seen.has(entry.url)) continue;
      seen.add(entry.url);
      s.entries.push(entry);
      entries.push(entry);
    }
  }
  if (entries.length === 0) return invalid('it has neither links nor headings');
  if (title === undefined) warnings.push('no title (H1) found');
  if (duplicates > 0) warnings.push(`${duplicates} repeated link(s) listed once`);
  if (unresolved > 0) warnings.push(`${unresolved} link(s) that are not http(s) URLs were skipped`);

  return {
    format: 'index',
    ...(title !== undefined ? { title } : {}),
    ...(summary ? { summary } : {}),
    ...(details ? { details } : {}),
    sections: sections
      .filter((s) => s.entries.length > 0)
      .map((s) => ({ name: s.name, optional: s.optional, entries: s.entries })),
    entries: orderBySection(entries, sections),
    links: [...links],
    warnings,
  };
}

/** Entries in file order: prose-link entries appended late are moved back beside their section. */
function orderBySection(entries: TocEntry[], sections: OpenSection[]): TocEntry[] {
  const placed = new Set<TocEntry>();
  const out: TocEntry[] = [];
  // Entries before any section come first, then each section's entries in section order.
  for (const e of entries) {
    if (e.section === undefined) {
      out.push(e);
      placed.add(e);
    }
  }
  for (const s of sections) {
    for (const e of s.entries) {
      if (!placed.has(e)) {
        out.push(e);
        placed.add(e);
      }
    }
  }
  for (const e of entries) if (!placed.has(e)) out.push(e);
  return out;
}

/**
 * A manual's pages with the TOC entries that point at them. An llms-full.txt served as llms.txt names its
 * pages (`Source:` lines, front matter): those URLs are used; otherwise pages are `<url>#<slug>`.
 */
function manualDocuments(
  text: string,
  baseUrl: string,
): { title?: string; items: { entry: TocEntry; markdown: string }[] } {
  const style = detectLlmsFull(text);
  if (style === 'source-lines' || style === 'frontmatter') {
    const items = splitLlmsFull(text, baseUrl).pages.map((p) => {
      const description = firstSentence(scanLines(p.markdown));
      return {
        entry: {
          title: p.title,
          url: p.url,
          ...(description ? { description } : {}),
          ...(p.section ? { section: p.section } : {}),
        } satisfies TocEntry,
        markdown: p.markdown,
      };
    });
    return { items };
  }
  const base = withoutHash(baseUrl);
  const split = splitByHeadings(text);
  const items = split.pages.map((p) => ({
    entry: {
      title: p.title,
      url: anchorUrl(base, p.slug),
      ...(p.description ? { description: p.description } : {}),
      ...(p.section ? { section: p.section } : {}),
    } satisfies TocEntry,
    markdown: p.markdown,
  }));
  return { ...(split.title ? { title: split.title } : {}), items };
}

function manualFile(
  text: string,
  baseUrl: string,
  found: {
    title: string | undefined;
    summary: string | undefined;
    links: Set<string>;
    warnings: string[];
    entryLines: number;
    contentLines: number;
  },
): ParsedLlmsTxt {
  const manual = manualDocuments(text, baseUrl);
  const entries = manual.items.map((i) => i.entry);
  const sections: LlmsTxtSection[] = [];
  for (const entry of entries) {
    if (!entry.section) continue;
    let s = sections.at(-1);
    if (s?.name !== entry.section) {
      s = { name: entry.section, optional: false, entries: [] };
      sections.push(s);
    }
    s.entries.push(entry);
  }
  // vitepress-plugin-llms opens its files with `<SYSTEM>what this is</SYSTEM>`.
  const system = /^\s*<SYSTEM>([\s\S]*?)<\/SYSTEM>/i.exec(text)?.[1]?.trim();
  const summary = found.summary ?? (system || undefined);
  const title = manual.title ?? found.title;
  if (entries.length === 0) return invalid('it has neither links nor headings');
  return {
    format: 'manual',
    ...(title ? { title } : {}),
    ...(summary ? { summary } : {}),
    sections,
    entries,
    links: [...found.links],
    warnings: [
      ...found.warnings,
      `read as a condensed manual (${found.entryLines} link list item(s) among ${found.contentLines} content line(s)): its headings are the table of contents`,
    ],
  };
}

/** A context file's docs with their TOC entries (own URL, or `<url>#<slug>`). */
function ctxDocuments(
  text: string,
  baseUrl: string,
): {
  ctx: ReturnType<typeof parseCtx>;
  items: { entry: TocEntry; markdown: string }[];
  links: Set<string>;
  duplicates: number;
} {
  const ctx = parseCtx(text);
  const base = withoutHash(baseUrl);
  const links = new Set<string>();
  for (const line of scanLines(text)) {
    if (line.inCode) continue;
    for (const link of findLinks(line.text)) {
      const url = resolveHttp(link.href, baseUrl);
      if (url && !link.href.startsWith('#')) links.add(url);
    }
  }
  const used = new Set<string>();
  const items: { entry: TocEntry; markdown: string }[] = [];
  let duplicates = 0;
  for (const doc of ctx.docs) {
    const own = doc.url ?? ctx.preambleUrls.get(doc.title);
    let url = own ? resolveHttp(own, baseUrl) : undefined;
    if (url) links.add(url);
    else {
      // No URL of its own: a stable anchor into the context file, which fetchPage can cut out again.
      const slug = slugify(doc.title, 'github') || 'section';
      url = anchorUrl(base, slug);
      for (let n = 1; used.has(url); n++) url = anchorUrl(base, `${slug}-${n}`);
    }
    if (used.has(url)) {
      duplicates++;
      continue;
    }
    used.add(url);
    const entry: TocEntry = { title: cleanTitle(doc.title) || url, url };
    if (doc.desc) entry.description = capText(doc.desc);
    if (doc.section) entry.section = doc.section;
    items.push({ entry, markdown: doc.content });
  }
  return { ctx, items, links, duplicates };
}

/**
 * The pages of an llms.txt that carries its own content: a `manual` (cut at its headings) or a `ctx`
 * file (one page per doc), with the same URLs as the entries {@link parseLlmsTxt} returns for it.
 * Empty for an `index` or `invalid` file, whose pages live elsewhere.
 */
export function llmsTxtPages(text: string, baseUrl: string): DocPage[] {
  const parsed = parseLlmsTxt(text, baseUrl);
  const body = text.replace(/^\uFEFF/, '');
  const items =
    parsed.format === 'ctx'
      ? ctxDocuments(body, baseUrl).items
      : parsed.format === 'manual'
        ? manualDocuments(body, baseUrl).items
        : [];
  return items
    .filter((i) => i.markdown.trim() !== '')
    .map(({ entry, markdown }) => ({
      url: entry.url,
      title: entry.title,
      ...(entry.section ? { section: entry.section } : {}),
      markdown,
    }));
}

function parseCtxFile(text: string, baseUrl: string): ParsedLlmsTxt {
  const { ctx, items, links, duplicates } = ctxDocuments(text, baseUrl);
  const entries = items.map((i) => i.entry);
  const sections: LlmsTxtSection[] = [];
  for (const entry of entries) {
    if (!entry.section) continue;
    let s = sections.at(-1);
    if (s?.name !== entry.section) {
      s = { name: entry.section, optional: /^optional$/i.test(entry.section), entries: [] };
      sections.push(s);
    }
    s.entries.push(entry);
  }
  if (entries.length === 0) return invalid('it is an llms-ctx file without documents');
  const warnings = ['read as an llms-ctx file: one entry per <doc>'];
  if (duplicates > 0) warnings.push(`${duplicates} repeated document(s) listed once`);
  return {
    format: 'ctx',
    ...(ctx.title ? { title: ctx.title } : {}),
    ...(ctx.summary ? { summary: ctx.summary } : {}),
    ...(ctx.details ? { details: ctx.details } : {}),
    sections,
    entries,
    links: [...links],
    warnings,
  };
}

import {
  defineTool,
  estimateTokens,
  type FetchContext,
  ProContextError,
  type ToolContext,
  type ToolDefinition,
} from '@pro-context/kernel';
import { type DocsAnswer, type DocsEngine, tocEntryLine } from '../core/engine.js';
import {
  getDocsInput,
  getDocsOutput,
  listLibrariesInput,
  listLibrariesOutput,
  readPageInput,
  readPageOutput,
  resolveLibraryInput,
  resolveLibraryOutput,
  searchDocsInput,
  searchDocsOutput,
} from './schemas.js';

const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };

/** Adapter progress → MCP progress notifications. */
function fetchContext(context: ToolContext): FetchContext {
  return {
    signal: context.signal,
    progress: (done, total, message) => void context.progress({ progress: done, total, message }),
  };
}

/** Related pages a low-confidence get-docs answer carries in its structured result even when the text has no room. */
const RESERVED_RELATED_PAGES = 2;
/** Below this confidence an answer always carries relatedPages (seed 001 §11.3). */
const LOW_CONFIDENCE = 0.5;

/** list-libraries' answer (its text and structured entries together), estimated tokens: a page within it. */
const LIST_TOKENS = 2000;
/** What list-libraries' page leaves for its last line and the answer's frame. */
const LIST_FOOTER_TOKENS = 120;

/** list-libraries' cursor: the offset of the next page, opaque to the agent. */
function cursorOf(offset: number): string {
  return Buffer.from(`o${offset}`).toString('base64url');
}

function offsetOf(cursor: string): number {
  const m = /^o(\d{1,7})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!m) {
    throw new ProContextError('INVALID_INPUT', `'${cursor}' is not a cursor list-libraries gave.`, {
      suggestion: 'Pass the nextCursor of the previous list-libraries answer, or no cursor for the first page.',
    });
  }
  return Number(m[1]);
}

/** Tokens at least left for the source line when content must be asked for again within less. */
const SOURCE_LINE_RESERVE = 60;

/** A get-docs answer as the agent reads it. */
export interface RenderedDocsAnswer {
  /** The answer as returned: related pages only those the text lists, as the text lists them. */
  structured: DocsAnswer;
  /** The markdown text: content, source line, related pages. */
  text: string;
  /** Estimated tokens of the text besides the content (separator, source line, related pages). */
  footerTokens: number;
  /** Estimated tokens by which content plus source line exceed `maxTokens` (0 when they fit). */
  overflow: number;
}

/**
 * Renders a get-docs answer as markdown within `maxTokens` (by the kernel's `estimateTokens`): content,
 * then the source line, then as many related pages as fit, a page's description dropped before the page
 * is. The structured answer lists the same related pages (a low-confidence one keeps its first related pages when none fit). When content and source line alone exceed
 * `maxTokens`, `overflow` says by how much (the text is then over budget: ask the engine again for less
 * content).
 */
export function renderDocsAnswer(answer: DocsAnswer, maxTokens: number): RenderedDocsAnswer {
  const source = `Source: ${answer.source} · version ${answer.version} · fetched ${answer.lastUpdated}${answer.stale ? ' · STALE (the source could not be refreshed)' : ''} · confidence ${answer.confidence}`;
  const more = answer.moreSections ?? 0;
  const leftOut =
    more > 0
      ? `\n${more} more matching section${more === 1 ? '' : 's'} left out: raise maxTokens, read related pages or search-docs.`
      : '';
  const notes = (answer.notes ?? []).map((note) => `\nNote: ${note}`).join('');
  const footer = (list: readonly string[]) =>
    `---\n\n${source}${leftOut}${notes}${list.length > 0 ? `\n\nRelated pages (read-page):\n${list.join('\n')}` : ''}`;
  const render = (list: readonly string[]) => (answer.content ? `${answer.content}\n\n${footer(list)}` : footer(list));
  const footerCost = (list: readonly string[]) => estimateTokens(`\n\n${footer(list)}`);
  const fits = (list: readonly string[]) => estimateTokens(render(list)) <= maxTokens;
  const overflow = Math.max(0, estimateTokens(render([])) - maxTokens);
  const shown: DocsAnswer['relatedPages'] = [];
  const lines: string[] = [];
  if (overflow === 0) {
    for (const page of answer.relatedPages) {
      const bare = tocEntryLine({ title: page.title, url: page.url });
      const full = tocEntryLine(page);
      if (fits([...lines, full])) {
        lines.push(full);
        shown.push(page);
      } else if (full !== bare && fits([...lines, bare])) {
        lines.push(bare);
        shown.push({ ...page, description: '' });
      } else {
        break;
      }
    }
  }
  // seed 001 §11.3: a low-confidence answer includes relatedPages, even when its content filled the text
  const structuredPages =
    shown.length === 0 && answer.confidence < LOW_CONFIDENCE
      ? answer.relatedPages.slice(0, RESERVED_RELATED_PAGES)
      : shown;
  return {
    structured: { ...answer, relatedPages: structuredPages },
    text: render(lines),
    footerTokens: footerCost(lines),
    overflow,
  };
}

/**
 * get-docs within `maxTokens` as the agent reads it. Content comes first: it fills `maxTokens`, less
 * the source line when the two would not fit (the engine refills from the same ranking, told the line's
 * size through `footer`), and related pages fill only what the content leaves (chunks go in whole, so
 * there usually is some), a page's description dropped before the page. Content is never cut to make
 * room for links to other pages: the answer is what the agent asked for.
 */
export async function docsWithinBudget(
  ask: (contentTokens: number, footer: (answer: DocsAnswer) => number) => Promise<DocsAnswer>,
  maxTokens: number,
): Promise<RenderedDocsAnswer> {
  // the engine fits content and source line in one go (it refills from the same ranking when needed)
  const sourceLine = (answer: DocsAnswer) =>
    renderDocsAnswer(
      {
        ...answer,
        content: '',
        relatedPages: [],
      },
      Number.POSITIVE_INFINITY,
    ).footerTokens;
  const raw = await ask(maxTokens, sourceLine);
  const first = renderDocsAnswer(raw, maxTokens);
  if (first.overflow === 0) return first;
  // only when the source line changed with the refill (another best chunk, a longer URL)
  const second = await ask(Math.max(1, maxTokens - Math.max(sourceLine(raw), SOURCE_LINE_RESERVE)), sourceLine);
  // the second ask finds the docs the first one fetched: for this call, they were fetched, not cached
  return renderDocsAnswer({ ...second, cached: raw.cached }, maxTokens);
}

/** The five tools of seed 001 §5 over a {@link DocsEngine}. */
export function docsTools(engine: DocsEngine): ToolDefinition[] {
  const resolveLibrary = defineTool({
    name: 'resolve-library',
    title: 'Resolve library',
    description:
      'Find a library by name (typos, aliases and "name v2" are fine): its libraryId, versions and table of contents. Call it first, then get-docs, or read-page on a TOC URL. At most 3 calls per question; never substitute another version for the one asked.',
    inputSchema: resolveLibraryInput,
    outputSchema: resolveLibraryOutput,
    annotations: readOnly,
    async handler(args, context) {
      const result = await context.logger.span(
        'resolve-library',
        { query: args.query, language: args.language },
        async (span) => {
          const r = await engine.resolve(
            args.query,
            { language: args.language, libraryId: args.libraryId },
            fetchContext(context),
          );
          span.set({ libraryId: r.libraryId, version: r.defaultVersion, tocEntries: r.tocSize });
          return r;
        },
      );
      const { tocSize, matchedBy: _matchedBy, ...structured } = result;
      const lines = [
        `# ${result.name} (${result.libraryId})`,
        result.description ? `\n${result.description}` : '',
        `\nVersion ${result.requestedVersion ? `${result.requestedVersion} (as asked; latest stable ${result.defaultVersion})` : result.defaultVersion}${result.availableVersions.length > 1 ? ` (available: ${result.availableVersions.join(', ')})` : ''}. Sources: ${result.sources.join(', ')}.`,
        ...result.notes.map((note) => `\n**Note:** ${note}`),
        result.alternatives.length > 0 ? `\nAlso matched: ${result.alternatives.map((a) => a.id).join(', ')}.` : '',
        result.toc.length === 0
          ? `\n## Table of contents\n${result.tocError?.timedOut ? 'None: the documentation source timed out (see the note above). This is not an empty library; call resolve-library again shortly.' : result.tocError ? `None: the documentation source failed with ${result.tocError.code} (see the note above).` : 'No documentation is indexed for this library (see the note above).'}`
          : `\n## Table of contents (${result.toc.length}${result.tocTruncated ? ` of ${tocSize}; the full TOC is the resource library://${result.libraryId}/toc` : ''})`,
      ];
      let section: string | undefined;
      for (const entry of result.toc) {
        if (entry.section !== section) {
          section = entry.section;
          lines.push(`\n### ${section ?? 'Pages'}`);
        }
        lines.push(tocEntryLine(entry));
      }
      return { structured, text: lines.filter(Boolean).join('\n') };
    },
  });

  const getDocs = defineTool({
    name: 'get-docs',
    title: 'Get documentation',
    description:
      'Focused documentation on a topic of a library, best match first, up to maxTokens, with its source URL, exact version and relatedPages to read next.',
    inputSchema: getDocsInput,
    outputSchema: getDocsOutput,
    annotations: readOnly,
    async handler(args, context) {
      const answer = await context.logger.span(
        'get-docs',
        { libraryId: args.libraryId, topic: args.topic, version: args.version, maxTokens: args.maxTokens },
        async (span) => {
          // the engine's answer the text is rendered from (the last asked): it says whether it may be served again
          let last: DocsAnswer | undefined;
          const rendered = await docsWithinBudget(async (budget, footer) => {
            last = await engine.getDocs(
              args.libraryId,
              args.topic,
              args.version,
              budget,
              fetchContext(context),
              footer,
            );
            return last;
          }, args.maxTokens);
          const a = rendered.structured;
          span.set({ resultLen: a.content.length, confidence: a.confidence, cached: a.cached, stale: a.stale });
          const reusable = last && engine.reusable(last);
          return { ...rendered, ...(reusable ? { reusable } : {}) };
        },
      );
      return {
        structured: answer.structured,
        text: answer.text,
        ...(answer.reusable ? { reusable: answer.reusable } : {}),
      };
    },
  });

  const searchDocs = defineTool({
    name: 'search-docs',
    title: 'Search documentation',
    description:
      "Search a library's documentation: ranked results with a snippet and URL; read-page a URL for the full text.",
    inputSchema: searchDocsInput,
    outputSchema: searchDocsOutput,
    annotations: readOnly,
    async handler(args, context) {
      const answer = await context.logger.span(
        'search-docs',
        { libraryId: args.libraryId, query: args.query, version: args.version },
        async (span) => {
          const a = await engine.search(args.libraryId, args.query, args.version, args.maxResults);
          span.set({ results: a.results.length, totalMatches: a.totalMatches });
          return a;
        },
      );
      const text =
        answer.results.length === 0
          ? `No results for '${args.query}' in ${args.libraryId} ${answer.version}. Try other words, or browse the TOC (resolve-library).`
          : [
              `${answer.results.length} of ${answer.totalMatches} matches for '${args.query}' in ${args.libraryId} ${answer.version}:`,
              ...answer.results.map(
                (r, i) =>
                  `${i + 1}. **${r.title}** (${r.relevance}${r.kind === 'guide' ? '' : `, ${r.kind}`}) — ${r.section}\n   ${r.url}\n   ${r.snippet}`,
              ),
            ].join('\n\n');
      return { structured: answer, text };
    },
  });

  const readPage = defineTool({
    name: 'read-page',
    title: 'Read a documentation page',
    description:
      'One documentation page (a TOC, search result or relatedPages URL) as markdown; a long one is cut at a section: pass nextOffset as offset to continue.',
    inputSchema: readPageInput,
    outputSchema: readPageOutput,
    annotations: readOnly,
    async handler(args, context) {
      const page = await context.logger.span(
        'read-page',
        { url: args.url, maxTokens: args.maxTokens, offset: args.offset },
        async (span) => {
          const p = await engine.readPage(args.url, args.maxTokens, args.offset, context.signal);
          span.set({ resultLen: p.content.length, truncated: p.truncated, cached: p.cached });
          return p;
        },
      );
      return { structured: page, text: page.content };
    },
  });

  const listLibraries = defineTool({
    name: 'list-libraries',
    title: 'List libraries',
    description:
      "Browse the libraries pro-context knows: the project's and cached ones first, a page at a time (filter with query, language, category; page with cursor). To find one library, resolve-library is quicker.",
    inputSchema: listLibrariesInput,
    outputSchema: listLibrariesOutput,
    annotations: { ...readOnly, openWorldHint: false },
    async handler(args, context) {
      const { cursor, ...filters } = args;
      const offset = cursor === undefined ? 0 : offsetOf(cursor);
      const all = await context.logger.span('list-libraries', { ...args }, () => engine.listLibraries(filters));
      const line = (l: (typeof all)[number]) =>
        `- **${l.name}** (\`${l.id}\`)${l.language ? ` · ${l.language}` : ''} · ${l.defaultVersion}${l.projectDetected ? ` · in this project${l.detectedFrom ? ` (${l.detectedFrom})` : ''}` : l.cached ? ' · cached' : ''}${l.description ? ` — ${l.description}` : ''}`;
      // a page within LIST_TOKENS: its lines and its structured entries (an agent reads both), at least one
      const page: typeof all = [];
      let used = LIST_FOOTER_TOKENS;
      for (const l of all.slice(offset)) {
        used += estimateTokens(line(l)) + estimateTokens(JSON.stringify(l));
        if (page.length > 0 && used > LIST_TOKENS) break;
        page.push(l);
      }
      const next = offset + page.length < all.length ? cursorOf(offset + page.length) : undefined;
      const text =
        all.length === 0
          ? `No libraries match${args.query ? ` '${args.query}'` : ''}. Call resolve-library with the library's name: libraries nobody listed are looked up by name.`
          : [
              ...page.map(line),
              ...(next || offset > 0
                ? [
                    '',
                    `${offset + 1}-${offset + page.length} of ${all.length} (the project's and cached ones first).${next ? ` Next page: cursor "${next}". Narrow with query (words of the name or purpose), language or category.` : ''} To find one library, call resolve-library with its name.`,
                  ]
                : []),
            ].join('\n');
      return { structured: { libraries: page, total: all.length, ...(next ? { nextCursor: next } : {}) }, text };
    },
  });

  return [resolveLibrary, getDocs, searchDocs, readPage, listLibraries] as unknown as ToolDefinition[];
}

import {
  defineTool,
  estimateTokens,
  type FetchContext,
  ProContextError,
  type ToolContext,
  type ToolDefinition,
} from '@pro-context/kernel';
import type { DocsEngine } from '../engine.js';
import { tocEntryLine } from '../resolve-library/toc.js';
import { docsFooterOverhead, renderDocsAnswer } from './render-docs.js';
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

/** The five tools of seed 001 §5 over a {@link DocsEngine}. */
export function docsTools(engine: DocsEngine): ToolDefinition[] {
  const footerOverhead = docsFooterOverhead();
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
      return context.logger.span(
        'get-docs',
        { libraryId: args.libraryId, topic: args.topic, version: args.version, maxTokens: args.maxTokens },
        async (span) => {
          // one way: the engine ranks and fills once, leaving room for the footer rendered here; rendered once
          const { answer, reuse } = await engine.answerDocs(
            {
              libraryId: args.libraryId,
              topic: args.topic,
              version: args.version,
              maxTokens: args.maxTokens,
              overhead: footerOverhead,
            },
            fetchContext(context),
          );
          const rendered = renderDocsAnswer(answer, args.maxTokens);
          const a = rendered.structured;
          span.set({ resultLen: a.content.length, confidence: a.confidence, cached: a.cached, stale: a.stale });
          return { structured: a, text: rendered.text, ...(reuse ? { reuse } : {}) };
        },
      );
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

import {
  cutAtBoundary,
  type DocsEngine,
  fillBudget,
  type RankedChunk,
  type StoredChunk,
} from '@pro-context/engine/api';
import {
  type DocsFallback,
  defineTool,
  estimateTokens,
  isProContextError,
  kernelErrors,
  type ProContextError,
  type SearchBackend,
  type ToolContext,
  type ToolDefinition,
  toProContextError,
  z,
} from '@pro-context/kernel';
import { withEnableHint } from '@pro-context/plugin-kit';
import { codex7Errors, codex7Messages } from './errors.js';
import { documentsOf, isLocalLibrary, localIdOf, pageOf, topicsOf } from './library.js';

const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };

/** Default `tokens` of both docs tools (seed 002). */
export const DEFAULT_TOKENS = 5000;

/** The agent-facing descriptions, as seed 002 writes them. */
export const codex7Descriptions = {
  'resolve-library-id': `Resolves a package name to a library ID. Returns the library info
including which tool to use for fetching documentation.

Check the 'tool' field in the response:
- "get-library-docs": Local library with enhanced features
- "get-context7-docs": Remote library via Context7 API

For local libraries, also check 'topics' for available topic
categories and 'documents' for available .md files.`,
  'get-library-docs': `Fetches documentation for a LOCAL library.

Only use this tool when resolve-library-id returns tool: "get-library-docs"

Parameters:
- libraryId: The library ID from resolve-library-id
- topics: Array of topics to filter by (select from available topics)
- customQuery: Additional semantic search within selected topics
- path: Specific document path (e.g., "README.md", "docs/api.md")
- tokens: Maximum tokens to return

Workflow:
1. Start with README.md to understand library structure
2. Select relevant topics from the available hierarchy
3. Use customQuery to narrow results within topics`,
  'get-context7-docs': `Fetches documentation for a REMOTE library via Context7.

Only use this tool when resolve-library-id returns tool: "get-context7-docs"

Parameters:
- libraryId: The library ID from resolve-library-id
- topic: Single search string describing what you need
- tokens: Maximum tokens to return

Note: This tool has limited features compared to local libraries.
Combine your search terms into a single descriptive topic string.`,
} as const;

const tokensSchema = z
  .number()
  .int()
  .min(100)
  .max(50_000)
  .default(DEFAULT_TOKENS)
  .describe(`Maximum tokens to return (default ${DEFAULT_TOKENS}).`);

const resolveInput = z.strictObject({
  libraryName: z.string().min(1).max(500).describe('Package or library name, e.g. "next.js" or "pydantic".'),
});
const resolveOutput = z.object({
  id: z.string(),
  title: z.string(),
  source: z.enum(['local', 'remote']),
  tool: z.enum(['get-library-docs', 'get-context7-docs']),
  topics: z.record(z.string(), z.array(z.string())).nullable(),
  documents: z.array(z.object({ path: z.string(), title: z.string() })).nullable(),
});

const libraryDocsInput = z.strictObject({
  libraryId: z.string().min(1).max(500).describe('The library ID from resolve-library-id.'),
  topics: z.array(z.string().min(1)).max(50).optional().describe('Topics to filter by (from resolve-library-id).'),
  customQuery: z.string().min(1).max(500).optional().describe('Semantic search within the selected topics.'),
  path: z.string().min(1).max(2000).optional().describe('One document path, e.g. "README.md".'),
  tokens: tokensSchema,
});
const libraryDocsOutput = z.object({
  libraryId: z.string(),
  version: z.string(),
  topics: z.array(z.string()),
  customQuery: z.string().optional(),
  path: z.string().optional(),
  content: z.string(),
  sources: z.array(z.string()),
  truncated: z.boolean(),
});

const context7DocsInput = z.strictObject({
  libraryId: z.string().min(1).max(500).describe('The library ID from resolve-library-id, e.g. "/vercel/next.js".'),
  topic: z.string().max(500).optional().describe('One search string describing what you need.'),
  tokens: tokensSchema,
});
const context7DocsOutput = z.object({
  libraryId: z.string(),
  topic: z.string(),
  content: z.string(),
  truncated: z.boolean(),
});

/** Context7 library IDs as its API takes them. */
// `/org/project`, `/org/project/version` or `/org/project@version`; the `@version` form needs no branch of its own
// (the project segment takes it), and one way to match keeps the check linear (issue #25).
const CONTEXT7_ID = /^\/[^/\s]+\/[^/\s]+(?:\/[^/\s]+)?$/;

/** Engine errors about the question, not about reaching the documentation: Context7 is not asked for them. */
const NOT_A_FETCH_FAILURE = new Set(['TOPIC_NOT_FOUND', 'VERSION_NOT_FOUND', 'INVALID_INPUT', 'LIBRARY_NOT_FOUND']);

/** Whether an engine failure is about fetching documentation (Context7 may answer instead). */
function isFetchFailure(error: unknown): boolean {
  const code = toProContextError(error).code;
  return !code.startsWith('CODEX7_') && !NOT_A_FETCH_FAILURE.has(code);
}

/** The truncation note the engine's read-page writes (it names read-page and maxTokens). */
const READ_PAGE_NOTE = /\n\n\[Content truncated\. (\d+) tokens not shown\.[^\n]*\](?:\n\[To continue[^\n]*\])?\s*$/;

/**
 * `resolve-library-id`, `get-library-docs` and `get-context7-docs` (seed 002). Local ids carry the seed's
 * leading slash (`/httpx`). When the docs engine cannot fetch a local library's documentation (or a name
 * cannot be resolved because a registry failed), Context7 answers through `fallback`, and says so; without its
 * key, the answer names the key.
 */
export function codex7Tools(engine: DocsEngine, search: SearchBackend, fallback: DocsFallback): ToolDefinition[] {
  // the fallback's own errors (Context7's plain `[Context7 API key not configured]`) as it writes them
  const renderError = (error: ProContextError) =>
    fallback.renderError?.(error) ?? JSON.stringify(error.toPayload(), null, 2);
  // the fallback's text for the agent's library id and topic as given (Context7's `/org/project/version` kept)
  const textOf = (libraryId: string, query: string, signal: AbortSignal) => {
    if (!fallback.text) throw codex7Errors.create('CODEX7_NO_PASSTHROUGH', { service: fallback.name });
    return fallback.text(libraryId, query, signal);
  };

  /** Context7's documentation of a local library the engine could not fetch, as get-library-docs answers. */
  async function fromContext7(
    name: string,
    id: string,
    query: string,
    tokens: number,
    reason: string,
    context: ToolContext,
  ) {
    const answer = await fallback.docs({ library: name, ...(query ? { topic: query } : {}), tokens }, context.signal);
    if (!answer) {
      throw codex7Messages.create('NONE_ANYWHERE', { name, reason });
    }
    return {
      structured: {
        libraryId: `/${id}`,
        version: 'latest',
        topics: [],
        content: answer.content,
        sources: [answer.url],
        truncated: false,
      },
      text: `${answer.content}\n\n---\n\nSource: Context7 ${answer.libraryId} · ${answer.url} (fallback: ${reason})`,
    };
  }

  const resolve = defineTool({
    name: 'resolve-library-id',
    title: 'Resolve library ID (local or Context7)',
    description: codex7Descriptions['resolve-library-id'],
    inputSchema: resolveInput,
    outputSchema: resolveOutput,
    annotations: readOnly,
    renderError,
    async handler(args, context) {
      return context.logger.span('codex7.resolve', { libraryName: args.libraryName }, async (span) => {
        let local: Awaited<ReturnType<DocsEngine['resolve']>> | undefined;
        let notFound: unknown;
        try {
          local = await engine.resolve(args.libraryName, {}, { signal: context.signal });
        } catch (error) {
          const notLocal = isProContextError(error) && error.code === 'LIBRARY_NOT_FOUND';
          // a registry refused or unreachable while resolving a name: Context7 may know it (issue #26)
          if (!notLocal && !(isFetchFailure(error) && !context.signal.aborted)) throw error;
          notFound = error;
        }
        // a local library without documentation is worth less than Context7's, when Context7 can answer
        if (local && (local.toc.length > 0 || !fallback.available)) {
          const notes =
            local.toc.length === 0
              ? [...local.notes, `Its documentation could not be fetched. ${fallback.enableHint}`]
              : local.notes;
          const structured = {
            id: `/${local.libraryId}`,
            title: local.name,
            source: 'local' as const,
            tool: 'get-library-docs' as const,
            topics: topicsOf(local.toc),
            documents: documentsOf(local.toc).map(({ path, title }) => ({ path, title })),
          };
          span.set({ source: 'local', id: structured.id });
          return { structured, text: renderResolved(structured, notes) };
        }
        if (!fallback.available && notFound) throw withEnableHint(toProContextError(notFound), fallback.enableHint);
        const [best] = await fallback.search(args.libraryName, context.signal);
        if (!best) {
          if (notFound) throw notFound;
          throw codex7Messages.create('NO_MATCH', { name: args.libraryName.slice(0, 200) });
        }
        const structured = {
          id: best.id,
          title: best.title,
          source: 'remote' as const,
          tool: 'get-context7-docs' as const,
          topics: null,
          documents: null,
        };
        span.set({ source: 'remote', id: structured.id });
        return { structured, text: renderResolved(structured, []) };
      });
    },
  });

  const libraryDocs = defineTool({
    name: 'get-library-docs',
    title: 'Local library documentation',
    description: codex7Descriptions['get-library-docs'],
    inputSchema: libraryDocsInput,
    outputSchema: libraryDocsOutput,
    annotations: readOnly,
    renderError,
    async handler(args, context) {
      const fields = { libraryId: args.libraryId, topics: args.topics, customQuery: args.customQuery, path: args.path };
      return context.logger.span('codex7.get-library-docs', fields, async (span) => {
        if (!isLocalLibrary(engine, args.libraryId)) throw codex7Errors.create('CODEX7_NOT_LOCAL', {});
        const id = localIdOf(args.libraryId);
        if (args.path !== undefined && (args.topics?.length || args.customQuery !== undefined)) {
          const others = [args.topics?.length ? 'topics' : '', args.customQuery !== undefined ? 'customQuery' : '']
            .filter(Boolean)
            .join(' and ');
          throw codex7Errors.create('CODEX7_PATH_WITH_FILTERS', { others });
        }
        const resolved = await engine.resolve(id, { libraryId: id }, { signal: context.signal });
        const query = [...(args.topics ?? []), args.customQuery ?? ''].join(' ').trim();
        // the engine knows the library but could not fetch its documentation: Context7, or a message that says so
        const unfetched = async (reason: string, cause?: unknown) => {
          span.set({ fallback: fallback.id, available: fallback.available });
          if (fallback.available) return fromContext7(resolved.name, id, query, args.tokens, reason, context);
          throw codex7Messages.create(
            'UNFETCHED',
            { name: resolved.name, reason: reason.replace(/\.$/, ''), hint: fallback.enableHint },
            cause ? { cause } : {},
          );
        };
        if (resolved.toc.length === 0) {
          return unfetched(resolved.tocError?.message ?? resolved.notes[0] ?? 'its sources answered nothing');
        }
        try {
          return await localDocs(resolved);
        } catch (error) {
          if (!isFetchFailure(error) || context.signal.aborted) throw error;
          return unfetched(toProContextError(error).message, error);
        }

        async function localDocs(resolved: Awaited<ReturnType<DocsEngine['resolve']>>) {
          const documents = documentsOf(resolved.toc);
          const version = resolved.requestedVersion ?? resolved.defaultVersion;

          // one document, or the first one (the library's README-like start) when nothing narrows the request
          if (args.path !== undefined || (!args.topics?.length && args.customQuery === undefined)) {
            const wanted = args.path
              ?.trim()
              .replace(/^\.?\//, '')
              .toLowerCase();
            const document =
              wanted === undefined
                ? documents[0]
                : documents.find((d) => d.path.toLowerCase() === wanted || d.url.toLowerCase() === wanted);
            if (!document) {
              throw codex7Errors.create('CODEX7_UNKNOWN_DOCUMENT', { path: args.path ?? '', library: id });
            }
            const page = await engine.readPage(document.url, args.tokens, 0, context.signal);
            // the engine's note names read-page and maxTokens; this tool's are get-library-docs and tokens
            const cut = READ_PAGE_NOTE.exec(page.content);
            const content = cut ? page.content.slice(0, cut.index) : page.content;
            const more = page.truncated
              ? `\n\n[Content truncated. ${cut?.[1] ?? Math.max(0, page.contentLength - estimateTokens(content))} tokens not shown. Call get-library-docs again with path "${document.path}" and a higher tokens limit (the whole document is about ${page.contentLength} tokens) to see more.]`
              : '';
            span.set({ version, resultLen: content.length });
            return {
              structured: {
                libraryId: `/${id}`,
                version,
                topics: [],
                path: document.path,
                content,
                sources: [page.url],
                truncated: page.truncated,
              },
              text: `${content}${more}\n\n---\n\nDocument ${document.path} of ${resolved.name} ${version} · ${page.url}`,
            };
          }

          // topics: categories (every page of a TOC section) or page titles, case-insensitive; no guessing
          const topics = topicsOf(resolved.toc);
          const selected = new Set<string>();
          for (const topic of args.topics ?? []) {
            const want = topic.trim().toLowerCase();
            const category = Object.keys(topics).find((c) => c.toLowerCase() === want);
            const entries = resolved.toc.filter((e) =>
              category ? (e.section?.trim() || 'general') === category : e.title.trim().toLowerCase() === want,
            );
            if (entries.length === 0) {
              const available = Object.entries(topics)
                .map(([c, titles]) => `${c} (${titles.slice(0, 8).join(', ')}${titles.length > 8 ? ', …' : ''})`)
                .join('; ');
              throw codex7Errors.create('CODEX7_UNKNOWN_TOPIC', {
                topic,
                library: id,
                available: available.slice(0, 1500),
              });
            }
            for (const e of entries) selected.add(e.url);
          }
          const inTopics = (chunk: StoredChunk) =>
            selected.size === 0 || selected.has(chunk.url) || selected.has(pageOf(chunk.url));

          const loaded = await engine.loadDocs(id, version, { signal: context.signal });
          const chunks = await loaded.docs.all();
          const byId = new Map(chunks.map((c) => [c.id, c]));
          let ranked: RankedChunk[];
          if (args.customQuery !== undefined) {
            const hits = await search.search(loaded.docs.key, args.customQuery, { limit: 1000 });
            ranked = hits.hits
              .map((hit) => byId.get(hit.id))
              .filter((c): c is StoredChunk => c !== undefined && inTopics(c))
              .map((chunk, i, all) => ({ chunk, score: all.length - i, coverage: 0 }));
            if (ranked.length === 0) {
              throw kernelErrors.create('TOPIC_NOT_FOUND', {
                library: resolved.name,
                version,
                topic: args.topics?.length
                  ? `${args.customQuery}' within '${args.topics.join(', ')}`
                  : args.customQuery,
              });
            }
          } else {
            // the selected pages in TOC order, each page's chunks in order
            const rank = new Map([...selected].map((url, i) => [url, i]));
            const pageRank = (c: StoredChunk) => rank.get(c.url) ?? rank.get(pageOf(c.url)) ?? 0;
            ranked = chunks
              .filter(inTopics)
              .sort((a, b) => pageRank(a) - pageRank(b) || a.order - b.order)
              .map((chunk, i, all) => ({ chunk, score: all.length - i, coverage: 0 }));
          }
          const { content, used } = fillBudget(ranked, args.tokens);
          const sources = [...new Set(used.map((r) => r.chunk.url))];
          span.set({ version, resultLen: content.length });
          return {
            structured: {
              libraryId: `/${id}`,
              version,
              topics: args.topics ?? [],
              ...(args.customQuery === undefined ? {} : { customQuery: args.customQuery }),
              content,
              sources,
              truncated: used.length < ranked.length,
            },
            text: `${content}\n\n---\n\n${resolved.name} ${version}${args.topics?.length ? ` · topics: ${args.topics.join(', ')}` : ''}${args.customQuery ? ` · customQuery: ${args.customQuery}` : ''} · ${used.length} of ${ranked.length} sections within ${args.tokens} tokens`,
          };
        }
      });
    },
  });

  const context7Docs = defineTool({
    name: 'get-context7-docs',
    title: 'Context7 library documentation',
    description: codex7Descriptions['get-context7-docs'],
    inputSchema: context7DocsInput,
    outputSchema: context7DocsOutput,
    annotations: readOnly,
    renderError,
    async handler(args, context) {
      const fields = { libraryId: args.libraryId, topic: args.topic ?? '' };
      return context.logger.span('codex7.get-context7-docs', fields, async (span) => {
        if (isLocalLibrary(engine, args.libraryId)) throw codex7Errors.create('CODEX7_IS_LOCAL', {});
        if (!CONTEXT7_ID.test(args.libraryId)) {
          throw codex7Errors.create('CODEX7_BAD_LIBRARY_ID', { libraryId: args.libraryId.slice(0, 200) });
        }
        const topic = args.topic?.trim() ?? '';
        // Context7 requires a query: without a topic, the library's name (its general documentation)
        const name = args.libraryId.split('/')[2] as string;
        const text = await textOf(args.libraryId, topic || name, context.signal);
        if (!text.trim()) {
          const message = `Documentation not found or not finalized for ${args.libraryId}.`;
          return {
            structured: { libraryId: args.libraryId, topic, content: '', truncated: false },
            text: message,
          };
        }
        const content = cutAtBoundary(text, args.tokens);
        const truncated = content.length < text.length;
        span.set('resultLen', content.length);
        return {
          structured: { libraryId: args.libraryId, topic, content, truncated },
          text: truncated
            ? `${content}\n\n[Truncated to ${args.tokens} tokens (about ${estimateTokens(text)} available).]`
            : content,
        };
      });
    },
  });

  return [resolve, libraryDocs, context7Docs] as ToolDefinition[];
}

function renderResolved(r: z.output<typeof resolveOutput>, notes: readonly string[]): string {
  const lines = [`id: ${r.id}`, `title: ${r.title}`, `source: ${r.source}`, `tool: ${r.tool}`];
  if (r.topics) {
    lines.push('', 'topics:');
    for (const [category, titles] of Object.entries(r.topics)) lines.push(`- ${category}: ${titles.join(', ')}`);
  } else lines.push('topics: null');
  if (r.documents) {
    lines.push('', 'documents:');
    for (const d of r.documents) lines.push(`- ${d.path} — ${d.title}`);
  } else lines.push('documents: null');
  for (const note of notes) lines.push('', `Note: ${note}`);
  lines.push('', `Next: call ${r.tool} with libraryId "${r.id}".`);
  return lines.join('\n');
}

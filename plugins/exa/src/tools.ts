import {
  type CacheStore,
  cacheStoreToken,
  defineTool,
  type HttpClient,
  inject,
  injectable,
  kernelTokens,
  type ToolContext,
  type ToolDefinition,
  type ToolPlugin,
  z,
} from '@pro-context/kernel';
import { cachedResult, cacheKeyOf, maskingKey, remoteToolErrorText, requireKey } from '@pro-context/plugin-kit';
import { EXA_MISSING_KEY_MESSAGE, type ExaResult, exaErrors, exaPost } from './exa.js';
import { type ExaPluginOptions, exaOptionsToken } from './options.js';

/** Cache namespace of Exa results. */
export const EXA_CACHE_NAMESPACE = 'exa';

/** The categories `web_search` takes (seed 004 §2.2). */
export const webSearchCategories = ['news', 'research', 'documentation'] as const;

/**
 * The Exa category sent for each: Exa has `news` and `research paper`; it has no documentation category, so
 * `documentation` sends none and is left to the query's wording.
 */
const exaCategory: Record<(typeof webSearchCategories)[number], string | undefined> = {
  news: 'news',
  research: 'research paper',
  documentation: undefined,
};

const SNIPPET_CHARACTERS = 300;

/** `web_search` arguments (seed 004 §2.2). */
export const webSearchInput = z.object({
  query: z.string().trim().min(1).max(2000).describe('Search query'),
  numResults: z.number().int().min(1).max(25).default(5).describe('Results to return (default: 5, at most 25)'),
  searchType: z
    .enum(['neural', 'keyword'])
    .default('neural')
    .describe('neural (default): meaning-based ranking; keyword: exact terms'),
  includeContent: z.boolean().default(true).describe("Extract each page's text (default: true)"),
  category: z.enum(webSearchCategories).optional().describe('Limit to news, research or documentation'),
});

/** `web_search` result (seed 004 §2.2). */
export const webSearchOutput = z.object({
  results: z.array(
    z.object({
      title: z.string(),
      url: z.string(),
      snippet: z.string(),
      content: z.string().optional().describe('Full content if requested'),
      publishedDate: z.string().optional(),
      score: z.number(),
    }),
  ),
  searchMetadata: z.object({
    query: z.string(),
    totalResults: z.number(),
    searchTime: z.number().describe('Milliseconds the search took upstream'),
  }),
});

/** `find_similar_content` arguments (seed 004 §2.2). */
export const findSimilarInput = z.object({
  url: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .describe('Reference URL'),
  numResults: z.number().int().min(1).max(25).default(5).describe('Results to return (default: 5, at most 25)'),
});

/** `find_similar_content` result (seed 004 §2.2). */
export const findSimilarOutput = z.object({
  results: z.array(z.object({ title: z.string(), url: z.string(), snippet: z.string(), similarity: z.number() })),
});

type WebSearchOutput = z.output<typeof webSearchOutput>;
type FindSimilarOutput = z.output<typeof findSimilarOutput>;

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/** A result's snippet: its first highlight, else the start of its text or summary. */
function snippetOf(result: ExaResult): string {
  const highlight = result.highlights?.find((h) => h.trim().length > 0);
  const source = highlight ?? result.text ?? result.summary ?? '';
  const flat = oneLine(source);
  return flat.length > SNIPPET_CHARACTERS ? `${flat.slice(0, SNIPPET_CHARACTERS - 1)}…` : flat;
}

const titleOf = (result: ExaResult) => oneLine(result.title ?? '') || result.url;
const linkTitle = (title: string) => title.replace(/[[\]\\]/g, (c) => `\\${c}`);
const quote = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((line) => `> ${line}`.trimEnd())
    .join('\n');

/** The markdown an agent reads for a `web_search` result. */
export function renderWebSearch(output: WebSearchOutput): string {
  const { query, totalResults } = output.searchMetadata;
  if (output.results.length === 0) return `## Web results for "${query}"\n\nNo results.`;
  const blocks = output.results.map((r, i) => {
    const facts = [
      ...(r.publishedDate ? [`published ${r.publishedDate.slice(0, 10)}`] : []),
      `score ${r.score.toFixed(2)}`,
    ].join(' · ');
    const lines = [`### ${i + 1}. [${linkTitle(r.title)}](${r.url})`, facts];
    if (r.snippet) lines.push('', quote(r.snippet));
    if (r.content && r.content.trim() !== r.snippet) lines.push('', '**Content:**', '', r.content.trim());
    return lines.join('\n');
  });
  return `## Web results for "${query}" (${totalResults})\n\n${blocks.join('\n\n')}`;
}

/** The markdown an agent reads for a `find_similar_content` result. */
export function renderFindSimilar(url: string, output: FindSimilarOutput): string {
  if (output.results.length === 0) return `## Pages similar to ${url}\n\nNo results.`;
  const lines = output.results.map(
    (r, i) =>
      `${i + 1}. [${linkTitle(r.title)}](${r.url}) — similarity ${r.similarity.toFixed(2)}${r.snippet ? `\n   ${r.snippet}` : ''}`,
  );
  return `## Pages similar to ${url} (${output.results.length})\n\n${lines.join('\n')}`;
}

/** The text of an error result: the plain message for a missing key, else the catalog payload. */
const renderExaError = remoteToolErrorText('EXA_KEY_MISSING', EXA_MISSING_KEY_MESSAGE);

/** Exa's `web_search` and `find_similar_content` tools (seed 004 §2.2). */
@injectable()
export class ExaTools implements ToolPlugin {
  readonly id = 'exa';

  constructor(
    @inject(exaOptionsToken) private readonly options: ExaPluginOptions,
    @inject(kernelTokens.http) private readonly http: HttpClient,
    @inject(cacheStoreToken) private readonly cache: CacheStore,
  ) {}

  tools(): ToolDefinition[] {
    const annotations = { readOnlyHint: true, openWorldHint: true, idempotentHint: true };
    return [
      defineTool({
        name: 'web_search',
        title: 'Web search (Exa)',
        description:
          'Perform intelligent web search with AI-optimized ranking (Exa). Use for current information, news and pages no library documentation covers. Returns titles, URLs, snippets and, with includeContent (default), page text.',
        inputSchema: webSearchInput,
        outputSchema: webSearchOutput,
        annotations,
        renderError: renderExaError,
        handler: (args, context) => this.webSearch(args, context),
      }),
      defineTool({
        name: 'find_similar_content',
        title: 'Find similar content (Exa)',
        description: 'Find content similar to a given URL (Exa): pages on the same subject, with a similarity score.',
        inputSchema: findSimilarInput,
        outputSchema: findSimilarOutput,
        annotations,
        renderError: renderExaError,
        handler: (args, context) => this.findSimilar(args, context),
      }),
    ] as unknown as ToolDefinition[];
  }

  private request() {
    const apiKey = requireKey(this.options.apiKey, () => exaErrors.create('EXA_KEY_MISSING', {}));
    return {
      apiKey,
      options: {
        url: this.options.url,
        apiKey,
        timeoutMs: this.options.timeoutSeconds * 1000,
        retry: this.options.retry,
      },
    };
  }

  private cached<T>(key: string, load: () => Promise<T>) {
    return cachedResult(
      this.cache,
      EXA_CACHE_NAMESPACE,
      key,
      { ttlMs: Math.round(this.options.cacheMinutes * 60_000) },
      load,
    );
  }

  private webSearch(args: z.output<typeof webSearchInput>, context: ToolContext) {
    return context.logger.span(
      'exa.web_search',
      { query: args.query, numResults: args.numResults, searchType: args.searchType },
      async (span) => {
        const { apiKey, options } = this.request();
        const category = args.category ? exaCategory[args.category] : undefined;
        const body = {
          query: args.query,
          type: args.searchType,
          numResults: args.numResults,
          ...(category ? { category } : {}),
          contents: {
            ...(args.includeContent ? { text: { maxCharacters: this.options.maxContentCharacters } } : {}),
            highlights: { numSentences: 3, highlightsPerUrl: 1 },
          },
        };
        return maskingKey(apiKey, async () => {
          const { value, cached } = await this.cached(cacheKeyOf('search', this.options.url, body), async () => {
            const { response, elapsedMs } = await exaPost(this.http, '/search', body, options);
            const results = (response.results ?? []).map((r) => ({
              title: titleOf(r),
              url: r.url,
              snippet: snippetOf(r),
              ...(args.includeContent && r.text ? { content: r.text } : {}),
              ...(r.publishedDate ? { publishedDate: r.publishedDate } : {}),
              score: typeof r.score === 'number' ? r.score : 0,
            }));
            return {
              results,
              searchMetadata: { query: args.query, totalResults: results.length, searchTime: elapsedMs },
            } satisfies WebSearchOutput;
          });
          span.set({ resultCount: value.results.length, cached });
          return { structured: value, text: renderWebSearch(value) };
        });
      },
    );
  }

  private findSimilar(args: z.output<typeof findSimilarInput>, context: ToolContext) {
    return context.logger.span(
      'exa.find_similar_content',
      { url: args.url, numResults: args.numResults },
      async (span) => {
        const { apiKey, options } = this.request();
        const body = {
          url: args.url,
          numResults: args.numResults,
          contents: { highlights: { numSentences: 2, highlightsPerUrl: 1 } },
        };
        return maskingKey(apiKey, async () => {
          const { value, cached } = await this.cached(cacheKeyOf('findSimilar', this.options.url, body), async () => {
            const { response } = await exaPost(this.http, '/findSimilar', body, options);
            return {
              results: (response.results ?? []).map((r) => ({
                title: titleOf(r),
                url: r.url,
                snippet: snippetOf(r),
                similarity: typeof r.score === 'number' ? r.score : 0,
              })),
            } satisfies FindSimilarOutput;
          });
          span.set({ resultCount: value.results.length, cached });
          return { structured: value, text: renderFindSimilar(args.url, value) };
        });
      },
    );
  }
}

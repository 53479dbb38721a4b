import { type ToolContext, type ToolDefinition, z } from '@pro-context/kernel';
import { cacheKeyOf, RemoteTools } from '@pro-context/plugin-kit';
import { type ExaResult, exaPost } from './exa.js';
import type { ExaPluginOptions } from './options.js';

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

/**
 * Exa's `web_search` and `find_similar_content` tools (seed 004 §2.2), on plugin-kit's remote-tool scaffolding
 * (built by the plugin with its options, the HTTP client and the cache; a missing key answers the plain message).
 */
export class ExaTools extends RemoteTools<ExaPluginOptions> {
  tools(): ToolDefinition[] {
    return [
      this.tool({
        name: 'web_search',
        title: 'Web search (Exa)',
        description:
          'Perform intelligent web search with AI-optimized ranking (Exa). Use for current information, news and pages no library documentation covers. Returns titles, URLs, snippets and, with includeContent (default), page text.',
        inputSchema: webSearchInput,
        outputSchema: webSearchOutput,
        handler: (args, context) => this.webSearch(args, context),
      }),
      this.tool({
        name: 'find_similar_content',
        title: 'Find similar content (Exa)',
        description: 'Find content similar to a given URL (Exa): pages on the same subject, with a similarity score.',
        inputSchema: findSimilarInput,
        outputSchema: findSimilarOutput,
        handler: (args, context) => this.findSimilar(args, context),
      }),
    ];
  }

  private webSearch(args: z.output<typeof webSearchInput>, context: ToolContext) {
    return context.logger.span(
      'exa.web_search',
      { query: args.query, numResults: args.numResults, searchType: args.searchType },
      async (span) => {
        const connection = this.connection();
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
        const key = cacheKeyOf('search', this.options.url, body);
        const { value, cached } = await this.cached(connection.apiKey, key, async () => {
          const { response, elapsedMs } = await exaPost(this.http, '/search', body, connection);
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
      },
    );
  }

  private findSimilar(args: z.output<typeof findSimilarInput>, context: ToolContext) {
    return context.logger.span(
      'exa.find_similar_content',
      { url: args.url, numResults: args.numResults },
      async (span) => {
        const connection = this.connection();
        const body = {
          url: args.url,
          numResults: args.numResults,
          contents: { highlights: { numSentences: 2, highlightsPerUrl: 1 } },
        };
        const key = cacheKeyOf('findSimilar', this.options.url, body);
        const { value, cached } = await this.cached(connection.apiKey, key, async () => {
          const { response } = await exaPost(this.http, '/findSimilar', body, connection);
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
      },
    );
  }
}

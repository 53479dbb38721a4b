import { type ToolContext, type ToolDefinition, z } from '@pro-context/kernel';
import { cacheKeyOf, RemoteTools } from '@pro-context/plugin-kit';
import { type GroundedAnswer, generateGrounded, renderSources } from './gemini.js';
import { type GroundingPluginOptions, geminiModelSchema } from './options.js';

/** Cache namespace of grounded answers. */
export const GROUNDING_CACHE_NAMESPACE = 'grounding';

/** The focus modes of `ground.search` (seed 003). */
export const groundingFocusModes = ['general', 'code', 'documentation', 'troubleshooting'] as const;
/** One of {@link groundingFocusModes}. */
export type GroundingFocus = (typeof groundingFocusModes)[number];

const FOCUS_INSTRUCTIONS: Record<GroundingFocus, string> = {
  general: 'Give an accurate, current and concise answer.',
  code: 'Focus on working code: examples, implementation patterns and the exact APIs to call, in fenced code blocks.',
  documentation: 'Focus on official documentation and API references: exact signatures, parameters and options.',
  troubleshooting:
    'Focus on troubleshooting: the likely causes of the problem, known issues and bug reports, and fixes or workarounds that are confirmed to work.',
};

const query = z.string().trim().min(1).max(2000).describe('What to search for.');
const model = geminiModelSchema
  .optional()
  .describe('Gemini model to ground with (for example gemini-2.5-flash). Default: the configured model.');
const label = (what: string) =>
  z
    .string()
    .trim()
    .min(1)
    .max(100)
    .regex(/^[^\n\r]+$/, `One line: the ${what}`);

const searchInput = z.object({
  query,
  context: z
    .string()
    .trim()
    .min(1)
    .max(2000)
    .optional()
    .describe("Background that shapes the search (for example 'Python async programming')."),
  focus: z
    .enum(groundingFocusModes)
    .default('general')
    .describe('What to favour: general (default), code, documentation or troubleshooting.'),
  model,
});
const devInput = z.object({
  query,
  language: label('programming language').optional().describe("Programming language to favour (for example 'Python')."),
  framework: label('framework').optional().describe("Framework to favour (for example 'FastAPI')."),
  model,
});
const docsInput = z.object({
  query,
  technology: label('technology')
    .optional()
    .describe("Technology whose official documentation to search (for example 'React')."),
  model,
});
const redditInput = z.object({
  query,
  subreddit: z
    .string()
    .trim()
    .regex(/^(?:\/?r\/)?[A-Za-z0-9_]{2,21}$/, 'A subreddit name such as programming')
    .optional()
    .describe("Limit the search to one subreddit (for example 'programming')."),
  model,
});

const groundingOutput = z.object({
  answer: z.string().describe("Gemini's answer, grounded in Google Search results"),
  sources: z
    .array(z.object({ title: z.string(), url: z.string() }))
    .describe('Cited pages, each URL once, numbered in the text rendering in this order'),
  searchQueries: z.array(z.string()).describe('The Google searches the model ran'),
  grounded: z.boolean().describe('Whether the answer carried grounding metadata (false: the model did not search)'),
  model: z.string().describe('The Gemini model that answered'),
  cached: z.boolean().describe('Whether this answer was reused from the cache'),
});

type GroundingOutput = z.output<typeof groundingOutput>;

/** The prompt of each tool: the query plus what the seed asks each tool and parameter to favour. */
export const groundingPrompts = {
  search(args: z.output<typeof searchInput>): string {
    return [
      `Search the web and answer: ${args.query}`,
      ...(args.context ? [`Context: ${args.context}`] : []),
      FOCUS_INSTRUCTIONS[args.focus],
    ].join('\n\n');
  },
  dev(args: z.output<typeof devInput>): string {
    return [
      `Search developer resources (GitHub repositories and issues, Stack Overflow answers, official documentation and technical blogs) and answer: ${args.query}`,
      ...(args.language ? [`Prioritize results for the ${args.language} programming language.`] : []),
      ...(args.framework ? [`Prioritize results for the ${args.framework} framework.`] : []),
      'Include code examples where they help.',
    ].join('\n\n');
  },
  docs(args: z.output<typeof docsInput>): string {
    return [
      `Search official documentation and API references and answer: ${args.query}`,
      ...(args.technology
        ? [`Search the official ${args.technology} documentation; prefer it over third-party tutorials.`]
        : ['Prefer official documentation over third-party tutorials.']),
      'Quote exact API names, signatures and options.',
    ].join('\n\n');
  },
  reddit(args: z.output<typeof redditInput>): string {
    const subreddit = args.subreddit?.replace(/^\/?r\//, '');
    return [
      `Search Reddit posts and comments (site:reddit.com) and summarize what people say about: ${args.query}`,
      ...(subreddit
        ? [`Only use discussions from the r/${subreddit} subreddit (site:reddit.com/r/${subreddit}).`]
        : []),
      'Name the threads you draw on and note where opinions differ.',
    ].join('\n\n');
  },
};

/** The rendering an agent reads: the answer, then the numbered, de-duplicated sources (or the note that there are none). */
export function renderGrounded(answer: GroundedAnswer): string {
  return `${answer.answer}\n\n${renderSources(answer)}`;
}

/**
 * The `ground.*` tools over Gemini's `generateContent` with Google Search grounding, on plugin-kit's remote-tool
 * scaffolding (built by the plugin with its options, the HTTP client and the cache; a missing key answers the
 * seed's exact message).
 */
export class GroundingTools extends RemoteTools<GroundingPluginOptions> {
  tools(): ToolDefinition[] {
    return [
      this.tool({
        name: 'ground.search',
        title: 'Grounded web search',
        description:
          'Web search answered by Gemini with Google Search grounding, with numbered source links. Use for current information no library documentation covers. `focus`: general (default), code, documentation or troubleshooting; `context` shapes the search.',
        inputSchema: searchInput,
        outputSchema: groundingOutput,
        handler: (args, context) =>
          this.run('ground.search', args.query, args.model, groundingPrompts.search(args), context),
      }),
      this.tool({
        name: 'ground.dev',
        title: 'Grounded developer search',
        description:
          'Searches developer resources (GitHub, Stack Overflow, official docs) with Gemini and Google Search; `language` and `framework` prioritize results for them. Answers with numbered source links.',
        inputSchema: devInput,
        outputSchema: groundingOutput,
        handler: (args, context) => this.run('ground.dev', args.query, args.model, groundingPrompts.dev(args), context),
      }),
      this.tool({
        name: 'ground.docs',
        title: 'Grounded documentation search',
        description:
          'Searches official documentation and API references with Gemini and Google Search; `technology` names whose docs to search (e.g. React). Answers with numbered source links. For indexed libraries, get-docs is faster and versioned.',
        inputSchema: docsInput,
        outputSchema: groundingOutput,
        handler: (args, context) =>
          this.run('ground.docs', args.query, args.model, groundingPrompts.docs(args), context),
      }),
      this.tool({
        name: 'ground.reddit',
        title: 'Grounded Reddit search',
        description:
          'Searches indexed Reddit posts and comments with Gemini and Google Search; `subreddit` limits the search to one subreddit. Answers with numbered source links.',
        inputSchema: redditInput,
        outputSchema: groundingOutput,
        handler: (args, context) =>
          this.run('ground.reddit', args.query, args.model, groundingPrompts.reddit(args), context),
      }),
    ];
  }

  private run(
    span: string,
    queryText: string,
    modelOverride: string | undefined,
    prompt: string,
    context: ToolContext,
  ): Promise<{ structured: GroundingOutput; text: string }> {
    const modelName = modelOverride ?? this.options.model;
    return context.logger.span(span, { query: queryText }, async (record) => {
      const connection = this.connection();
      const key = cacheKeyOf(span, this.options.url, modelName, prompt);
      try {
        const { value, cached } = await this.cached(connection.apiKey, key, () =>
          generateGrounded(this.http, { ...connection, model: modelName, prompt }),
        );
        const text = renderGrounded(value);
        record.set({
          hasResults: value.answer.length > 0,
          resultLen: text.length,
          sources: value.sources.length,
          cached,
        });
        return { structured: { ...value, cached }, text };
      } catch (error) {
        record.set({ hasResults: false, resultLen: 0 });
        throw error;
      }
    });
  }
}

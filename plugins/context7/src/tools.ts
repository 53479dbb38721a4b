import { defineTool, type Logger, type ToolDefinition, toProContextError, z } from '@pro-context/kernel';
import type { Context7Client, Context7CodeSnippet, Context7InfoSnippet, Context7Library } from './client.js';
import { renderContext7Error } from './errors.js';
import { clamp, normalizeTopic, stripQuotes } from './normalize.js';

const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };

/** Snippets per page when `limit` is not given. */
export const DEFAULT_LIMIT = 10;

const libraryOutput = z.object({
  id: z.string(),
  title: z.string(),
  description: z.string(),
  totalSnippets: z.number().optional(),
  trustScore: z.number().optional(),
  stars: z.number().optional(),
  versions: z.array(z.string()).optional(),
});

const searchInput = z.strictObject({
  query: z.string().min(1).max(500).describe('Library name to look for, e.g. "next.js" or "react".'),
});
const searchOutput = z.object({ query: z.string(), results: z.array(libraryOutput) });

const docInput = z.strictObject({
  library_key: z
    .string()
    .min(1)
    .max(500)
    .describe(
      'The library: "vercel/next.js" (org/repo), "/vercel/next.js", a GitHub URL, or a bare name such as "next.js" (resolved through context7.search).',
    ),
  topic: z
    .string()
    .max(500)
    .default('')
    .describe('What you need, in words ("routing", "partial prerendering"). Empty: general documentation.'),
  mode: z
    .enum(['info', 'code'])
    .default('info')
    .describe('"info" (default): conceptual guides and narrative docs. "code": API references and code examples.'),
  page: z.number().int().default(1).describe('Page of results, 1..10 (values outside are clamped).'),
  limit: z
    .number()
    .int()
    .default(DEFAULT_LIMIT)
    .describe(`Results per page, 1..10 (values outside are clamped). Default ${DEFAULT_LIMIT}.`),
});
const docOutput = z.object({
  libraryKey: z.string().describe('The resolved org/repo key.'),
  topic: z.string().describe('The topic Context7 was asked about, after normalization.'),
  mode: z.enum(['info', 'code']),
  page: z.number(),
  limit: z.number(),
  totalPages: z.number(),
  results: z.number().describe('Snippets on this page.'),
  content: z.string(),
});

function libraryLines(lib: Context7Library): string {
  return [
    `- Title: ${lib.title}`,
    `- Context7-compatible library ID: ${lib.id}`,
    `- Description: ${lib.description}`,
    ...(lib.totalSnippets === undefined ? [] : [`- Code Snippets: ${lib.totalSnippets}`]),
    ...(lib.trustScore === undefined ? [] : [`- Trust Score: ${lib.trustScore}`]),
    ...(lib.versions && lib.versions.length > 0 ? [`- Versions: ${lib.versions.join(', ')}`] : []),
  ].join('\n');
}

/** A code snippet as markdown (the shape of Context7's own text answers). */
export function renderCodeSnippet(s: Context7CodeSnippet): string {
  const code = s.codeList.map((c) => `\`\`\`${c.language || s.codeLanguage}\n${c.code}\n\`\`\``).join('\n\n');
  return `### ${s.codeTitle}\n\nSource: ${s.codeId}\n\n${s.codeDescription}\n\n${code}`;
}

/** A prose snippet as markdown. */
export function renderInfoSnippet(s: Context7InfoSnippet): string {
  const title = s.breadcrumb ? `### ${s.breadcrumb}\n\n` : '';
  const source = s.pageId ? `Source: ${s.pageId}\n\n` : '';
  return `${title}${source}${s.content}`;
}

/** Runs a tool's work as a span with the seed's fields; `resultLen` is the length of the text answered, errors included. */
async function logged<T extends { text: string }>(
  logger: Logger,
  name: string,
  fields: Record<string, unknown>,
  work: (set: (field: string, value: unknown) => void) => Promise<T>,
): Promise<T> {
  return logger.span(name, fields, async (span) => {
    try {
      const result = await work((field, value) => span.set(field, value));
      span.set('resultLen', result.text.length);
      return result;
    } catch (error) {
      span.set('resultLen', renderContext7Error(toProContextError(error)).length);
      throw error;
    }
  });
}

/** `context7.search` and `context7.doc` (seed 000) over `client`. */
export function context7Tools(client: Context7Client): ToolDefinition[] {
  const search = defineTool({
    name: 'context7.search',
    title: 'Context7: search libraries',
    description:
      "Search Context7's hosted documentation index for a library by name. Returns Context7 library keys (org/repo) to pass to context7.doc.",
    inputSchema: searchInput,
    outputSchema: searchOutput,
    annotations: readOnly,
    renderError: renderContext7Error,
    async handler(args, context) {
      const query = stripQuotes(args.query);
      return logged(context.logger, 'context7.search', { query: args.query }, async () => {
        const results = await client.searchLibraries(query);
        const text =
          results.length === 0
            ? `No Context7 library matches '${query}'.`
            : `Context7 libraries matching '${query}':\n\n${results.map(libraryLines).join('\n----------\n')}`;
        return { structured: { query, results }, text };
      });
    },
  });

  const doc = defineTool({
    name: 'context7.doc',
    title: 'Context7: library documentation',
    description:
      'Fetch documentation of a library from Context7. library_key: "org/repo" (leading slash, version suffix, GitHub URL and bare names are accepted). topic: what you need in words (empty: general docs). mode "info" (default) for guides and concepts, "code" for API references and examples. page and limit (1..10) page through the results.',
    inputSchema: docInput,
    outputSchema: docOutput,
    annotations: readOnly,
    renderError: renderContext7Error,
    async handler(args, context) {
      const fields = { library_key: args.library_key, topic: args.topic, mode: args.mode };
      return logged(context.logger, 'context7.doc', fields, async (set) => {
        const { key } = await client.resolveKey(args.library_key);
        set('resolvedKey', key);
        const topic = normalizeTopic(args.topic);
        const page = clamp(args.page, 1);
        const limit = clamp(args.limit, DEFAULT_LIMIT);
        // Context7 requires a query: with no topic, ask about the library itself (general documentation)
        const repo = key.split('/')[1] ?? key;
        const snippets = await client.snippets(`/${key}`, topic || repo);
        const all =
          args.mode === 'code'
            ? snippets.codeSnippets.map(renderCodeSnippet)
            : snippets.infoSnippets.map(renderInfoSnippet);
        const totalPages = Math.ceil(all.length / limit);
        const shown = all.slice((page - 1) * limit, page * limit);
        const about = topic ? ` about '${topic}'` : '';
        let text: string;
        if (all.length === 0) {
          const other = args.mode === 'code' ? 'info' : 'code';
          text = `No ${args.mode === 'code' ? 'code examples' : 'documentation'} for ${key}${about} in mode '${args.mode}'. Try mode='${other}'.`;
        } else if (shown.length === 0) {
          text = `Page ${page} is past the end: ${key}${about} has ${totalPages} page${totalPages === 1 ? '' : 's'} of ${limit} in mode '${args.mode}'. Try page=1.`;
        } else {
          const next = page < totalPages ? ` Next: page=${page + 1}.` : '';
          text = `${shown.join('\n\n--------------------------------\n\n')}\n\n---\n\nContext7 ${key}${about} · mode ${args.mode} · page ${page} of ${totalPages} (${limit} per page).${next}`;
        }
        return {
          structured: {
            libraryKey: key,
            topic,
            mode: args.mode,
            page,
            limit,
            totalPages,
            results: shown.length,
            content: shown.join('\n\n'),
          },
          text,
        };
      });
    },
  });

  return [search, doc] as ToolDefinition[];
}

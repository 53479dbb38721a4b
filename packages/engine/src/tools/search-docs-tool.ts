import { defineTool } from '@pro-context/kernel';
import type { DocsEngine } from '../engine.js';
import { readOnly } from './common.js';
import { searchDocsInput, searchDocsOutput } from './schemas.js';

/** search-docs (seed 001 §5.3): ranked results with snippets, as markdown. */
export function searchDocsTool(engine: DocsEngine) {
  return defineTool({
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
}

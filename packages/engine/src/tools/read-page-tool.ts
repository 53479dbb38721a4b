import { defineTool } from '@pro-context/kernel';
import type { DocsEngine } from '../engine.js';
import { readOnly } from './common.js';
import { readPageInput, readPageOutput } from './schemas.js';

/** read-page (seed 001 §5.4): one page as markdown, a slice at a time. */
export function readPageTool(engine: DocsEngine) {
  return defineTool({
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
}

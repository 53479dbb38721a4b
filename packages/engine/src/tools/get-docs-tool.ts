import { defineTool } from '@pro-context/kernel';
import type { DocsEngine } from '../engine.js';
import { fetchContext, readOnly } from './common.js';
import { docsFooterOverhead, renderDocsAnswer } from './render-docs.js';
import { getDocsInput, getDocsOutput } from './schemas.js';

/**
 * get-docs (seed 001 §5.2), one way: the engine is asked once, with the size of the footer rendered here; it
 * ranks and fills the budget once; the answer is rendered once. `reuse` says when a host may serve it again.
 */
export function getDocsTool(engine: DocsEngine) {
  const footerOverhead = docsFooterOverhead();
  return defineTool({
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
}

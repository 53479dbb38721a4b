import { defineTool } from '@pro-context/kernel';
import type { DocsEngine } from '../engine.js';
import { fetchContext, readOnly } from './common.js';
import { tocEntryLine } from './render-toc.js';
import { resolveLibraryInput, resolveLibraryOutput } from './schemas.js';

/** resolve-library (seed 001 §5.1): the library, its versions and TOC, with notes, as markdown. */
export function resolveLibraryTool(engine: DocsEngine) {
  return defineTool({
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
}

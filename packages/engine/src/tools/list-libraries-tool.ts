import { defineTool, estimateTokens } from '@pro-context/kernel';
import type { DocsEngine } from '../engine.js';
import { readOnly } from './common.js';
import { engineMessages } from './render-errors.js';
import { listLibrariesInput, listLibrariesOutput } from './schemas.js';

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
    throw engineMessages.create('NOT_A_CURSOR', { cursor });
  }
  return Number(m[1]);
}

/** list-libraries (seed 001 §5.5): the known libraries, a page at a time, as markdown. */
export function listLibrariesTool(engine: DocsEngine) {
  return defineTool({
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
      // a cursor past the end (forged, or given for other filters): an error, not an empty page numbered backwards
      if (offset > 0 && offset >= all.length) {
        throw engineMessages.create('CURSOR_PAST_END', { cursor: cursor ?? '', total: all.length });
      }
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
}

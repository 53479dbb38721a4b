import { estimateTokens, isProContextError, type TocEntry, type TocResult } from '@pro-context/kernel';
import type { EngineParts } from '../engine-parts.js';
import { servedVersion } from '../versions/served-version.js';

/**
 * A one-sentence description from a TOC: the llms.txt summary (its blockquote), else the description of
 * the entry for the file's own H1 (a manual-style llms.txt, like instructor's, opens with an intro
 * paragraph and no blockquote).
 */
export function describeToc(toc: TocResult): string | undefined {
  if (toc.summary?.trim()) return toc.summary.trim();
  const title = toc.title?.trim().toLowerCase();
  const intro = title ? toc.entries.find((e) => e.title.trim().toLowerCase() === title) : undefined;
  return intro?.description?.trim() || undefined;
}

/**
 * The TOC entries a resolve-library answer carries: the `Optional` section last, at most `limit` entries and
 * `maxTokens` estimated tokens of them as the renderer prints each (`lineOf`, one line per entry; seed D2: the
 * full TOC of a typical llms.txt, under 10K tokens).
 */
export function prioritiseToc(
  entries: readonly TocEntry[],
  limit: number,
  maxTokens: number,
  lineOf: (entry: TocEntry) => string,
): TocEntry[] {
  const optional = (e: TocEntry) => (e.section ?? '').toLowerCase() === 'optional';
  const ordered = [...entries.filter((e) => !optional(e)), ...entries.filter(optional)];
  const shown: TocEntry[] = [];
  let tokens = 0;
  for (const entry of ordered) {
    tokens += estimateTokens(`${lineOf(entry)}\n`);
    if (shown.length >= limit || tokens > maxTokens) break;
    shown.push(entry);
  }
  return shown;
}

/** A library's TOC for `library://{libraryId}/toc`, or why there is none (rendered by `tools/render-toc.ts`). */
export type LibraryToc =
  | { library: string; version: string; toc: TocResult }
  | { library: string; error: { message: string; suggestion?: string } };

/** The TOC of a resolved (or resolvable) library: the version resolved in this process, else the one served. */
export async function libraryToc(parts: EngineParts, libraryId: string): Promise<LibraryToc> {
  const library = await parts.libraries.library(libraryId);
  const served = parts.resolved.get(library.id) ?? (await servedVersion(parts, library));
  try {
    const { toc } = await parts.store.toc(library, served.version, {}, served.documenting);
    return { library: library.name, version: served.version, toc };
  } catch (error) {
    // as resolve-library does: the library is known, its documentation could not be read; say why
    if (!isProContextError(error) || error.code === 'INTERNAL_ERROR') throw error;
    return {
      library: library.name,
      error: { message: error.message, ...(error.suggestion ? { suggestion: error.suggestion } : {}) },
    };
  }
}

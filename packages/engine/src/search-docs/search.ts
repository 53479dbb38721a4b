import { kernelErrors, type LibraryDescriptor } from '@pro-context/kernel';
import { normalizeTopic } from '@pro-context/markdown';
import { chunkTitle, chunkUrl, type PageKind, pageKind, sectionPath, snippetOf } from '../core/ranking.js';
import type { EngineParts } from '../engine-parts.js';
import { rankChunks } from '../get-docs/rank.js';
import type { LoadResult } from '../indexing/doc-store.js';
import { type ServedVersion, servedVersion } from '../versions/served-version.js';

/** search-docs' answer. */
export interface SearchAnswer {
  results: { title: string; snippet: string; relevance: number; url: string; section: string; kind: PageKind }[];
  totalMatches: number;
  version: string;
}

/**
 * The docs to search: loaded, else indexed in the background; `INDEXING_IN_PROGRESS` with a `retryAfter` when
 * that takes longer than `searchWaitMs`.
 */
async function loadedOrIndexing(
  parts: EngineParts,
  library: LibraryDescriptor,
  served: ServedVersion,
): Promise<LoadResult> {
  const { store } = parts;
  if (store.state(library.id, served.version) === 'ready') {
    return store.load(library, served.version, {}, served.documenting);
  }
  const started = Date.now();
  const pending = store.loadInBackground(library, served.version, served.documenting);
  const wait = parts.deps.options.searchWaitMs;
  const outcome = await Promise.race([
    pending.then((r) => ({ done: true as const, r })),
    new Promise<{ done: false }>((resolve) => setTimeout(() => resolve({ done: false }), wait).unref()),
  ]);
  if (outcome.done) return outcome.r;
  const elapsed = (Date.now() - started) / 1000;
  throw kernelErrors.create(
    'INDEXING_IN_PROGRESS',
    { library: library.name, version: served.version },
    { retryAfter: Math.max(2, Math.ceil(elapsed * 2)) },
  );
}

/** search-docs: ranked snippets, one per section. */
export async function searchDocs(
  parts: EngineParts,
  libraryId: string,
  query: string,
  version: string | undefined,
  maxResults: number,
): Promise<SearchAnswer> {
  const library = await parts.libraries.library(libraryId);
  const served = await servedVersion(parts, library, version);
  const loaded = await loadedOrIndexing(parts, library, served);
  // seed 000's topic rules apply to a search query too (quotes, slugs, paths)
  const normalized = normalizeTopic(query).text || query;
  const limit = Math.max(maxResults * 3, 20);
  const { ranked, total, terms } = await rankChunks(parts.deps.search, library, loaded, normalized, limit);
  const top = ranked[0]?.score ?? 1;
  const seen = new Set<string>();
  const results: SearchAnswer['results'] = [];
  for (const item of ranked) {
    if (results.length >= maxResults) break;
    const url = chunkUrl(item.chunk);
    // one result per section: the parts of a split section share it; two pages' same-named sections do not
    const key = `${item.chunk.url} ${url}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const relative = top > 0 ? item.score / top : 0;
    const own = Math.round(Math.min(1, relative * (0.5 + 0.5 * item.coverage)) * 1000) / 1000;
    results.push({
      // the heading the URL's anchor points at (a short intro joined to its first subsection starts at the intro)
      title: chunkTitle(item.chunk),
      snippet: snippetOf(item.chunk, terms),
      // order and scores agree (seed 001 §5.3): a result never scores above one ranked before it. The rank is
      // the backend's (re-sorting by this score, which weighs in term coverage, ranks worse on the eval)
      relevance: Math.min(own, results[results.length - 1]?.relevance ?? 1),
      url,
      section: sectionPath(item.chunk),
      kind: pageKind(item.chunk.url, item.chunk.pageTitle),
    });
  }
  return { results, totalMatches: total, version: served.version };
}

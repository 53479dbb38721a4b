import type { LibraryDescriptor, SearchBackend } from '@pro-context/kernel';
import {
  joinHits,
  queryTerms,
  type RankedChunk,
  rerank,
  rerankLookups,
  searchText,
  withoutLibraryName,
} from '../core/ranking.js';
import type { LoadResult, StoredChunk } from '../indexing/doc-store.js';
import { steerByPageFields } from '../indexing/page-fields.js';

/** Chunks read for each identifier or error message a query names (see `rerankLookups`), at most. */
const RERANK_LOOKUP_LIMIT = 40;

/** A query's ranked chunks (get-docs, search-docs). */
export interface Ranking {
  ranked: RankedChunk[];
  total: number;
  terms: string[];
  chunks: Map<string, StoredChunk>;
}

/** Ranks a loaded library version's chunks for a query: the backend's hits, reranked. */
export async function rankChunks(
  search: SearchBackend,
  library: LibraryDescriptor,
  loaded: LoadResult,
  query: string,
  limit: number,
): Promise<Ranking> {
  const names = [library.name, library.id.split('/').pop() ?? library.id, library.packageName ?? ''];
  const topic = withoutLibraryName(query, names);
  const terms = queryTerms(topic);
  // the backend is asked without the question's scaffolding (`how do I`, `vs`, `difference between`)
  const asked = searchText(topic);
  const searched = await search.search(loaded.docs.key, asked, { limit });
  const total = searched.total;
  // steered by the page fields (issue #28): pages whose title the query names, the corpus-mined related terms
  const hits = await steerByPageFields(search, loaded.docs.key, searched.hits, loaded.docs, asked, limit);
  // the hits' chunks with the rest of their sections, and the chunks naming the query's identifiers or quoting
  // its error message that the backend did not rank (found by the term index), read from the cache
  const found = await Promise.all(
    rerankLookups(topic).map((words) => loaded.docs.containing(words, RERANK_LOOKUP_LIMIT)),
  );
  const chunks = await loaded.docs.read([...hits.map((h) => h.id), ...found.flat()]);
  const ranked = rerank(joinHits(hits, chunks, terms), topic, chunks, terms);
  return { ranked, total, terms, chunks };
}

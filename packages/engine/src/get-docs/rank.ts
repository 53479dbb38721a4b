import type { LibraryDescriptor, SearchBackend } from '@pro-context/kernel';
import { type PageResolver, pageResolver } from '../core/ranking/cited.js';
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
import type { DocsMeta } from '../indexing/docs-format.js';
import { steerByPageFields } from '../indexing/page-fields.js';

/** Chunks read for each identifier or error message a query names (see `rerankLookups`), at most. */
const RERANK_LOOKUP_LIMIT = 40;

const resolvers = new WeakMap<DocsMeta, PageResolver>();

/** The link resolver of a docs record's pages, built on first use and kept with the record. */
function resolverOf(record: DocsMeta): PageResolver {
  let resolve = resolvers.get(record);
  if (resolve === undefined) {
    resolve = pageResolver(record.pages);
    resolvers.set(record, resolve);
  }
  return resolve;
}

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
  // with the library's pages, to resolve the links of the best candidates (a page several of them point to gains)
  const ranked = rerank(joinHits(hits, chunks, terms), topic, chunks, terms, resolverOf(loaded.docs.record));
  return { ranked, total, terms, chunks };
}

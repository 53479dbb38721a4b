import { kernelErrors, type LibraryDescriptor, type TocEntry } from '@pro-context/kernel';
import { normalizeTopic } from '@pro-context/markdown';
import {
  chunkUrl,
  confidenceOf,
  fillBudget,
  indexSections,
  type RankedChunk,
  sectionsLeftOut,
  selectRelevant,
  termWeightsFrom,
  withParentIntros,
  withSectionParts,
} from '../core/ranking.js';
import type { EngineParts } from '../engine-parts.js';
import type { LoadResult } from '../indexing/doc-store.js';
import type { ServedVersion } from '../versions/served-version.js';
import type { DocsAnswer, DocsRequest } from './answer.js';
import { fillWithOverhead } from './overhead.js';
import { rankChunks } from './rank.js';
import { overviewPage, pageAt, relatedPages } from './related-pages.js';
import { markFallback, type RerankOutcome, rerankCandidates } from './rerank.js';

/** What an answer is filled from: a page asked for (from its beginning), or a topic's ranking. */
interface Candidates {
  /** The page a path topic or no topic names, when it does. */
  page: string | undefined;
  ranked: RankedChunk[];
  terms: string[];
  candidates: RankedChunk[];
}

/** The chunks an answer to `topic` is filled from; `TOPIC_NOT_FOUND` when no chunk matches a word of it. */
async function candidatesFor(
  parts: EngineParts,
  library: LibraryDescriptor,
  served: ServedVersion,
  loaded: LoadResult,
  topic: string,
  toc: readonly TocEntry[],
): Promise<Candidates> {
  const { pages } = loaded.docs.record;
  // seed 000's topic rules, for every tool: quotes off, a placeholder is no topic, a path or slug is its words
  const normalized = normalizeTopic(topic);
  // a path naming a page, or no topic at all (the library's overview): that page, from its beginning
  const page =
    (normalized.path && pageAt(pages, normalized.path)) ||
    (normalized.text === '' ? overviewPage(library, pages, toc) : undefined);
  if (page !== undefined) {
    const pageParts = (await loaded.docs.page(page)).sort((a, b) => a.order - b.order);
    const ranked = pageParts.map((chunk, i) => ({ chunk, score: 1 - i / (pageParts.length + 1), coverage: 1 }));
    indexSections(new Map(pageParts.map((c) => [c.id, c])));
    return { page, ranked, terms: [], candidates: ranked };
  }
  const { ranked, terms, chunks } = await rankChunks(parts.deps.search, library, loaded, normalized.text || topic, 40);
  // Any hit matched a word of the topic (as written, misspelt, in another spelling or through a synonym):
  // the engine's own substring coverage cannot tell `valdiator` or `serialise` from nothing at all.
  if (ranked.length === 0) {
    throw kernelErrors.create(
      'TOPIC_NOT_FOUND',
      { library: library.name, version: served.version, topic },
      { details: { relatedPages: relatedPages(parts.deps.options.relatedPages, toc, [], terms, pages) } },
    );
  }
  // the best sections with the rest of their own parts, and their parent's short introduction (issue #28)
  const candidates = withSectionParts(withParentIntros(ranked, chunks, terms), chunks, terms);
  return { page: undefined, ranked, terms, candidates };
}

/** The answer to `request` from loaded docs: ranked once, the budget filled once with room for the overhead. */
export async function composeAnswer(
  parts: EngineParts,
  library: LibraryDescriptor,
  served: ServedVersion,
  loaded: LoadResult,
  request: DocsRequest,
  signal?: AbortSignal,
): Promise<DocsAnswer> {
  const toc = (await parts.store.cachedToc(library.id, served.version))?.toc.entries ?? [];
  const found = await candidatesFor(parts, library, served, loaded, request.topic, toc);
  const { page, ranked, terms } = found;
  // a bound Reranker (an optional plugin) reorders a topic's best sections; on failure the lexical order stays
  const { reranker } = parts.deps;
  const reranked: RerankOutcome | undefined =
    reranker && page === undefined
      ? await rerankCandidates(reranker, request.topic, found.candidates, {
          maxBudgetMs: parts.deps.options.interactiveTimeoutMs,
          signal,
          logger: parts.deps.logger,
        })
      : undefined;
  const candidates = reranked?.candidates ?? found.candidates;
  const { record } = loaded.docs;
  const weights = termWeightsFrom(terms, loaded.docs.chunkCount, await loaded.docs.termCounter());
  // pages left out of the index over a per-page limit: said in every answer of the library (as data)
  const skipped = record.skipped?.count ? record.skipped : undefined;
  // a reranker's failure: a coded note, worded where it arises
  const notes = reranked?.note === undefined ? [] : [reranked.note];
  const wanted = parts.deps.options.relatedPages;
  const fill = (budget: number): DocsAnswer => {
    // a page asked for is given from its beginning, as far as the budget goes; a topic's answer stops where
    // relevance falls well below the best match's (maxTokens is a ceiling, not a quota)
    const { content, used } = fillBudget(page !== undefined ? candidates : selectRelevant(candidates), budget);
    const best = used[0];
    const source = best ? chunkUrl(best.chunk) : record.sourceUrl;
    return {
      content,
      source,
      version: served.version,
      lastUpdated: record.fetchedAt,
      // the page asked for by its path, or the overview asked for by no topic, is the answer itself
      confidence: page !== undefined && best ? 1 : confidenceOf(best, terms, weights),
      cached: loaded.cached,
      stale: loaded.stale,
      relatedPages:
        page !== undefined
          ? relatedPages(wanted, toc, [], [], record.pages, source)
          : relatedPages(wanted, toc, ranked, terms, record.pages, source),
      moreSections: page !== undefined ? 0 : sectionsLeftOut(candidates, used),
      ...(skipped ? { skipped } : {}),
      ...(notes.length > 0 ? { notes } : {}),
    };
  };
  return markFallback(fillWithOverhead(fill, request.maxTokens, request.overhead), reranked);
}

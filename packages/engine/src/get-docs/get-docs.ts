import type { FetchContext, LibraryDescriptor, ToolResultReuse } from '@pro-context/kernel';
import { withDeadline } from '../deadlines/with-deadline.js';
import type { EngineParts } from '../engine-parts.js';
import type { LoadResult } from '../indexing/doc-store.js';
import { type ServedVersion, servedVersion } from '../versions/served-version.js';
import type { DocsAnswer, DocsRequest, DocsResult } from './answer.js';
import { storeAnswer, storedAnswer, storedAnswerKey } from './answer-cache.js';
import { composeAnswer } from './compose.js';
import { isLexicalFallback, rerankKeySuffix } from './rerank.js';

/** How long a reusable get-docs answer may be served again without asking the engine (its version resolution included). */
export const REUSE_MS = 10_000;

/**
 * get-docs: the best chunks for a topic within `maxTokens`, less what the caller prints beside them
 * (`request.overhead`), with provenance and related pages; ranked and filled once. Answered from the answer
 * cache when the same question was asked of the same docs.
 */
export async function answerDocs(
  parts: EngineParts,
  request: DocsRequest,
  context: FetchContext = {},
): Promise<DocsResult> {
  // an answer may be served again only while nothing it may come from has changed since this point
  const revision = parts.revisions.current();
  const library = await parts.libraries.library(request.libraryId, context);
  const served = await servedVersion(parts, library, request.version, context);
  const { store } = parts;
  // seed 001 §5.2: a (library, version, topic) asked before is answered from the cache, without loading
  // the library's index (what a restarted server does first)
  // (answers reranked by a model are kept apart from lexical ones)
  const key =
    storedAnswerKey(library.id, served.version, request.maxTokens, request.overhead, request.topic) +
    rerankKeySuffix(parts.deps.reranker);
  // and, while the docs are in memory, without ranking again: an answer of the revision in memory (a
  // refresh that just landed may not have cleared the older revision's answers yet)
  const state = store.state(library.id, served.version);
  const inMemory = state === 'ready' ? store.loadedRevision(library.id, served.version) : undefined;
  // docs a local source may serve (files on disk) are checked on every load: a stored answer could be of an
  // older edit, and ranking them again is cheap
  const local = parts.sources.for(library).some((a) => a.local);
  if (!local && (state !== 'ready' || inMemory !== undefined)) {
    const stored = await storedAnswer(parts.deps.cache, key, inMemory);
    // stale means the documentation is old: a registry that cannot be asked says nothing about it
    if (stored) {
      const expiresAt = inMemory === undefined ? null : store.loadedExpiresAt(library.id, served.version);
      return withReuse(parts, { ...stored, cached: true, stale: false }, request.libraryId, library, {
        revision,
        expiresAt: expiresAt ?? null,
      });
    }
  }
  const loaded = await load(parts, library, served, context);
  const answer = await composeAnswer(parts, library, served, loaded, request, context.signal);
  // a lexical answer given because the reranker failed is neither stored nor reused: the next call may rerank
  const fallback = isLexicalFallback(answer);
  // kept no longer than the docs it came from (a refresh clears it)
  const remaining = loaded.docs.expiresAt === null ? 0 : loaded.docs.expiresAt - Date.now();
  if (!loaded.stale && remaining > 1000 && !fallback) {
    storeAnswer(parts.deps.cache, parts.deps.logger, key, answer, {
      libraryId: library.id,
      revision: loaded.docs.record.revision,
      ttlMs: remaining,
    });
  }
  if (local || !loaded.cached || fallback) return { answer };
  return withReuse(parts, answer, request.libraryId, library, { revision, expiresAt: loaded.docs.expiresAt });
}

/** The library version's docs, within the tool deadline. */
function load(
  parts: EngineParts,
  library: LibraryDescriptor,
  served: ServedVersion,
  context: FetchContext,
): Promise<LoadResult> {
  return withDeadline(
    parts.deps.options.interactiveTimeoutMs,
    (ctx) => parts.store.load(library, served.version, ctx, served.documenting),
    `${library.name} ${served.version}'s documentation could not be fetched and indexed`,
    context,
  );
}

/**
 * The answer with when a host may serve it again: an answer of docs the store had (not fetched for it, not
 * stale), when the id asked still names the same library, while the answer revisions stay at `revision` (docs
 * loaded, refreshed or dropped, a library added or reconfigured bump them), for at most {@link REUSE_MS} and
 * never past the docs' expiry.
 */
function withReuse(
  parts: EngineParts,
  answer: DocsAnswer,
  asked: string,
  library: LibraryDescriptor,
  docs: { revision: number; expiresAt: number | null },
): DocsResult {
  if (answer.stale || !answer.cached || parts.catalog.find(asked) !== library) return { answer };
  const until = Math.min(Date.now() + REUSE_MS, docs.expiresAt ?? Number.POSITIVE_INFINITY);
  const reuse: ToolResultReuse = { revision: docs.revision, until };
  return { answer, reuse };
}

import type { CacheStore, Logger } from '@pro-context/kernel';
import { answerKey, ns } from '../indexing/keys.js';
import type { DocsAnswer, RenderOverhead } from './answer.js';

/** A get-docs answer as cached: with the revision of the docs it was computed from. */
type StoredAnswer = DocsAnswer & { revision?: string };

/** The key of a stored get-docs answer (the renderer's overhead is part of it: the content left room for it). */
export function storedAnswerKey(
  libraryId: string,
  version: string,
  maxTokens: number,
  overhead: RenderOverhead | undefined,
  topic: string,
): string {
  const variant = overhead
    ? [
        overhead.chars,
        overhead.staleChars,
        overhead.moreSectionsChars.one,
        overhead.moreSectionsChars.many,
        overhead.skippedPageChars,
        overhead.moreSkippedChars.one,
        overhead.moreSkippedChars.many,
      ].join('.')
    : '';
  return answerKey(libraryId, version, maxTokens, variant, topic);
}

/**
 * A stored answer of `key`, when there is one of the docs revision in memory (any, when none is: a restarted
 * server answers from the cache without loading the library's index).
 */
export async function storedAnswer(
  cache: CacheStore,
  key: string,
  inMemory: string | undefined,
): Promise<DocsAnswer | undefined> {
  const stored = await cache.get<StoredAnswer>(ns.answers, key);
  if (!stored || (inMemory !== undefined && stored.value.revision !== inMemory)) return undefined;
  const { revision: _revision, ...answer } = stored.value;
  return answer;
}

/** Stores an answer for as long as the docs it came from (a refresh clears it); a failure is logged. */
export function storeAnswer(
  cache: CacheStore,
  logger: Logger,
  key: string,
  answer: DocsAnswer,
  docs: { libraryId: string; revision: string; ttlMs: number },
): void {
  const stored: StoredAnswer = { ...answer, revision: docs.revision };
  cache.set(ns.answers, key, stored, { ttlMs: docs.ttlMs }).catch((error: unknown) => {
    logger.warn('could not cache an answer', { libraryId: docs.libraryId, error });
  });
}

import { type FetchContext, isProContextError, type ProContextError } from '@pro-context/kernel';
import type { EngineParts } from '../engine-parts.js';
import { type CatalogMatch, didYouMean, normalizeQuery, versionHint } from '../libraries/catalog.js';
import { engineMessages } from '../tools/render-errors.js';

/** resolve-library's options. */
export interface ResolveOptions {
  language?: string;
  libraryId?: string;
}

/**
 * The libraries a resolve-library query matches, best first: the one `libraryId` names, else the catalog's
 * matches, else one a provider finds by name; `LIBRARY_NOT_FOUND` (with close spellings, and the registries
 * that could not be asked) when none does.
 */
export async function matchesOf(
  parts: EngineParts,
  query: string,
  options: ResolveOptions,
  context: FetchContext,
): Promise<CatalogMatch[]> {
  if (options.libraryId) {
    return [{ library: await parts.libraries.library(options.libraryId, context), matchedBy: 'id', distance: 0 }];
  }
  const { catalog } = parts;
  let matches = catalog.match(query, options.language);
  const lookupFailures: unknown[] = [];
  if (matches.length === 0) {
    // a name no provider listed: the providers may find it (a package name, later)
    const name = normalizeQuery(query);
    const hints = options.language ? { language: options.language } : undefined;
    const found = name ? await catalog.lookup(name, context, hints, lookupFailures) : undefined;
    if (found && (!options.language || !found.language || found.language === options.language)) {
      const hint = versionHint(query);
      matches = [{ library: found, matchedBy: 'id', distance: 0, ...(hint ? { versionHint: hint } : {}) }];
    }
  }
  if (matches.length === 0) throw notFound(parts, query, options.language, lookupFailures);
  return matches;
}

/** LIBRARY_NOT_FOUND for a query, with what to try instead. */
function notFound(
  parts: EngineParts,
  query: string,
  language: string | undefined,
  lookupFailures: readonly unknown[],
): ProContextError {
  // offline, behind a firewall or a DNS sinkhole: "no library matches" says which registry could not be asked
  // and why (#26: the cause, not a silent "not found"); the code stays LIBRARY_NOT_FOUND
  const unasked = lookupFailures
    .filter(
      (error): error is ProContextError => isProContextError(error) && /^REGISTRY_|^RATE_LIMITED$/.test(error.code),
    )
    .map((error) => error.message.replace(/\.$/, ''));
  const anyLanguage = language ? parts.catalog.match(query) : [];
  // close spellings too loose to resolve to ("http" → httpx) are still worth a "did you mean"
  const near = anyLanguage.length > 0 ? [] : parts.catalog.suggest(query, language);
  const values = {
    query,
    inLanguage: language ? ` in ${language}` : '',
    unasked: unasked.length > 0 ? ` It could not be looked up: ${unasked.join('; ')}.` : '',
  };
  const details = {
    suggestions: (anyLanguage.length > 0 ? anyLanguage.map((m) => m.library.id) : near).slice(0, 5),
    ...(unasked.length > 0 ? { registriesUnreachable: unasked } : {}),
  };
  const other = anyLanguage[0]?.library;
  if (other) {
    const language = other.language ?? 'another language';
    return engineMessages.create('OTHER_LANGUAGE', { ...values, libraryId: other.id, language }, { details });
  }
  const closeSpelling = didYouMean(near);
  return engineMessages.create('NO_LIBRARY_MATCH', values, {
    details,
    ...(closeSpelling ? { suggestion: closeSpelling } : {}),
  });
}

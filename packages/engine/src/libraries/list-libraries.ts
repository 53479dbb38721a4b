import type { LibraryDescriptor } from '@pro-context/kernel';
import type { EngineParts } from '../engine-parts.js';
import { describeToc } from '../resolve-library/toc.js';

/** One library as list-libraries shows it. */
export interface LibrarySummary {
  id: string;
  name: string;
  description: string;
  language: string;
  defaultVersion: string;
  categories: string[];
  sources: string[];
  projectDetected: boolean;
  /** The project file the library was detected in (`uv.lock`), for detected libraries. */
  detectedFrom?: string;
  /** Whether some version of its documentation is in the cache. */
  cached: boolean;
}

/**
 * A library's description: configured, else the summary of its cached TOC (`version`'s, or any version's).
 * `cached` is the store's list of cached versions, when the caller already read it (list-libraries).
 */
export async function describeLibrary(
  parts: Pick<EngineParts, 'store' | 'resolved'>,
  library: LibraryDescriptor,
  version?: string,
  cached?: readonly { libraryId: string; version: string }[],
): Promise<string> {
  if (library.description) return library.description;
  cached ??= await parts.store.cachedVersions();
  const versions = [
    version,
    parts.resolved.get(library.id)?.version,
    ...cached.filter((c) => c.libraryId === library.id).map((c) => c.version),
  ];
  for (const v of new Set(versions)) {
    const record = v === undefined ? undefined : await parts.store.cachedToc(library.id, v);
    const description = record && describeToc(record.toc);
    if (description) return description;
  }
  return '';
}

/** Whether a library passes list-libraries' filters (`query`: every word in its id, name, aliases, …). */
function listed(library: LibraryDescriptor, filters: ListFilters, words: readonly string[]): boolean {
  if (filters.language && library.language !== filters.language) return false;
  if (words.length > 0) {
    const haystack = [
      library.id,
      library.name,
      ...(library.aliases ?? []),
      library.description ?? '',
      ...(library.categories ?? []),
      ...Object.values(library.packages ?? {}),
    ]
      .join(' ')
      .toLowerCase();
    if (!words.every((w) => haystack.includes(w))) return false;
  }
  return !(
    filters.category && !(library.categories ?? []).some((c) => c.toLowerCase() === filters.category?.toLowerCase())
  );
}

/** list-libraries' filters. */
export interface ListFilters {
  language?: string;
  category?: string;
  query?: string;
}

/**
 * list-libraries: known, cached and resolved libraries, filtered (`query`: every word in the id, name,
 * aliases, description or categories), the project's first, then the cached ones, then by name.
 */
export async function listLibraries(parts: EngineParts, filters: ListFilters = {}): Promise<LibrarySummary[]> {
  const cachedVersions = await parts.store.cachedVersions();
  const words = (filters.query ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  const out: LibrarySummary[] = [];
  for (const library of parts.catalog.all()) {
    if (!listed(library, filters, words)) continue;
    const cachedVersion = cachedVersions.find((c) => c.libraryId === library.id)?.version;
    const defaultVersion =
      parts.resolved.get(library.id)?.version ??
      library.installedVersion ??
      cachedVersion ??
      library.defaultVersion ??
      library.versions?.[0] ??
      'latest';
    out.push({
      id: library.id,
      name: library.name,
      description: await describeLibrary(parts, library, defaultVersion, cachedVersions),
      language: library.language ?? '',
      defaultVersion,
      categories: library.categories ?? [],
      sources: parts.sources.for(library).map((a) => a.id),
      projectDetected: library.detectedFrom !== undefined,
      ...(library.detectedFrom ? { detectedFrom: library.detectedFrom } : {}),
      cached: cachedVersion !== undefined,
    });
  }
  return out.sort(
    (a, b) =>
      Number(b.projectDetected) - Number(a.projectDetected) ||
      Number(b.cached) - Number(a.cached) ||
      a.name.localeCompare(b.name),
  );
}

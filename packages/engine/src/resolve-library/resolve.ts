import { type FetchContext, isProContextError, type LibraryDescriptor, type TocEntry } from '@pro-context/kernel';
import { withDeadline } from '../deadlines/with-deadline.js';
import type { EngineParts } from '../engine-parts.js';
import type { SkippedPages } from '../indexing/doc-store.js';
import type { CatalogMatch } from '../libraries/catalog.js';
import { describeLibrary } from '../libraries/list-libraries.js';
import { type ServedVersion, servedVersion } from '../versions/served-version.js';
import { hintedVersion } from './hinted-version.js';
import { matchesOf, type ResolveOptions } from './matches.js';
import type { ResolveNote } from './notes.js';
import { describeToc, prioritiseToc } from './toc.js';

/** How many other matching libraries a resolve-library answer lists as `alternatives`. */
const MAX_ALTERNATIVES = 10;

/** resolve-library's answer. */
export interface ResolveResult {
  libraryId: string;
  name: string;
  description: string;
  language: string;
  defaultVersion: string;
  availableVersions: string[];
  sources: string[];
  toc: TocEntry[];
  tocTruncated: boolean;
  tocSize: number;
  matchedBy: CatalogMatch['matchedBy'];
  alternatives: { id: string; name: string; description: string }[];
  /**
   * The version a hint in the query named ("pydantic v2" → `'2.10.6'`), when it exists and has its own
   * documentation: the TOC is that version's. `defaultVersion` stays the latest stable.
   */
  requestedVersion?: string;
  /**
   * What the agent must know about this answer, one sentence each: a hinted version that does not exist
   * or has no documentation of its own, or why no documentation could be indexed (the TOC is empty then).
   */
  notes: string[];
  /** Why the TOC is empty: the source's error, `timedOut` when it did not answer within the tool deadline. */
  tocError?: { code: string; message: string; timedOut: boolean };
}

/** resolve-library's answer with its notes as data (`DocsEngine.resolve` renders them). */
export type ResolveAnswer = Omit<ResolveResult, 'notes'> & { notes: ResolveNote[] };

/**
 * resolve-library: fuzzy match, versions, sources and the TOC, as many entries as fit its token budget printed as
 * the renderer prints each (`tocLine`, one line per entry).
 */
export async function resolveLibrary(
  parts: EngineParts,
  query: string,
  tocLine: (entry: TocEntry) => string,
  options: ResolveOptions = {},
  context: FetchContext = {},
): Promise<ResolveAnswer> {
  const matches = await matchesOf(parts, query, options, context);
  const best = matches[0] as CatalogMatch;
  const library = best.library;
  const latest = await servedVersion(parts, library, undefined, context);
  const notes = versionNotes(library, latest);
  // seed 001 §5.1: fuzzy matching handles typos; the agent is told, in the structured answer, which name it got
  if (best.matchedBy === 'fuzzy')
    notes.push({ kind: 'fuzzy', query: query.trim(), libraryId: library.id, library: library.name });
  const hinted = options.libraryId ? undefined : best.versionHint;
  const requested = hinted ? await hintedVersion(parts, library, hinted, latest, notes, context) : undefined;
  const served = requested ?? latest;
  const read = await readToc(parts, library, served, notes, context);
  parts.libraries.allowDocsDomains(library);
  if (read.adapterId) {
    parts.deps.allowlist.allowHostsOf(
      read.toc.map((e) => e.url),
      `toc ${library.id}`,
    );
    if (!parts.resolved.has(library.id)) {
      parts.resolved.set(library.id, served);
      parts.deps.onLibraryResolved?.(library.id);
    }
  }
  const { tocLimit, tocMaxTokens } = parts.deps.options;
  const shown = prioritiseToc(read.toc, tocLimit, tocMaxTokens, tocLine);
  const others = parts.sources
    .for(library)
    .map((a) => a.id)
    .filter((id) => id !== read.adapterId);
  return {
    libraryId: library.id,
    name: library.name,
    description: library.description || read.summary || '',
    language: library.language ?? '',
    defaultVersion: latest.version,
    availableVersions: latest.available,
    sources: read.adapterId ? [read.adapterId, ...others] : others,
    toc: shown,
    tocTruncated: shown.length < read.toc.length,
    tocSize: read.toc.length,
    matchedBy: best.matchedBy,
    alternatives: await alternatives(parts, library, matches, options),
    ...(requested ? { requestedVersion: requested.version } : {}),
    notes,
    ...(read.tocError ? { tocError: read.tocError } : {}),
  };
}

/** What the agent must hear about the version served: an unreachable registry, an installed version. */
function versionNotes(library: LibraryDescriptor, latest: ServedVersion): ResolveNote[] {
  const notes: ResolveNote[] = [];
  const name = library.name;
  if (latest.unreachable) {
    notes.push({
      kind: 'registry-unreachable',
      library: name,
      registry: latest.unreachable,
      ...(latest.unreachableReason ? { reason: latest.unreachableReason } : {}),
      fromConfig: latest.from === 'config',
      version: latest.version,
    });
  }
  if (latest.installed)
    notes.push({
      kind: 'installed',
      library: name,
      version: latest.version,
      ...(library.detectedFrom ? { detectedFrom: library.detectedFrom } : {}),
      latest: latest.latest,
    });
  else if (latest.installedUndocumented)
    notes.push({
      kind: 'installed-undocumented',
      library: name,
      installed: latest.installedUndocumented,
      version: latest.version,
    });
  return notes;
}

/** The served version's TOC as resolve-library shows it, or why there is none. */
interface ReadToc {
  toc: TocEntry[];
  summary?: string;
  adapterId?: string;
  tocError?: ResolveResult['tocError'];
}

/** Reads the served version's TOC within the tool deadline; notes what the agent should hear of it. */
async function readToc(
  parts: EngineParts,
  library: LibraryDescriptor,
  served: ServedVersion,
  notes: ResolveNote[],
  context: FetchContext,
): Promise<ReadToc> {
  try {
    const record = await withDeadline(
      parts.deps.options.interactiveTimeoutMs,
      (ctx) => parts.store.toc(library, served.version, ctx, served.documenting),
      `${library.name}'s documentation source did not send its table of contents`,
      context,
    );
    // what the source says the entries do not (files left out over a cap, and the setting that raises it)
    notes.push(...(record.toc.notes ?? []).map((text): ResolveNote => ({ kind: 'source', text })));
    // and pages left out of the index over a per-page limit, when the docs are indexed and loaded
    notes.push(...skippedNotes(parts.store.loadedSkipped(library.id, served.version)));
    // a source before the one that served could not: the agent (and its user) should hear why
    if (record.passedOver?.length)
      notes.push({
        kind: 'passed-over',
        library: library.name,
        adapterId: record.adapterId,
        reasons: record.passedOver,
      });
    if (record.stale) {
      const failing = parts.sources.status.get(record.adapterId)?.status === 'failing';
      notes.push({ kind: 'toc-stale', library: library.name, failing });
    }
    const summary = describeToc(record.toc);
    return { toc: record.toc.entries, adapterId: record.adapterId, ...(summary ? { summary } : {}) };
  } catch (error) {
    // seed 001 §5.1: no documentation source → the metadata without a TOC, and a note why
    if (!isProContextError(error) || context.signal?.aborted) throw error;
    notes.push({
      kind: 'no-docs',
      library: library.name,
      version: served.version,
      message: error.message,
      ...(error.suggestion ? { suggestion: error.suggestion } : {}),
    });
    const timedOut =
      (error.details as { timedOut?: unknown } | undefined)?.timedOut === true || /timed out/i.test(error.message);
    return { toc: [], tocError: { code: error.code, message: error.message, timedOut } };
  }
}

/** The notes of pages left out of the index: one for each named page, one for how many more. */
function skippedNotes(skipped: SkippedPages | undefined): ResolveNote[] {
  if (!skipped) return [];
  const notes = skipped.pages.map((page): ResolveNote => ({ kind: 'left-out', reason: page.reason }));
  const more = skipped.count - skipped.pages.length;
  return more > 0 ? [...notes, { kind: 'more-left-out', count: more }] : notes;
}

/** Every other library the query matched, then the library's family ("pydantic" → pydantic-ai, pydantic-settings). */
function alternatives(
  parts: EngineParts,
  library: LibraryDescriptor,
  matches: readonly CatalogMatch[],
  options: ResolveOptions,
): Promise<ResolveResult['alternatives']> {
  const others = [
    ...new Set([
      ...matches.slice(1).map((m) => m.library),
      ...(options.libraryId ? [] : parts.catalog.family(library, options.language)),
    ]),
  ]
    .filter((other, i, all) => other.id !== library.id && all.findIndex((o) => o.id === other.id) === i)
    .slice(0, MAX_ALTERNATIVES);
  return Promise.all(
    others.map(async (other) => ({
      id: other.id,
      name: other.name,
      description: await describeLibrary(parts, other),
    })),
  );
}

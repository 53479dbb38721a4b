import {
  type CacheStore,
  estimateTokens,
  type FetchContext,
  type HttpClient,
  isProContextError,
  kernelErrors,
  type LibraryDescriptor,
  type LibraryProvider,
  type Logger,
  ProContextError,
  type RegistryResolver,
  type SearchBackend,
  type SourceAdapter,
  type TocEntry,
  type TocResult,
  type UrlAllowlist,
} from '@pro-context/kernel';
import { ChunkingPool, normalizeTopic, sharedPageConverter } from '@pro-context/markdown';
import pLimit from 'p-limit';
import { settingsDeclarations } from '../libraries/settings.js';
import type { EngineOptions } from '../options.js';
import { type CatalogMatch, didYouMean, LibraryCatalog, normalizeQuery, versionHint } from './catalog.js';
import { DocStore, type IndexingNow, type LoadResult, type StoredChunk } from './doc-store.js';
import { answerKey as keyOfAnswer, ns } from './keys.js';
import { PageReader, type PageSlice } from './pages.js';
import {
  chunkTitle,
  chunkUrl,
  confidenceOf,
  fillBudget,
  indexSections,
  joinHits,
  type PageKind,
  pageKind,
  queryTerms,
  type RankedChunk,
  rerank,
  rerankLookups,
  searchText,
  sectionPath,
  sectionsLeftOut,
  selectRelevant,
  snippetOf,
  termCoverage,
  termWeightsFrom,
  withoutLibraryName,
  withSectionParts,
} from './ranking.js';
import { SourceChain } from './sources.js';
import { skippedNotes } from './stored-docs.js';
import { resolveLibraryVersion, resolveReleasedVersion, type VersionInfo, type VersionSources } from './versions.js';

/** What the engine's collaborators are. */
export interface DocsEngineDeps {
  /** Where libraries come from (config's provider first); see `LibraryProvider` for the merge rules. */
  providers: readonly LibraryProvider[];
  options: EngineOptions;
  cache: CacheStore;
  search: SearchBackend;
  adapters: readonly SourceAdapter[];
  registries: readonly RegistryResolver[];
  http: HttpClient;
  allowlist: UrlAllowlist;
  logger: Logger;
  /** Called when the set of resolved libraries grows (to emit `resources/list_changed`). */
  onLibraryResolved?: (libraryId: string) => void;
}

/** How many other matching libraries a resolve-library answer lists as `alternatives`. */
const MAX_ALTERNATIVES = 10;

/** Chunks read for each identifier or error message a query names (see `rerankLookups`), at most. */
const RERANK_LOOKUP_LIMIT = 40;

/** How many libraries delivered after start (project detection) are resolved at once, in the background. */
const PRE_RESOLVE_CONCURRENCY = 2;

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

/** get-docs' answer. */
export interface DocsAnswer {
  content: string;
  source: string;
  version: string;
  lastUpdated: string;
  confidence: number;
  cached: boolean;
  stale: boolean;
  relatedPages: { title: string; url: string; description: string }[];
  /**
   * Sections that matched the topic nearly as well as those given (at least half the best score) but are not
   * in the content: cut off by relevance or past `maxTokens`. The agent may ask for them (relatedPages, a
   * larger `maxTokens`, search-docs).
   */
  moreSections: number;
  /** Pages of the library left out of its index over a per-page limit (the page, the limit, the setting). */
  notes?: string[];
}

/** search-docs' answer. */
export interface SearchAnswer {
  results: { title: string; snippet: string; relevance: number; url: string; section: string; kind: PageKind }[];
  totalMatches: number;
  version: string;
}

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

/** How long a reusable get-docs answer may be served again without asking the engine (its version resolution included). */
const REUSE_MS = 10_000;

/** A get-docs answer as cached: with the revision of the docs it was computed from. */
type StoredAnswer = DocsAnswer & { revision?: string };

/** The docs engine: the five tools' behaviour, independent of MCP. */
export class DocsEngine {
  private readonly catalog: LibraryCatalog;
  /** The adapter chain; its `status` feeds `pro-context://health`. */
  readonly sources: SourceChain;
  private readonly store: DocStore;
  /** Worker threads that chunk fetched pages (started on first use). */
  private readonly chunking: ChunkingPool;
  private readonly pages: PageReader;
  /** Libraries resolved in this process (their TOCs are listed as resources), id → version. */
  private readonly resolved = new Map<string, string>();
  readonly startedAt = Date.now();
  /** Aborted by {@link close}: cancels the background resolution of libraries delivered after start. */
  private readonly stopping = new AbortController();
  private readonly unwatch: (() => void)[] = [];
  private readonly preResolveLimit = pLimit(PRE_RESOLVE_CONCURRENCY);
  private readonly background = new Set<Promise<void>>();
  /** The libraries each watching provider delivered last (a later delivery without one takes back its project fields). */
  private readonly adoptedFrom = new Map<string, Set<string>>();

  constructor(private readonly deps: DocsEngineDeps) {
    this.catalog = new LibraryCatalog(deps.providers, settingsDeclarations(deps.adapters), deps.logger);
    this.sources = new SourceChain(deps.adapters, deps.logger);
    this.chunking = new ChunkingPool(
      deps.options.chunkWorkers === undefined ? {} : { size: deps.options.chunkWorkers },
    );
    // every page the engine and the source plugins convert goes through the one page worker, within these limits
    if (deps.options.pages) sharedPageConverter().configure(deps.options.pages);
    this.store = new DocStore(
      deps.cache,
      deps.search,
      this.sources,
      deps.logger,
      {
        maxChunkTokens: deps.options.maxChunkTokens,
        maxLoadedLibraries: deps.options.maxLoadedLibraries,
        maxLoadedMB: deps.options.maxLoadedMB,
        ...(deps.options.pages ? { pageLimits: deps.options.pages } : {}),
      },
      this.chunking,
    );
    this.pages = new PageReader(deps.http, deps.cache, deps.allowlist, this.sources, deps.logger, (url) =>
      this.tocTitleOf(url),
    );
    for (const library of this.catalog.all()) this.allowDocsDomains(library);
    // providers whose libraries arrive later (project detection): adopted, then resolved in the background
    for (const provider of deps.providers) {
      if (provider.watch) this.unwatch.push(provider.watch(() => this.adoptFrom(provider)));
    }
  }

  /**
   * Reads a watching provider's libraries again, adds them beneath what is known (see `LibraryCatalog.adopt`)
   * and resolves each in the background (bounded concurrency, cancelled by {@link close}): their TOCs become
   * resources. Never blocks a tool call; a failure is logged.
   */
  private adoptFrom(provider: LibraryProvider): void {
    if (this.stopping.signal.aborted) return;
    let adopted: LibraryDescriptor[];
    try {
      adopted = provider.libraries().map((library) => this.catalog.adopt(library, provider.id));
    } catch (error) {
      this.deps.logger.warn(`library provider '${provider.id}' failed to list its libraries`, { error });
      return;
    }
    for (const library of adopted) this.allowDocsDomains(library);
    // a new scan (another project: the client's roots changed) no longer naming a library: no longer "in this project"
    const now = new Set(adopted.map((l) => l.id));
    for (const id of this.adoptedFrom.get(provider.id) ?? []) {
      const elsewhere = [...this.adoptedFrom].some(([other, ids]) => other !== provider.id && ids.has(id));
      const held = now.has(id) || elsewhere ? undefined : this.catalog.find(id);
      if (held?.id !== id) continue;
      const { installedVersion: _installed, detectedFrom: _from, ...rest } = held;
      this.catalog.add(rest);
    }
    this.adoptedFrom.set(provider.id, now);
    this.deps.logger.info(`${adopted.length} libraries from '${provider.id}'`, {
      libraries: adopted.map((l) => `${l.id}@${l.installedVersion ?? 'latest'}`).slice(0, 50),
    });
    if (this.deps.options.preResolveDetected === false) return;
    for (const library of adopted) {
      const work = this.preResolveLimit(() => this.preResolve(library.id)).finally(() => this.background.delete(work));
      this.background.add(work);
    }
  }

  /** Resolves one adopted library in the background; a placeholder (no docs source) is looked up first. */
  private async preResolve(libraryId: string): Promise<void> {
    const signal = this.stopping.signal;
    if (signal.aborted) return;
    let library = this.catalog.find(libraryId);
    if (!library) return;
    try {
      library = await this.withDocsSource(library, { signal });
      if (this.sources.for(library).length === 0) return;
      await this.resolve(library.id, { libraryId: library.id }, { signal });
    } catch (error) {
      if (signal.aborted) return;
      this.deps.logger.warn(`could not pre-resolve ${libraryId}`, { error });
    }
  }

  /**
   * A library no source can serve yet (a detected package nobody described) as a provider's `lookup` finds
   * it, keeping its installed version; the library itself when it has a source or nobody finds it.
   */
  private async withDocsSource(library: LibraryDescriptor, context?: FetchContext): Promise<LibraryDescriptor> {
    // local sources (an installed package's files) come last in the chain: a provider may know a better source
    if (this.sources.for(library).some((a) => !a.local)) return library;
    const name = Object.values(library.packages ?? {})[0] ?? library.id;
    const found = await this.catalog.lookup(name, context);
    if (!found) return library;
    if (found.id !== library.id) this.catalog.remove(library.id);
    const held: LibraryDescriptor = {
      ...found,
      ...(library.installedVersion ? { installedVersion: library.installedVersion } : {}),
      ...(library.detectedFrom ? { detectedFrom: library.detectedFrom } : {}),
    };
    this.catalog.add(held);
    this.allowDocsDomains(held);
    return held;
  }

  private allowDocsDomains(library: LibraryDescriptor): void {
    this.deps.allowlist.allowHostsOf(this.docsUrlsOf(library), `library ${library.id}`);
  }

  /** The library's docs site and the URLs its adapters read it from (an llms.txt elsewhere). */
  private docsUrlsOf(library: LibraryDescriptor): string[] {
    const urls = [library.docsUrl, ...this.sources.for(library).flatMap((a) => a.docsUrls?.(library) ?? [])];
    return [...new Set(urls.filter((u): u is string => Boolean(u)))];
  }

  /** The library a tool's `libraryId` names: a known one, else one a provider finds; else `LIBRARY_NOT_FOUND`. */
  private async library(libraryId: string, context?: FetchContext): Promise<LibraryDescriptor> {
    const known = this.catalog.find(libraryId);
    // a detected package nobody described yet: a provider may find its docs now
    if (known?.detectedFrom) return this.withDocsSource(known, context);
    if (known) return known;
    const found = await this.catalog.lookup(libraryId, context);
    if (found) {
      this.allowDocsDomains(found);
      return found;
    }
    return this.catalog.require(libraryId);
  }

  /** Every known library. */
  libraries(): LibraryDescriptor[] {
    return this.catalog.all();
  }

  /** Known libraries ranked by how well they match a free-text query, best first (no provider lookup). */
  matchLibraries(query: string, language?: string): CatalogMatch[] {
    return this.catalog.match(query, language);
  }

  /**
   * The library a name means, as a person types it: an exact id, name or alias, else the best close match,
   * else one a provider finds. `undefined` when none does.
   */
  async findLibrary(name: string, context?: FetchContext): Promise<LibraryDescriptor | undefined> {
    return (
      this.catalog.find(name) ?? this.catalog.match(name)[0]?.library ?? (await this.catalog.lookup(name, context))
    );
  }

  /** Known libraries whose documentation is read from `url`'s host. */
  librariesAt(url: URL): LibraryDescriptor[] {
    return this.catalog.all().filter((lib) => this.docsUrlsOf(lib).some((u) => new URL(u).host === url.host));
  }

  /**
   * Removes a library's cached documentation, every version ({@link DocStore.clear}): the next call fetches and
   * indexes it again. `name` is an id as cached, else what {@link findLibrary} makes of it. Returns the id and how
   * many cache entries went (0: nothing of it was cached).
   */
  async clearCache(name: string): Promise<{ libraryId: string; removed: number }> {
    const cached = new Set((await this.store.cachedVersions()).map((v) => v.libraryId));
    const libraryId = cached.has(name) ? name : ((await this.findLibrary(name))?.id ?? name);
    const removed = await this.store.clear(libraryId);
    this.resolved.delete(libraryId);
    return { libraryId, removed };
  }

  /**
   * Removes everything cached ({@link DocStore.clearAll}); refused with `INDEXING_IN_PROGRESS` while any library is
   * being indexed, by this process or another sharing the cache. Returns how many cache entries went.
   */
  async clearAllCaches(): Promise<number> {
    const removed = await this.store.clearAll();
    this.resolved.clear();
    return removed;
  }

  /**
   * Library versions being indexed right now (`libraryId@version`), by this process or another sharing the
   * cache, and the id of the process indexing each: clearing them would undo a build under way.
   */
  indexingNow(): Promise<IndexingNow[]> {
    return this.store.indexingNow();
  }

  /** The library versions the cache holds documentation of (a TOC or indexed docs). */
  cachedLibraryVersions(): Promise<{ libraryId: string; version: string }[]> {
    return this.store.cachedVersions();
  }

  /** Libraries resolved in this process (their TOCs are listed as resources): id → version. */
  resolvedLibraries(): ReadonlyMap<string, string> {
    return this.resolved;
  }

  /** Fetches and indexes a library version now, waiting for it (the CLI, benchmarks); the version as `version()` picks it. */
  async loadDocs(libraryId: string, version?: string, context: FetchContext = {}): Promise<LoadResult> {
    const library = await this.library(libraryId, context);
    return this.store.load(library, (await this.version(library, version, context)).version, context);
  }

  /** The version to serve; `VERSION_NOT_FOUND` lists what exists. */
  async version(library: LibraryDescriptor, spec?: string, context?: FetchContext): Promise<VersionInfo> {
    // no version asked: the one installed in the project, when it has documentation; else the latest stable
    if (!spec?.trim() && library.installedVersion) {
      try {
        const { requested: _requested, ...info } = await this.version(library, library.installedVersion, context);
        return { ...info, installed: true };
      } catch (error) {
        if (!isProContextError(error) || error.code !== 'VERSION_NOT_FOUND') throw error;
        this.deps.logger.debug(
          `${library.id} ${library.installedVersion} (installed) has no documentation: serving latest`,
        );
        const { installedVersion: _installed, ...unpinned } = library;
        const latest = await this.version(unpinned, spec, context);
        return { ...latest, installedUndocumented: library.installedVersion };
      }
    }
    const info = await resolveLibraryVersion(library, spec, this.versionSources(library, context));
    // only the adapters that document this version are asked for its docs (the others would serve another's)
    const all = this.sources.for(library);
    const only = info.documentedBy && info.documentedBy.length < all.length ? info.documentedBy : undefined;
    this.sources.documents(library.id, info.version, only);
    return info;
  }

  /**
   * Runs `run` and waits on it while the source shows signs of life: past `engine.interactiveTimeoutMs` with
   * no progress (a page fetched, an index step), throws a recoverable SOURCE_UNAVAILABLE that says the source
   * timed out (`details.timedOut`). A big library whose pages keep arriving is waited for; a host that accepted
   * the connection and sends nothing is not. The work is not cancelled: it goes on (shared with the next call by
   * the doc store), and its outcome is logged.
   */
  private async withDeadline<T>(
    run: (context: FetchContext) => Promise<T>,
    what: string,
    context: FetchContext = {},
  ): Promise<T> {
    const ms = this.deps.options.interactiveTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    let expire: (error: ProContextError) => void = () => undefined;
    const deadline = new Promise<never>((_, reject) => {
      expire = reject;
    });
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        const seconds = Math.round(ms / 100) / 10;
        expire(
          new ProContextError(
            'SOURCE_UNAVAILABLE',
            `${what}: nothing arrived for ${seconds} s, the source timed out.`,
            {
              recoverable: true,
              retryAfter: 5,
              suggestion:
                'The fetch goes on in the background: call again in a few seconds, or raise engine.interactiveTimeoutMs for a slow source.',
              details: { timedOut: true, timeoutMs: ms },
            },
          ),
        );
      }, ms);
      timer.unref();
    };
    arm();
    const watched: FetchContext = {
      ...context,
      progress: (done, total, message) => {
        arm();
        context.progress?.(done, total, message);
      },
    };
    const work = run(watched);
    // the work's own failure after the deadline is not an unhandled rejection
    work.catch(() => undefined);
    try {
      return await Promise.race([work, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The registries, the library's adapters and the version-list cache, for {@link resolveLibraryVersion}. */
  private versionSources(library: LibraryDescriptor, context?: FetchContext): VersionSources {
    return {
      registries: this.deps.registries,
      adapters: this.sources.for(library),
      cache: this.deps.cache,
      versionsTtlMs: this.deps.options.versionsTtlSeconds * 1000,
      logger: this.deps.logger,
      ...(context ? { context } : {}),
    };
  }

  /** resolve-library: fuzzy match, versions, sources and the TOC. */
  async resolve(
    query: string,
    options: { language?: string; libraryId?: string } = {},
    context: FetchContext = {},
  ): Promise<ResolveResult> {
    let matches: CatalogMatch[];
    if (options.libraryId) {
      matches = [{ library: await this.library(options.libraryId, context), matchedBy: 'id', distance: 0 }];
    } else {
      matches = this.catalog.match(query, options.language);
      const lookupFailures: unknown[] = [];
      if (matches.length === 0) {
        // a name no provider listed: the providers may find it (a package name, later)
        const name = normalizeQuery(query);
        const hints = options.language ? { language: options.language } : undefined;
        const found = name ? await this.catalog.lookup(name, context, hints, lookupFailures) : undefined;
        if (found && (!options.language || !found.language || found.language === options.language)) {
          const hint = versionHint(query);
          matches = [{ library: found, matchedBy: 'id', distance: 0, ...(hint ? { versionHint: hint } : {}) }];
        }
      }
      // offline, behind a firewall or a DNS sinkhole: "no library matches" says which registry could not be asked
      // and why (#26: the cause, not a silent "not found"); the code stays LIBRARY_NOT_FOUND
      const unasked = lookupFailures
        .filter(
          (error): error is ProContextError => isProContextError(error) && /^REGISTRY_|^RATE_LIMITED$/.test(error.code),
        )
        .map((error) => error.message.replace(/\.$/, ''));
      if (matches.length === 0) {
        const anyLanguage = options.language ? this.catalog.match(query) : [];
        // close spellings too loose to resolve to ("http" → httpx) are still worth a "did you mean"
        const near = anyLanguage.length > 0 ? [] : this.catalog.suggest(query, options.language);
        throw new ProContextError(
          'LIBRARY_NOT_FOUND',
          `No library matches '${query}'${options.language ? ` in ${options.language}` : ''}.${
            unasked.length > 0 ? ` It could not be looked up: ${unasked.join('; ')}.` : ''
          }`,
          {
            suggestion:
              anyLanguage.length > 0
                ? `Did you mean '${anyLanguage[0]?.library.id}' (${anyLanguage[0]?.library.language ?? 'another language'})?`
                : (didYouMean(near) ??
                  "Check the spelling, or call resolve-library with another name or a few words of what it does (list-libraries with a query, e.g. query: 'http client', lists candidates)."),
            details: {
              suggestions: (anyLanguage.length > 0 ? anyLanguage.map((m) => m.library.id) : near).slice(0, 5),
              ...(unasked.length > 0 ? { registriesUnreachable: unasked } : {}),
            },
          },
        );
      }
    }
    const best = matches[0] as CatalogMatch;
    const library = best.library;
    const notes: string[] = [];
    const latest = await this.version(library, undefined, context);
    if (latest.unreachable) {
      const why = latest.unreachableReason ? ` (${latest.unreachableReason})` : '';
      notes.push(
        latest.from === 'config'
          ? `The ${latest.unreachable} registry could not be reached${why}, so ${library.name}'s versions could not be checked: this is its current documentation (${latest.version}).`
          : `The ${latest.unreachable} registry could not be reached${why}: ${library.name}'s versions are the last list it gave (cached).`,
      );
    }
    if (latest.installed)
      notes.push(
        `${library.name} ${latest.version} is the version installed in this project (${library.detectedFrom ?? 'project files'}); it is served when no version is asked${latest.latest !== latest.version ? ` (latest stable: ${latest.latest})` : ''}.`,
      );
    else if (latest.installedUndocumented)
      notes.push(
        `${library.name} ${latest.installedUndocumented} is installed in this project, but its documentation is not available; this is the latest stable, ${latest.version}.`,
      );
    // seed 001 §5.1: fuzzy matching handles typos; the agent is told, in the structured answer, which name it got
    if (best.matchedBy === 'fuzzy')
      notes.push(
        `Matched '${query.trim()}' to ${library.id} (${library.name}) by a close spelling; check it is the library meant.`,
      );
    const hinted = options.libraryId ? undefined : best.versionHint;
    const requested = hinted ? await this.hintedVersion(library, hinted, latest, notes, context) : undefined;
    const served = requested ?? latest;
    let toc: TocEntry[] = [];
    let tocSize = 0;
    let summary: string | undefined;
    let adapterId: string | undefined;
    let tocError: ResolveResult['tocError'];
    try {
      const record = await this.withDeadline(
        (ctx) => this.store.toc(library, served.version, ctx),
        `${library.name}'s documentation source did not send its table of contents`,
        context,
      );
      toc = record.toc.entries;
      tocSize = toc.length;
      summary = describeToc(record.toc);
      adapterId = record.adapterId;
      // what the source says the entries do not (files left out over a cap, and the setting that raises it)
      if (record.toc.notes) notes.push(...record.toc.notes);
      // pages left out of the index over a per-page limit, when the docs are indexed and loaded
      notes.push(...this.store.loadedNotes(library.id, served.version));
      // a source before the one that served could not: the agent (and its user) should hear why
      if (record.passedOver?.length)
        notes.push(
          `${library.name}'s documentation comes from ${record.adapterId}, because ${record.passedOver.join('; ')}.`,
        );
      if (record.stale)
        notes.push(
          `The table of contents is from the cache and has expired: it is being refreshed from ${library.name}'s source${this.sources.status.get(record.adapterId)?.status === 'failing' ? ', which could not be reached on its last try' : ''}.`,
        );
    } catch (error) {
      // seed 001 §5.1: no documentation source → the metadata without a TOC, and a note why
      if (!isProContextError(error) || context.signal?.aborted) throw error;
      notes.push(
        `No documentation could be indexed for ${library.name} ${served.version}: ${error.message}${error.suggestion ? ` ${error.suggestion}` : ''}`,
      );
      tocError = {
        code: error.code,
        message: error.message,
        timedOut:
          (error.details as { timedOut?: unknown } | undefined)?.timedOut === true || /timed out/i.test(error.message),
      };
    }
    this.allowDocsDomains(library);
    if (adapterId) {
      this.deps.allowlist.allowHostsOf(
        toc.map((e) => e.url),
        `toc ${library.id}`,
      );
      if (!this.resolved.has(library.id)) {
        this.resolved.set(library.id, served.version);
        this.deps.onLibraryResolved?.(library.id);
      }
    }
    const shown = prioritiseToc(toc, this.deps.options.tocLimit, this.deps.options.tocMaxTokens);
    const others = this.sources
      .for(library)
      .map((a) => a.id)
      .filter((id) => id !== adapterId);
    return {
      libraryId: library.id,
      name: library.name,
      description: library.description || summary || '',
      language: library.language ?? '',
      defaultVersion: latest.version,
      availableVersions: latest.available,
      sources: adapterId ? [adapterId, ...others] : others,
      toc: shown,
      tocTruncated: shown.length < tocSize,
      tocSize,
      matchedBy: best.matchedBy,
      // every library the query matched, then the library's family ("pydantic" → pydantic-ai, pydantic-settings)
      alternatives: await Promise.all(
        [
          ...new Set([
            ...matches.slice(1).map((m) => m.library),
            ...(options.libraryId ? [] : this.catalog.family(library, options.language)),
          ]),
        ]
          .filter((other, i, all) => other.id !== library.id && all.findIndex((o) => o.id === other.id) === i)
          .slice(0, MAX_ALTERNATIVES)
          .map(async (other) => ({
            id: other.id,
            name: other.name,
            description: await this.describe(other),
          })),
      ),
      ...(requested ? { requestedVersion: requested.version } : {}),
      notes,
      ...(tocError ? { tocError } : {}),
    };
  }

  /**
   * The version a hint in a resolve-library query names, when it was released and has documentation of its
   * own; otherwise `undefined`, with a note saying why the latest stable is shown instead.
   */
  private async hintedVersion(
    library: LibraryDescriptor,
    hint: string,
    latest: VersionInfo,
    notes: string[],
    context?: FetchContext,
  ): Promise<VersionInfo | undefined> {
    // a range as written ("zod@^3.22", "pydantic>=2"); a bare version exactly, else the newest of its
    // series ("pydantic v2" → 2.x, "typer 0.15" → 0.15.x)
    const bare = /^v?\d+(\.\d+)*$/i.test(hint);
    let released: VersionInfo | undefined;
    for (const spec of bare ? [hint, `${hint}.x`] : [hint]) {
      try {
        released = await resolveReleasedVersion(library, spec, this.versionSources(library, context));
        break;
      } catch (error) {
        if (!isProContextError(error) || error.code !== 'VERSION_NOT_FOUND') throw error;
        if (error.details?.unrefreshed) {
          // offline: the hint could not be checked, which is not the same as not existing
          notes.push(
            `${library.name}'s versions could not be checked (the ${String(error.details.unreachable)} registry could not be reached), so '${hint}' could not be checked either; this is its current documentation (${latest.version}).`,
          );
          return undefined;
        }
      }
    }
    if (!released) {
      const known = latest.available.filter((v) => v !== 'latest');
      // "zod==2.5" asked for version 2.5
      const shown = hint.replace(/^={1,3}\s*/, '');
      notes.push(
        known.length > 0
          ? `${library.name} has no version '${shown}' (available: ${known.join(', ')}); this is the latest stable, ${latest.version}.`
          : `pro-context knows no versions of ${library.name}, so '${shown}' could not be checked; this is its current documentation.`,
      );
      return undefined;
    }
    if (released.version === latest.version) return released;
    try {
      return await this.version(library, released.version, context);
    } catch (error) {
      if (!isProContextError(error) || error.code !== 'VERSION_NOT_FOUND') throw error;
      notes.push(
        `${library.name} ${released.version} exists, but only the documentation of the latest stable version, ${latest.version}, is available (its documentation URL is not version-specific); this TOC is ${latest.version}'s.`,
      );
      return undefined;
    }
  }

  /**
   * A library's description: configured, else the summary of its cached TOC (`version`'s, or any version's).
   * `cached` is the store's list of cached versions, when the caller already read it (list-libraries).
   */
  private async describe(
    library: LibraryDescriptor,
    version?: string,
    cached?: readonly { libraryId: string; version: string }[],
  ): Promise<string> {
    if (library.description) return library.description;
    cached ??= await this.store.cachedVersions();
    const versions = [
      version,
      this.resolved.get(library.id),
      ...cached.filter((c) => c.libraryId === library.id).map((c) => c.version),
    ];
    for (const v of new Set(versions)) {
      const record = v === undefined ? undefined : await this.store.cachedToc(library.id, v);
      const description = record && describeToc(record.toc);
      if (description) return description;
    }
    return '';
  }

  private async rank(
    library: LibraryDescriptor,
    loaded: LoadResult,
    query: string,
    limit: number,
  ): Promise<{ ranked: RankedChunk[]; total: number; terms: string[]; chunks: Map<string, StoredChunk> }> {
    const names = [library.name, library.id.split('/').pop() ?? library.id, library.packageName ?? ''];
    const topic = withoutLibraryName(query, names);
    const terms = queryTerms(topic);
    // the backend is asked without the question's scaffolding (`how do I`, `vs`, `difference between`)
    const { hits, total } = await this.deps.search.search(loaded.docs.key, searchText(topic), { limit });
    // the hits' chunks with the rest of their sections, and the chunks naming the query's identifiers or quoting
    // its error message that the backend did not rank (found by the term index), read from the cache
    const found = await Promise.all(
      rerankLookups(topic).map((words) => loaded.docs.containing(words, RERANK_LOOKUP_LIMIT)),
    );
    const chunks = await loaded.docs.read([...hits.map((h) => h.id), ...found.flat()]);
    const ranked = rerank(joinHits(hits, chunks, terms), topic, chunks, terms);
    return { ranked, total, terms, chunks };
  }

  /** get-docs: the best chunks for a topic within `maxTokens`, with provenance and related pages. */
  async getDocs(
    libraryId: string,
    topic: string,
    version: string | undefined,
    maxTokens: number,
    context: FetchContext = {},
    footer?: (answer: DocsAnswer) => number,
  ): Promise<DocsAnswer> {
    const library = await this.library(libraryId, context);
    const versions = await this.version(library, version, context);
    // seed 001 §5.2: a (library, version, topic) asked before is answered from the cache, without loading
    // the library's index (what a restarted server does first)
    const answerKey = keyOfAnswer(library.id, versions.version, maxTokens, Boolean(footer), topic);
    // and, while the docs are in memory, without ranking again: an answer of the revision in memory (a
    // refresh that just landed may not have cleared the older revision's answers yet)
    const state = this.store.state(library.id, versions.version);
    const inMemory = state === 'ready' ? this.store.loadedRevision(library.id, versions.version) : undefined;
    // docs a local source may serve (files on disk) are checked on every load: a stored answer could be of an
    // older edit, and ranking them again is cheap
    const local = this.sources.for(library).some((a) => a.local);
    if (!local && (state !== 'ready' || inMemory !== undefined)) {
      const stored = await this.deps.cache.get<StoredAnswer>(ns.answers, answerKey);
      if (stored && (inMemory === undefined || stored.value.revision === inMemory)) {
        const { revision: _revision, ...answer } = stored.value;
        // stale means the documentation is old: a registry that cannot be asked says nothing about it
        return this.noteReusable({ ...answer, cached: true, stale: false }, libraryId, library, {
          version: versions.version,
          revision: inMemory,
        });
      }
    }
    const loaded = await this.withDeadline(
      (ctx) => this.store.load(library, versions.version, ctx),
      `${library.name} ${versions.version}'s documentation could not be fetched and indexed`,
      context,
    );
    const toc = (await this.store.cachedToc(library.id, versions.version))?.toc.entries ?? [];
    // seed 000's topic rules, for every tool: quotes off, a placeholder is no topic, a path or slug is its words
    const normalized = normalizeTopic(topic);
    // a path naming a page, or no topic at all (the library's overview): that page, from its beginning
    const page =
      (normalized.path && this.pageAt(loaded.docs.record.pages, normalized.path)) ||
      (normalized.text === '' ? this.overviewPage(library, loaded.docs.record.pages, toc) : undefined);
    let ranked: RankedChunk[];
    let terms: string[];
    let candidates: RankedChunk[];
    if (page !== undefined) {
      const parts = (await loaded.docs.page(page)).sort((a, b) => a.order - b.order);
      ranked = parts.map((chunk, i) => ({ chunk, score: 1 - i / (parts.length + 1), coverage: 1 }));
      terms = [];
      candidates = ranked;
      indexSections(new Map(parts.map((c) => [c.id, c])));
    } else {
      let chunks: Map<string, StoredChunk>;
      ({ ranked, terms, chunks } = await this.rank(library, loaded, normalized.text || topic, 40));
      // Any hit matched a word of the topic (as written, misspelt, in another spelling or through a synonym):
      // the engine's own substring coverage cannot tell `valdiator` or `serialise` from nothing at all.
      if (ranked.length === 0) {
        throw kernelErrors.create(
          'TOPIC_NOT_FOUND',
          { library: library.name, version: versions.version, topic },
          { details: { relatedPages: this.relatedPages(toc, [], terms, loaded.docs.record.pages) } },
        );
      }
      candidates = withSectionParts(ranked, chunks, terms);
    }
    const weights = termWeightsFrom(terms, loaded.docs.chunkCount, await loaded.docs.termCounter());
    // pages left out of the index over a per-page limit: said in every answer of the library
    const notes = skippedNotes(loaded.docs.record);
    const answerWithin = (budget: number): DocsAnswer => {
      // a page asked for is given from its beginning, as far as the budget goes; a topic's answer stops where
      // relevance falls well below the best match's (maxTokens is a ceiling, not a quota)
      const { content, used } = fillBudget(page !== undefined ? candidates : selectRelevant(candidates), budget);
      const best = used[0];
      const source = best ? chunkUrl(best.chunk) : loaded.docs.record.sourceUrl;
      return {
        content,
        source,
        version: versions.version,
        lastUpdated: loaded.docs.record.fetchedAt,
        // the page asked for by its path, or the overview asked for by no topic, is the answer itself
        confidence: page !== undefined && best ? 1 : confidenceOf(best, terms, weights),
        cached: loaded.cached,
        stale: loaded.stale,
        relatedPages:
          page !== undefined
            ? this.relatedPages(toc, [], [], loaded.docs.record.pages, source)
            : this.relatedPages(toc, ranked, terms, loaded.docs.record.pages, source),
        moreSections: page !== undefined ? 0 : sectionsLeftOut(candidates, used),
        ...(notes.length > 0 ? { notes } : {}),
      };
    };
    let answer = answerWithin(maxTokens);
    // what the caller prints beside the content (its source line) must fit too: refill within the rest,
    // from the same ranking (whole chunks rarely fill a budget exactly, so this is the exception)
    const need = footer ? footer(answer) : 0;
    if (need > 0 && estimateTokens(answer.content) + need > maxTokens)
      answer = answerWithin(Math.max(1, maxTokens - need));
    // kept no longer than the docs it came from (a refresh clears it)
    const remaining = loaded.docs.expiresAt === null ? 0 : loaded.docs.expiresAt - Date.now();
    if (!loaded.stale && remaining > 1000) {
      const stored: StoredAnswer = { ...answer, revision: loaded.docs.record.revision };
      this.deps.cache.set(ns.answers, answerKey, stored, { ttlMs: remaining }).catch((error: unknown) => {
        this.deps.logger.warn('could not cache an answer', { libraryId: library.id, error });
      });
    }
    if (!local && loaded.cached)
      this.noteReusable(answer, libraryId, library, {
        version: versions.version,
        revision: loaded.docs.record.revision,
      });
    return answer;
  }

  /** get-docs answers a host may serve again for the same arguments, while the check holds: see {@link reusable}. */
  private readonly reusableAnswers = new WeakMap<DocsAnswer, () => boolean>();

  /**
   * Marks a get-docs answer (of docs the store had, not stale) as reusable: while the catalog still gives the
   * same library for the id asked, the same revision of its docs is in memory (none, if there were none), and
   * for at most {@link REUSE_MS} (the version's resolution is not checked again within it).
   */
  private noteReusable(
    answer: DocsAnswer,
    asked: string,
    library: LibraryDescriptor,
    docs: { version: string; revision: string | undefined },
  ): DocsAnswer {
    if (answer.stale || !answer.cached || this.catalog.find(asked) !== library) return answer;
    const until = Date.now() + REUSE_MS;
    this.reusableAnswers.set(
      answer,
      () =>
        Date.now() < until &&
        this.catalog.find(asked) === library &&
        this.store.loadedRevision(library.id, docs.version) === docs.revision,
    );
    return answer;
  }

  /**
   * For an answer {@link getDocs} just returned: a check that holds while the same arguments would get an answer
   * with the same content (same docs revision, same library), for a short while; `undefined` when the answer
   * must not be reused (fresh from a fetch, stale, from local files).
   */
  reusable(answer: DocsAnswer): (() => boolean) | undefined {
    return this.reusableAnswers.get(answer);
  }

  /**
   * Pages an agent may read next, never the page returned (`source`, fragment aside): the pages of the
   * ranked hits in rank order (the same relevance as the answer), then TOC titles matching the topic, then
   * (no topic, or no hit elsewhere) the TOC's first pages, so a low-confidence answer always has somewhere
   * to go (seed 001 §11.3).
   */
  private relatedPages(
    toc: readonly TocEntry[],
    ranked: readonly RankedChunk[],
    terms: readonly string[],
    pages: readonly { url: string; title: string }[],
    source?: string,
  ): DocsAnswer['relatedPages'] {
    const wanted = this.deps.options.relatedPages;
    const out = new Map<string, DocsAnswer['relatedPages'][number]>();
    const page = (url: string) => url.split('#')[0] as string;
    const returned = source === undefined ? undefined : page(source);
    const describe = (url: string) => toc.find((e) => e.url === url)?.description ?? '';
    const add = (url: string, entry: DocsAnswer['relatedPages'][number]) => {
      if (out.size >= wanted || out.has(page(url)) || page(url) === returned) return;
      out.set(page(url), entry);
    };
    for (const item of ranked) {
      const url = item.chunk.url;
      add(url, { title: item.chunk.pageTitle, url, description: describe(url) || sectionPath(item.chunk) });
    }
    const candidates = toc.length > 0 ? toc : pages.map((p) => ({ title: p.title, url: p.url, description: '' }));
    const scored = candidates
      .map((e) => ({ e, score: termCoverage(terms, `${e.title} ${e.description ?? ''}`) }))
      .filter((x) => x.score > 0)
      .sort((a, b) => b.score - a.score);
    for (const { e } of scored) add(e.url, { title: e.title, url: e.url, description: e.description ?? '' });
    if (out.size === 0)
      for (const e of candidates) add(e.url, { title: e.title, url: e.url, description: e.description ?? '' });
    return [...out.values()];
  }

  /** The page a path topic names (`tutorial/dependencies/index`): its URL ends with the path, extension aside. */
  private pageAt(pages: readonly { url: string }[], path: readonly string[]): string | undefined {
    const wanted = path.join('/').toLowerCase();
    if (!wanted) return undefined;
    const bare = (url: string) =>
      (URL.canParse(url) ? new URL(url).pathname : url)
        .toLowerCase()
        .replace(/\.(?:md|mdx|html?|txt)$/, '')
        .replace(/(?<!\/)\/+$/, '');
    const ends = (url: string, tail: string) => bare(url) === tail || bare(url).endsWith(`/${tail}`);
    const exact = pages.find((p) => ends(p.url, wanted));
    if (exact) return exact.url;
    // `tutorial/dependencies` names the folder's own page (`tutorial/dependencies/index.md`)
    return pages.find((p) => ends(p.url, `${wanted}/index`))?.url;
  }

  /**
   * The library's overview, for a get-docs without a topic: its introduction page (titled like the library
   * or its TOC, or Introduction, Overview, Getting started, Home, Welcome), else the page nearest the docs'
   * root; TOC order breaks ties.
   */
  private overviewPage(
    library: LibraryDescriptor,
    pages: readonly { url: string; title: string }[],
    toc: readonly TocEntry[],
  ): string | undefined {
    const names = new Set([library.name, library.id].map((n) => n.trim().toLowerCase()));
    const intro = /^(?:introduction|overview|getting started|get started|home|welcome|about)\b/i;
    const listed = toc.length > 0 ? toc.map((e) => ({ url: e.url, title: e.title })) : pages;
    const known = new Set(pages.map((p) => p.url.split('#')[0]));
    const depth = (url: string) => (URL.canParse(url) ? new URL(url).pathname : url).split('/').filter(Boolean).length;
    const ranked = listed
      .filter((p) => known.has(p.url.split('#')[0]))
      .map((p, order) => ({
        url: p.url,
        named: names.has(p.title.trim().toLowerCase()) || intro.test(p.title.trim()) ? 0 : 1,
        depth: depth(p.url),
        order,
      }))
      .sort((a, b) => a.named - b.named || a.depth - b.depth || a.order - b.order);
    return ranked[0]?.url ?? pages[0]?.url;
  }

  /**
   * search-docs: ranked snippets. A library not indexed yet starts indexing; if that takes longer than
   * `searchWaitMs`, the answer is `INDEXING_IN_PROGRESS` with a `retryAfter`.
   */
  async search(
    libraryId: string,
    query: string,
    version: string | undefined,
    maxResults: number,
  ): Promise<SearchAnswer> {
    const library = await this.library(libraryId);
    const versions = await this.version(library, version);
    let loaded: LoadResult;
    if (this.store.state(library.id, versions.version) === 'ready') {
      loaded = await this.store.load(library, versions.version);
    } else {
      const started = Date.now();
      const pending = this.store.loadInBackground(library, versions.version);
      const wait = this.deps.options.searchWaitMs;
      const outcome = await Promise.race([
        pending.then((r) => ({ done: true as const, r })),
        new Promise<{ done: false }>((resolve) => setTimeout(() => resolve({ done: false }), wait).unref()),
      ]);
      if (!outcome.done) {
        const elapsed = (Date.now() - started) / 1000;
        throw kernelErrors.create(
          'INDEXING_IN_PROGRESS',
          { library: library.name, version: versions.version },
          { retryAfter: Math.max(2, Math.ceil(elapsed * 2)) },
        );
      }
      loaded = outcome.r;
    }
    // seed 000's topic rules apply to a search query too (quotes, slugs, paths)
    const normalized = normalizeTopic(query).text || query;
    const { ranked, total, terms } = await this.rank(library, loaded, normalized, Math.max(maxResults * 3, 20));
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
    return { results, totalMatches: total, version: versions.version };
  }

  /** read-page. */
  async readPage(url: string, maxTokens: number, offset: number, signal?: AbortSignal): Promise<PageSlice> {
    try {
      return await this.withDeadline(() => this.pages.read(url, maxTokens, offset, signal), `${url} could not be read`);
    } catch (error) {
      // A page listed in a TOC fetched before a restart is still allowed: the allowlist lives in memory,
      // the TOCs in the cache.
      if (!(isProContextError(error) && error.code === 'URL_NOT_ALLOWED') || !(await this.listedInCachedToc(url))) {
        throw error;
      }
      return this.pages.read(url, maxTokens, offset, signal);
    }
  }

  /** The title a cached TOC gives the page at `url` (for read-page, when the page itself names none). */
  private async tocTitleOf(url: URL): Promise<string | undefined> {
    return (await this.cachedTocListing(url, (entry) => Boolean(entry.title)))?.entry.title;
  }

  /** Whether `url` is a page of a cached TOC; if so its TOC's hosts join the allowlist again. */
  private async listedInCachedToc(raw: string): Promise<boolean> {
    if (!URL.canParse(raw)) return false;
    const listing = await this.cachedTocListing(new URL(raw));
    if (!listing) return false;
    this.deps.allowlist.allowHostsOf(
      listing.toc.entries.map((e) => e.url),
      `cached toc ${listing.libraryId}`,
    );
    return true;
  }

  /** The first cached TOC listing the page at `url` (fragments aside) in an entry `accept`s, with that entry. */
  private async cachedTocListing(
    url: URL,
    accept: (entry: TocEntry) => boolean = () => true,
  ): Promise<{ libraryId: string; toc: TocResult; entry: TocEntry } | undefined> {
    const wanted = new URL(url.href);
    wanted.hash = '';
    for (const { libraryId, version } of await this.store.cachedVersions()) {
      const toc = (await this.store.cachedToc(libraryId, version))?.toc;
      const entry = toc?.entries.find((e) => e.url.split('#')[0] === wanted.href && accept(e));
      if (toc && entry) return { libraryId, toc, entry };
    }
    return undefined;
  }

  /**
   * list-libraries: known, cached and resolved libraries, filtered (`query`: every word in the id, name,
   * aliases, description or categories), the project's first, then the cached ones, then by name.
   */
  async listLibraries(
    filters: { language?: string; category?: string; query?: string } = {},
  ): Promise<LibrarySummary[]> {
    const cachedVersions = await this.store.cachedVersions();
    const words = (filters.query ?? '').toLowerCase().split(/\s+/).filter(Boolean);
    const out: LibrarySummary[] = [];
    for (const library of this.catalog.all()) {
      if (filters.language && library.language !== filters.language) continue;
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
        if (!words.every((w) => haystack.includes(w))) continue;
      }
      if (
        filters.category &&
        !(library.categories ?? []).some((c) => c.toLowerCase() === filters.category?.toLowerCase())
      )
        continue;
      const cachedVersion = cachedVersions.find((c) => c.libraryId === library.id)?.version;
      const defaultVersion =
        this.resolved.get(library.id) ??
        library.installedVersion ??
        cachedVersion ??
        library.defaultVersion ??
        library.versions?.[0] ??
        'latest';
      out.push({
        id: library.id,
        name: library.name,
        description: await this.describe(library, defaultVersion, cachedVersions),
        language: library.language ?? '',
        defaultVersion,
        categories: library.categories ?? [],
        sources: this.sources.for(library).map((a) => a.id),
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

  /** The TOC of a resolved (or resolvable) library as markdown, for `library://{libraryId}/toc`. */
  async tocMarkdown(libraryId: string): Promise<string> {
    const library = await this.library(libraryId);
    const version = this.resolved.get(library.id) ?? (await this.version(library)).version;
    let toc: TocResult;
    try {
      ({ toc } = await this.store.toc(library, version));
    } catch (error) {
      // as resolve-library does: the library is known, its documentation could not be read; say why
      if (!isProContextError(error) || error.code === 'INTERNAL_ERROR') throw error;
      return `# ${library.name} Documentation\n\nNo table of contents: ${error.message}${error.suggestion ? ` ${error.suggestion}` : ''}\n`;
    }
    const lines = [`# ${toc.title ?? library.name} Documentation`, ''];
    if (toc.summary) lines.push(`> ${toc.summary}`, '');
    lines.push(`Version ${version}. Read any page with read-page.`, '');
    let section: string | undefined;
    for (const entry of toc.entries) {
      if (entry.section !== section) {
        section = entry.section;
        lines.push('', `## ${section ?? 'Pages'}`);
      }
      lines.push(tocEntryLine(entry));
    }
    return `${lines.join('\n').replace(/\n{3,}/g, '\n\n')}\n`;
  }

  /** Waits for background work: resolution of libraries delivered after start, persistence of indexes, refreshes. */
  async idle(): Promise<void> {
    while (this.background.size > 0) await Promise.all([...this.background]);
    return this.store.idle();
  }

  /** Stops watching providers and cancels background resolution (the engine plugin's `stop`). */
  close(): void {
    for (const unwatch of this.unwatch.splice(0)) unwatch();
    this.stopping.abort();
  }

  /** Stops the chunking workers (after {@link idle}: a refresh under way may still chunk). */
  async stopWorkers(): Promise<void> {
    // (the page worker too: a page being converted would otherwise hold the process up to its time budget)
    await Promise.all([this.chunking.close(), sharedPageConverter().close()]);
  }

  /** Status for health. */
  loadedVersions(): string[] {
    return this.store.loadedKeys();
  }
}

/**
 * A one-sentence description from a TOC: the llms.txt summary (its blockquote), else the description of
 * the entry for the file's own H1 (a manual-style llms.txt, like instructor's, opens with an intro
 * paragraph and no blockquote).
 */
function describeToc(toc: TocResult): string | undefined {
  if (toc.summary?.trim()) return toc.summary.trim();
  const title = toc.title?.trim().toLowerCase();
  const intro = title ? toc.entries.find((e) => e.title.trim().toLowerCase() === title) : undefined;
  return intro?.description?.trim() || undefined;
}

/** One TOC entry as a markdown list line, as resolve-library and the TOC resource show it. */
export function tocEntryLine(entry: TocEntry): string {
  return `- [${entry.title}](${entry.url})${entry.description ? ` — ${entry.description}` : ''}`;
}

/**
 * The TOC entries a resolve-library answer carries: the `Optional` section last, at most `limit` entries and
 * `maxTokens` estimated tokens of them (seed D2: the full TOC of a typical llms.txt, under 10K tokens).
 */
function prioritiseToc(entries: readonly TocEntry[], limit: number, maxTokens: number): TocEntry[] {
  const optional = (e: TocEntry) => (e.section ?? '').toLowerCase() === 'optional';
  const ordered = [...entries.filter((e) => !optional(e)), ...entries.filter(optional)];
  const shown: TocEntry[] = [];
  let tokens = 0;
  for (const entry of ordered) {
    tokens += estimateTokens(`${tocEntryLine(entry)}\n`);
    if (shown.length >= limit || tokens > maxTokens) break;
    shown.push(entry);
  }
  return shown;
}

export type { PageSlice, StoredChunk };

import type {
  CacheStore,
  FetchContext,
  DocsResult as FetchedDocs,
  LibraryDescriptor,
  Logger,
  ProContextError,
  SourceAdapter,
  TocResult,
} from '@pro-context/kernel';
import { TermIndex } from '@pro-context/markdown';
import { Slicer } from '@pro-context/plugin-kit';
import { engineMessages } from '../tools/render-errors.js';
import type { SourceChain } from '../versions/sources.js';
import { type BuildTarget, IndexingBuild } from './indexing-build.js';
import { answerKeyPrefix, ns, versionKey } from './keys.js';
import type { DocsPersistence } from './persistence.js';
import { blockPrefix, type DocsManifest, type StoredChunk, type StoredDocsTable } from './stored-docs.js';
import type { TocRecord } from './toc-store.js';

/** Least time between two progress reports of one library's indexing, ms (a phase's first report always goes). */
const PROGRESS_EVERY_MS = 100;
/** Pages chunked at which a streamed download's progress is half of its share. */
const STREAMED_HALF_PAGES = 2000;

/** What fetching and indexing a library version works with (the doc store's parts). */
export interface IndexingDeps {
  cache: CacheStore;
  sources: SourceChain;
  logger: Logger;
  maxChunkTokens: number;
  /** Where builds chunk, index and write blocks. */
  target: BuildTarget;
  persistence: DocsPersistence;
  /** Makes a manifest the loaded docs of its library version (see `DocStore`). */
  remember: (
    manifest: DocsManifest,
    expiresAt: number | null,
    pending?: readonly StoredChunk[],
    terms?: TermIndex,
  ) => StoredDocsTable;
}

/** `value` as an ISO 8601 UTC date-time; the current time when it is not a date at all. */
function isoDateTime(value: string): string {
  const time = Date.parse(value);
  return Number.isNaN(time) ? new Date().toISOString() : new Date(time).toISOString();
}

/** Reports progress in percent, at most one report every {@link PROGRESS_EVERY_MS} (each phase's first always). */
type Report = (percent: number, message: string, phaseStart?: boolean) => void;

function reporter(context: FetchContext): Report {
  let lastReport = Number.NEGATIVE_INFINITY;
  return (percent, message, phaseStart = false) => {
    if (context.signal?.aborted) return;
    const now = performance.now();
    if (!phaseStart && now - lastReport < PROGRESS_EVERY_MS) return;
    lastReport = now;
    context.progress?.(Math.round(percent), 100, message);
  };
}

/** What the adapter chain fetched, and the build its streamed pages went to (if it streamed). */
interface Fetched {
  fetched: FetchedDocs & { streamed: boolean };
  adapter: SourceAdapter;
  build: IndexingBuild | undefined;
}

/**
 * Fetches the docs through the adapter chain (only the adapters `documenting` the version, when given). Each
 * adapter tried builds afresh: pages it hands over while it reads (`FetchContext.pages`) are chunked, indexed and
 * written at once; a failed attempt's partial build is dropped before the next source is tried.
 */
async function fetchPages(
  deps: IndexingDeps,
  library: LibraryDescriptor,
  version: string,
  context: FetchContext,
  report: Report,
  documenting?: readonly string[],
): Promise<Fetched> {
  const key = { libraryId: library.id, version };
  let build: IndexingBuild | undefined;
  const { value: fetched, adapter } = await deps.sources.first(
    library,
    'fetch the documentation',
    async (a, ctx) => {
      let attempt: IndexingBuild | undefined;
      const open = () => {
        attempt ??= new IndexingBuild(deps.target, key, deps.maxChunkTokens, context.signal);
        return attempt;
      };
      try {
        const result = await a.fetchDocs(library, version, {
          ...ctx,
          pages: async (batch) => {
            // chunked while it downloads: how many pages are chunked of those received so far
            // how far a download of unknown length has got is unknown: a share of the fetch's 80 % that keeps
            // growing with the pages chunked (half of it at STREAMED_HALF_PAGES), never reaching the next phase
            await open().add(batch, (done, received) =>
              report(5 + (74 * done) / (done + STREAMED_HALF_PAGES), `Chunking ${received} pages (${done} done)`),
            );
          },
        });
        build = attempt;
        // pages handed over mean a full library (never set aside as condensed); the result's own pages (all
        // of them, from an adapter that does not stream) go through the same build below
        return attempt === undefined
          ? { ...result, streamed: false }
          : { ...result, condensed: undefined, streamed: true };
      } catch (error) {
        await attempt?.abandon();
        throw error;
      }
    },
    {
      ...context,
      progress: (done, total, message) => report(total > 0 ? (80 * done) / total : 0, message, done === 0),
    },
    documenting,
  );
  return { fetched, adapter, build };
}

/** INVALID_CONTENT: an adapter read no page with content from the library's settings. */
function noContent(library: LibraryDescriptor, adapter: SourceAdapter): ProContextError {
  const settings = [
    ...Object.entries(library.sources ?? {}).flatMap(([bag, values]) =>
      Object.keys(values).map((key) => `sources.${bag}.${key}`),
    ),
    ...(['docsUrl', 'repository', 'localPath'] as const).filter((key) => library[key]),
  ].join(', ');
  return engineMessages.create('NO_CONTENT', {
    adapter: adapter.id,
    library: library.name,
    libraryId: library.id,
    settings: settings || 'source',
  });
}

/** The codes of a page that failed to arrive but may next time (not a refusal, not a missing page). */
const TRANSIENT = new Set(['SOURCE_UNAVAILABLE', 'RATE_LIMITED']);

/** The fetched pages chunked and indexed by `build`: the manifest, term index and the chunks kept at hand. */
async function indexPages(
  library: LibraryDescriptor,
  version: string,
  { fetched, adapter }: Fetched,
  build: IndexingBuild,
  report: Report,
): Promise<{ manifest: DocsManifest; terms: Uint8Array; chunks: StoredChunk[] | undefined }> {
  // (the result's pages leave `fetched` as they go to the build: once chunked they can be let go)
  const pages = fetched.pages;
  fetched.pages = [];
  const total = pages.length;
  report(80, total > 0 ? `Chunking ${total} pages` : 'Chunking the last pages read', true);
  await build.addAll(pages, total, (done) =>
    report(80 + (10 * done) / Math.max(1, total), `Chunking ${total} pages (${done} done)`),
  );
  const chunkCount = await build.chunkCount();
  if (chunkCount === 0) throw noContent(library, adapter);
  report(90, `Indexing ${chunkCount} chunks`, true);
  // pages the source itself refused over a per-page limit (a crawl converts as it goes) are noted like the
  // build's own; a page that failed to arrive (its catalog code says why) too, until the next refresh fetches it —
  // not one the site does not have (a listed page answering 404: no content is missing, and no call brings it)
  for (const skip of fetched.skipped ?? []) {
    if (skip.code === 'PAGE_TOO_LARGE' || skip.code === 'PAGE_TOO_COMPLEX') {
      build.skipped.push({ url: skip.url, reason: skip.reason, code: skip.code });
    } else if (skip.code !== undefined && skip.code !== 'PAGE_NOT_FOUND') {
      const page = skip.reason.includes(skip.url) ? '' : `${skip.url}: `;
      // an upstream that failed may answer next time; a refusal (by policy) stays one
      const again = TRANSIENT.has(skip.code) ? '; the next refresh fetches it again' : '';
      const reason = `${page}${skip.reason.replace(/\.$/, '')} (${skip.code})${again}.`;
      build.skipped.push({ url: skip.url, reason, code: skip.code });
    }
  }
  return build.finish({
    libraryId: library.id,
    version,
    adapterId: adapter.id,
    sourceUrl: fetched.sourceUrl,
    // one form whatever an adapter wrote (get-docs' output schema says date-time)
    fetchedAt: isoDateTime(fetched.fetchedAt),
    freshness: fetched.freshness,
  });
}

/**
 * Fetches, chunks, indexes and loads a library version's docs; persists them after the answer (term index,
 * manifest, index snapshot; the chunk blocks are written already), dropping the answers and read-page copies of
 * the revision they replace.
 */
export function fetchAndIndex(
  deps: IndexingDeps,
  library: LibraryDescriptor,
  version: string,
  context: FetchContext,
  documenting?: readonly string[],
): Promise<StoredDocsTable> {
  return deps.logger.span('engine.index', { libraryId: library.id, version }, async (span) => {
    const fetchStarted = performance.now();
    // progress in percent: the adapter's fetch is the first 80 %, chunking and indexing the rest. A streamed
    // library reports every batch: at most one report every PROGRESS_EVERY_MS goes out (each phase's first always),
    // and none once the call is cancelled.
    const report = reporter(context);
    report(0, `Fetching the ${library.name} ${version} documentation`, true);
    const fetched = await fetchPages(deps, library, version, context, report, documenting);
    const chunkStarted = performance.now();
    const key = { libraryId: library.id, version };
    const build = fetched.build ?? new IndexingBuild(deps.target, key, deps.maxChunkTokens, context.signal);
    let indexed: Awaited<ReturnType<typeof indexPages>>;
    try {
      indexed = await indexPages(library, version, fetched, build, report);
    } catch (error) {
      await build.abandon();
      throw error;
    }
    report(100, `Indexed ${library.name} ${version}`, true);
    // where a first answer's time goes (the benchmark reads these): fetch, chunk, index (a library handed over
    // in batches is chunked and indexed while it downloads: its fetch span includes theirs)
    span.set({
      adapter: fetched.adapter.id,
      pages: indexed.manifest.pages.length,
      chunks: indexed.manifest.ids.length,
      skipped: fetched.fetched.skipped?.length ?? 0,
      // why, for the first few (the answers name those a limit or a failure left out; the rest is the source's policy)
      ...(fetched.fetched.skipped?.length
        ? { skippedFirst: fetched.fetched.skipped.slice(0, 5).map((s) => `${s.url}: ${s.reason}`) }
        : {}),
      streamed: fetched.fetched.streamed,
      fetchMs: Math.round(chunkStarted - fetchStarted),
      chunkMs: Math.round(build.chunkMs),
      indexMs: Math.round(build.indexMs),
    });
    const ttlMs = library.ttlHours ? library.ttlHours * 3_600_000 : undefined;
    // (a small library's chunks stay at hand until persisted: its first answers read no block back)
    const docs = deps.remember(
      indexed.manifest,
      ttlMs ? Date.now() + ttlMs : null,
      indexed.chunks,
      TermIndex.read(indexed.terms),
    );
    persistBuilt(deps, library, version, docs, {
      ...indexed,
      toc: fetched.fetched.toc,
      adapterId: fetched.adapter.id,
      ttlMs,
    });
    return docs;
  });
}

/** Persists freshly built docs after the answer, after any other persistence (see {@link fetchAndIndex}). */
function persistBuilt(
  deps: IndexingDeps,
  library: LibraryDescriptor,
  version: string,
  docs: StoredDocsTable,
  built: { manifest: DocsManifest; terms: Uint8Array; toc?: TocResult; adapterId: string; ttlMs?: number | undefined },
): void {
  const { cache } = deps;
  const { manifest, toc, ttlMs } = built;
  const pageUrls = new Set([
    ...manifest.pages.map((p) => p.url),
    ...(toc?.entries.map((e) => e.url.split('#')[0] as string) ?? []),
  ]);
  deps.persistence.inOrder(library.id, async () => {
    try {
      // answers computed from an earlier revision of these docs go
      const answerPrefix = answerKeyPrefix(library.id, version);
      // (a delete is a synchronous write: thousands of pages are one long stall without turns between them)
      const slicer = new Slicer();
      for (const key of await cache.keys(ns.answers, answerPrefix)) {
        await slicer.turn();
        await cache.delete(ns.answers, key);
      }
      // and so do read-page's copies of its pages: the next read fetches the page as it is now
      for (const url of pageUrls) {
        await slicer.turn();
        await cache.delete(ns.pages, url);
      }
      await deps.persistence.writeDocs(docs, manifest, [], built.terms, ttlMs ? { ttlMs } : {});
    } finally {
      deps.target.building.delete(blockPrefix(manifest));
    }
    if (toc) {
      await cache.set<TocRecord>(
        ns.toc,
        versionKey(library.id, version),
        { toc, adapterId: built.adapterId },
        ttlMs ? { ttlMs } : {},
      );
    }
    await deps.persistence.saveSnapshot(docs);
  });
}

import type {
  AnswerRevisions,
  CacheStore,
  HttpClient,
  LibraryProvider,
  Logger,
  RegistryResolver,
  SearchBackend,
  SourceAdapter,
  UrlAllowlist,
} from '@pro-context/kernel';
import type { DocStore } from './indexing/doc-store.js';
import type { LibraryCatalog } from './libraries/catalog.js';
import type { Libraries } from './libraries/libraries.js';
import type { EngineOptions } from './options.js';
import type { PageReader } from './read-page/pages.js';
import type { IndexLease, ReplicaEvents } from './replicas.js';
import type { Reranker } from './reranking.js';
import type { SourceChain } from './versions/sources.js';
import type { ServedVersion } from './versions/types.js';

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
  /**
   * Bumped whenever what an answer may come from changes (docs loaded, refreshed or dropped; a library added,
   * reconfigured or removed): the kernel's (`kernelTokens.revisions`).
   */
  revisions: AnswerRevisions;
  /**
   * Replicas sharing the store (`indexLeaseToken`, bound by a shared store such as PostgreSQL's): a library
   * version missing from the store is fetched and indexed by one replica at a time, the others wait and load it.
   */
  leases?: IndexLease;
  /** Replicas sharing the store (`replicaEventsToken`): docs changed here are told to them, theirs dropped here. */
  replicaEvents?: ReplicaEvents;
  /**
   * A model that reranks get-docs' best lexical sections (`rerankerToken`, bound by an optional plugin such as
   * openai-embeddings). Unbound: the lexical ranking answers alone.
   */
  reranker?: Reranker;
  /** Called when the set of resolved libraries grows (to emit `resources/list_changed`). */
  onLibraryResolved?: (libraryId: string) => void;
}

/** The parts every use case of the engine works with (built once by `DocsEngine`). */
export interface EngineParts {
  readonly deps: DocsEngineDeps;
  readonly catalog: LibraryCatalog;
  readonly libraries: Libraries;
  /** The adapter chain; its `status` feeds `pro-context://health`. */
  readonly sources: SourceChain;
  readonly store: DocStore;
  readonly pages: PageReader;
  readonly revisions: AnswerRevisions;
  /** Libraries resolved in this process (their TOCs are listed as resources): id → the version served. */
  readonly resolved: Map<string, ServedVersion>;
}

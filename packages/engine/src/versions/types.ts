// The types the version modules share: versions.ts resolves a version, registry-versions.ts asks the registries,
// served-version.ts picks the version a call is served.
import type { CacheStore, FetchContext, Logger, RegistryResolver, SourceAdapter } from '@pro-context/kernel';

/** A library version as served, and what else exists. */
export interface VersionInfo {
  /** The exact version served. */
  version: string;
  /** What the agent asked for, if anything. */
  requested?: string;
  /** Recent versions, newest first (at most 10). */
  available: string[];
  /** Latest stable version. */
  latest: string;
  /** Registry that answered (`'pypi'`, `'npm'`), or `'config'`. */
  from: string;
  /**
   * The registry could not be asked: the version list is the last one it gave (from the cache), or, with none
   * cached, the library's own (`from: 'config'`). It says nothing about the documentation's age: docs served with
   * this version are stale only when the docs themselves are.
   */
  stale?: boolean;
  /** The registry that could not be asked (`'pypi'`), when the versions could not be refreshed. */
  unreachable?: string;
  /** Why it could not be asked, in words ("its host name does not resolve"), for the note. */
  unreachableReason?: string;
  /** Ids of the adapters that document this version (the source chain asks only those). */
  documentedBy?: string[];
  /** No version was asked and this is the version installed in the project (project detection). */
  installed?: boolean;
  /** No version was asked; this version installed in the project has no documentation, so the latest is served. */
  installedUndocumented?: string;
}

/** What a version is resolved with. */
export interface VersionSources {
  /** The installed package registries. */
  registries: readonly RegistryResolver[];
  /** The adapters that can serve the library, best first: they say which versions have documentation. */
  adapters?: readonly SourceAdapter[];
  /** Where registry version lists are kept (namespace `versions`), for reuse and as a fallback. */
  cache?: CacheStore;
  /** How long a cached version list is used without asking the registry again, ms (default 1 hour). */
  versionsTtlMs?: number;
  /**
   * How long a registry that could not be reached is not asked again, ms (default `REGISTRY_RETRY_AFTER_MS`,
   * registry-versions.ts).
   */
  registryRetryAfterMs?: number;
  context?: FetchContext;
  logger?: Logger;
}

/** The version a call is served, and which of the library's adapters document it. */
export interface ServedVersion extends VersionInfo {
  /**
   * The ids of the adapters that document this version, when only some of the library's adapters do (the others
   * would serve another version's docs); `undefined`: every adapter that can handle the library. Passed to the
   * doc store, which asks only those (`SourceChain.for`).
   */
  documenting?: readonly string[];
}

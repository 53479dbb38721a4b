import type { FetchContext } from './library.js';
import { createToken } from './token.js';

/** One published version of a package. */
export interface PackageVersion {
  version: string;
  /** ISO date-time of the release, when the registry says. */
  publishedAt?: string;
  /** Pre-release (alpha, beta, rc, dev, next…). */
  prerelease: boolean;
  /** Yanked (PyPI) or deprecated (npm). */
  yanked?: boolean;
}

/** What a package registry says about a package. */
export interface PackageMetadata {
  /** Name as the registry spells it. */
  name: string;
  /** The registry's ecosystem, as {@link RegistryResolver.ecosystem} names it (`'pypi'`, `'npm'`). */
  ecosystem: string;
  summary?: string;
  homepage?: string;
  repository?: string;
  /** Documentation URL from the package metadata. */
  documentationUrl?: string;
  /** Other labelled URLs (PyPI `project_urls`). */
  urls?: Record<string, string>;
  /** Latest stable version (no pre-releases, no yanked). */
  latestStable?: string;
  /** Every version, newest first. */
  versions: PackageVersion[];
}

/** A version spec resolved to an exact release. */
export interface ResolvedVersion {
  version: string;
  /** What was asked for (`undefined` = latest stable). */
  requested?: string;
  metadata: PackageMetadata;
}

/** A search hit in a registry. */
export interface RegistrySearchHit {
  name: string;
  summary?: string;
  version?: string;
}

/**
 * A package registry for one ecosystem (PyPI, npm).
 *
 * The engine picks the resolver whose `ecosystem` is a key of the library's `packages`
 * (`{ pypi: 'pydantic' }`), else, for libraries without `packages`, the registry of its language (`python` →
 * `pypi`, `javascript`/`typescript` → `npm`). A registry that knows the package wins over the library's
 * configured `versions`. Specs are handed over as the agent wrote them (`^3.22`, `>=2,<3`, `~=2.10`, `2.x`):
 * evaluate them as the ecosystem does (semver for npm, PEP 440 for PyPI). The engine caches the returned
 * version list (namespace `versions`) and answers from it while it is fresh, or when the registry is down.
 *
 * `resolveVersion` throws `VERSION_NOT_FOUND` (with the available versions in its suggestion) for a
 * version or range that matches nothing, `LIBRARY_NOT_FOUND` for an unknown package, `REGISTRY_TIMEOUT` when
 * the registry did not answer within its deadline, `REGISTRY_UNREACHABLE` when it could not be reached at all
 * (refused by policy, DNS, connection refused or reset, TLS), `REGISTRY_ERROR` when it answered a server error or
 * something unreadable, and `RATE_LIMITED` for a 429 — each keeping the HTTP client's `details.failure`. The
 * engine turns any of these into a note for a library whose docs it knows. Every request honours `context.signal`.
 */
export interface RegistryResolver {
  /** Stable id, equal to the plugin id (`'pypi'`, `'npm'`). */
  readonly id: string;
  /** The package ecosystem this registry serves (`'pypi'`, `'npm'`): the key of `LibraryDescriptor.packages`. */
  readonly ecosystem: string;
  /** Package metadata, or `null` when the registry has no such package. */
  lookup(name: string, context?: FetchContext): Promise<PackageMetadata | null>;
  /**
   * An exact version (`'2.10.1'`), a range as written (`'2.10.x'`, `'^1.2'`, `'>=2,<3'`, `'~=2.10'`) or latest
   * stable (`undefined`). Returns the newest release the spec allows, with the package's metadata.
   */
  resolveVersion(name: string, spec?: string, context?: FetchContext): Promise<ResolvedVersion>;
  /** Free-text search, when the registry offers it. */
  search?(query: string, context?: FetchContext): Promise<RegistrySearchHit[]>;
}

/** Plural contract: one resolver per ecosystem (the first bound wins when two serve the same one). */
export const registryResolverToken = createToken<RegistryResolver>('kernel.registryResolver', { multiple: true });

import {
  type CacheStore,
  type DocVersions,
  describeUpstreamFailure,
  type FetchContext,
  isProContextError,
  type LibraryDescriptor,
  type Logger,
  type PackageMetadata,
  ProContextError,
  type RegistryResolver,
  type SourceAdapter,
  upstreamFailureOf,
} from '@pro-context/kernel';
import semver from 'semver';
import { ns } from '../indexing/keys.js';

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
  /** How long a registry that could not be reached is not asked again, ms (default {@link REGISTRY_RETRY_AFTER_MS}). */
  registryRetryAfterMs?: number;
  context?: FetchContext;
  logger?: Logger;
}

/** The PEP 440 library, loaded on first use (most answers never evaluate a Python specifier). */
let pep440: Promise<typeof import('@renovatebot/pep440')> | undefined;
const loadPep440 = () => {
  // a CommonJS module: bundled (dist/bin), its exports are the namespace's `default`
  pep440 ??= import('@renovatebot/pep440').then(
    (m) => ((m as unknown as { default?: typeof m }).default ?? m) as typeof import('@renovatebot/pep440'),
  );
  return pep440;
};

/** How versions are compared and ranges evaluated: npm's semver or Python's PEP 440. */
export type VersionScheme = 'semver' | 'pep440';

/** Ecosystems whose versions follow PEP 440; every other one is compared as semver. */
const PEP440_ECOSYSTEMS = new Set(['pypi']);
/** Languages of libraries with no `packages` entry, mapped to the ecosystem of their registry. */
const LANGUAGE_ECOSYSTEMS: Record<string, string> = { python: 'pypi', javascript: 'npm', typescript: 'npm' };

/** The ecosystems a library's packages belong to: its `packages` keys, else its language's registry. */
function ecosystemsOf(library: LibraryDescriptor): string[] {
  const listed = Object.keys(library.packages ?? {});
  if (listed.length > 0) return listed;
  const byLanguage = library.language ? LANGUAGE_ECOSYSTEMS[library.language.toLowerCase()] : undefined;
  return byLanguage ? [byLanguage] : [];
}

/** The version scheme of a library: PEP 440 for a PyPI package (or a Python library), semver otherwise. */
export function versionSchemeOf(library: LibraryDescriptor): VersionScheme {
  return ecosystemsOf(library).some((e) => PEP440_ECOSYSTEMS.has(e)) ? 'pep440' : 'semver';
}

/**
 * The registry that knows this library, and the package name to ask it for: the first `packages` entry whose
 * ecosystem an installed registry serves, else (configs written before `packages`) the registry of the
 * library's language, asked for `packageName` or the name.
 */
export function registryOf(
  library: LibraryDescriptor,
  registries: readonly RegistryResolver[],
): { registry: RegistryResolver; name: string } | undefined {
  for (const [ecosystem, name] of Object.entries(library.packages ?? {})) {
    const registry = registries.find((r) => r.ecosystem === ecosystem);
    if (registry) return { registry, name };
  }
  if (library.packages && Object.keys(library.packages).length > 0) return undefined;
  const language = library.language?.toLowerCase();
  if (!language) return undefined;
  const registry = registries.find((r) => r.ecosystem === LANGUAGE_ECOSYSTEMS[language]);
  return registry ? { registry, name: library.packageName ?? library.name } : undefined;
}

const BARE_VERSION = /^v?\d+(\.\d+)*$/i;
const WILDCARD = /^v?(\d+(?:\.\d+)*)(?:\.[x*])+$/i;

/**
 * The newest of `versions` (newest first) a spec names, evaluated as the scheme does: an exact version;
 * a wildcard (`2.10.x`, `2.*`); a range (`^3.22`, `>=2,<3`, `~=2.10`). A bare number that is not itself a
 * version (`3`) names nothing here: callers ask for its series (`3.x`) explicitly. A range the scheme cannot
 * read is tried in the other scheme (`zod==3.25.0`, `pydantic^2`).
 */
export async function matchVersion(
  scheme: VersionScheme,
  spec: string,
  versions: readonly string[],
): Promise<string | undefined> {
  if (versions.includes(spec)) return spec;
  if (BARE_VERSION.test(spec)) return versions.find((v) => v === spec.replace(/^v/i, ''));
  const wildcard = WILDCARD.exec(spec)?.[1];
  const schemes: VersionScheme[] = scheme === 'pep440' ? ['pep440', 'semver'] : ['semver', 'pep440'];
  for (const s of schemes) {
    if (s === 'semver') {
      const range = semver.validRange(spec, { loose: true });
      if (!range) continue;
      return versions.find((v) => {
        const parsed = semver.valid(v, { loose: true }) ?? semver.coerce(v)?.version;
        return parsed !== undefined && parsed !== null && semver.satisfies(parsed, range, { loose: true });
      });
    }
    const specifier = wildcard ? `==${wildcard}.*` : spec;
    const pep = await loadPep440();
    if (!pep.validRange(specifier)) continue;
    return versions.find((v) => pep.valid(v) !== null && pep.satisfies(v, specifier));
  }
  return undefined;
}

/** A version list as cached: the registry's metadata and when it was read. */
interface CachedVersions {
  metadata: PackageMetadata;
  fetchedAt: number;
}

/** Answers of a registry about the package itself, not failures to ask it. */
const REGISTRY_ANSWERS = new Set(['LIBRARY_NOT_FOUND', 'VERSION_NOT_FOUND', 'INVALID_INPUT']);

/**
 * Whether an error means the registry could not be asked, of any kind: refused by policy (a DNS sinkhole answers
 * public hosts with an address the guard refuses), DNS, refused, reset, TLS, timeout, 5xx, 429, an unreadable
 * answer. Its last list, or the library's own versions, serve instead.
 */
const unreachable = (error: unknown) => isProContextError(error) && !REGISTRY_ANSWERS.has(error.code);

/** Why a registry could not be asked, in words. */
function reasonOf(error: unknown): string {
  const failure = describeUpstreamFailure(upstreamFailureOf(error));
  if (failure) return failure;
  if (isProContextError(error) && error.code === 'REGISTRY_TIMEOUT') return 'it did not answer in time';
  return 'it could not be asked';
}

/** A spec with no digit at all (`banana`) is no version or range; `latest`, `stable`, `*`, `x` are. */
function looksLikeVersion(spec: string): boolean {
  return /\d/.test(spec) || /^(latest|stable|[x*])$/i.test(spec);
}

/** `INVALID_INPUT` for a spec that is not a version (`-V banana`). */
function notAVersion(library: LibraryDescriptor, spec: string, known: readonly string[]): ProContextError {
  return new ProContextError('INVALID_INPUT', `'${spec}' is not a version of ${library.name}.`, {
    suggestion: `Give a version (${known[0] ?? '2.10.1'}), a range (^2, >=2,<3, 2.x) or 'latest'${known.length > 0 ? `; known versions: ${known.slice(0, 10).join(', ')}` : ''}.`,
    details: { argument: 'version', requested: spec, availableVersions: known.slice(0, 10) },
  });
}

/** How long a registry that could not be reached is not asked again (the curated data and caches answer). */
export const REGISTRY_RETRY_AFTER_MS = 60_000;
/** Registries that could not be reached, with the error and when. */
const unreachableRegistries = new WeakMap<RegistryResolver, { at: number; error: unknown }>();

/**
 * Asks the registry unless it could not be reached within the last {@link REGISTRY_RETRY_AFTER_MS}: then its
 * last error is thrown at once, so a firewall that drops packets costs one registry deadline a minute, not
 * one per call.
 */
async function askRegistry<T>(registry: RegistryResolver, ask: () => Promise<T>, retryAfterMs: number): Promise<T> {
  const down = unreachableRegistries.get(registry);
  if (down && Date.now() - down.at < retryAfterMs) throw down.error;
  try {
    const answer = await ask();
    unreachableRegistries.delete(registry);
    return answer;
  } catch (error) {
    if (unreachable(error)) unreachableRegistries.set(registry, { at: Date.now(), error });
    throw error;
  }
}

/**
 * The version a spec names in a registry's metadata, evaluated here (a cached list): latest stable without
 * a spec, else {@link matchVersion} over the stable releases, then over every release.
 */
async function fromMetadata(
  metadata: PackageMetadata,
  spec: string | undefined,
  scheme: VersionScheme,
  registry: RegistryResolver,
  name: string,
): Promise<string> {
  const stable = metadata.versions.filter((v) => !v.prerelease && !v.yanked).map((v) => v.version);
  if (!spec || spec === 'latest' || spec === 'stable') {
    const latest = metadata.latestStable ?? stable[0];
    if (latest) return latest;
  } else {
    const found =
      (await matchVersion(scheme, spec, stable)) ??
      (await matchVersion(
        scheme,
        spec,
        metadata.versions.map((v) => v.version),
      ));
    if (found) return found;
  }
  throw new ProContextError('VERSION_NOT_FOUND', `${name} has no version matching '${spec}' in ${registry.id}.`, {
    suggestion: `Available versions: ${stable.slice(0, 10).join(', ')}`,
    details: { requested: spec, availableVersions: stable.slice(0, 10) },
  });
}

/**
 * Asks the registry (the spec as written), caching the version list it returns; a list cached within the
 * TTL answers without asking, and an unreachable registry is answered from the last list (marked stale).
 */
async function resolveInRegistry(
  registry: RegistryResolver,
  name: string,
  spec: string | undefined,
  scheme: VersionScheme,
  sources: VersionSources,
): Promise<{ version: string; metadata: PackageMetadata; stale: boolean; reason?: string }> {
  const key = `${registry.id}:${name.toLowerCase()}`;
  const cached = await sources.cache
    ?.get<CachedVersions>(ns.versions, key, { allowStale: true })
    .catch(() => undefined);
  const ttl = sources.versionsTtlMs ?? 3_600_000;
  if (cached && Date.now() - cached.value.fetchedAt < ttl) {
    const version = await fromMetadata(cached.value.metadata, spec, scheme, registry, name);
    return { version, ...cached.value, stale: false };
  }
  try {
    const resolved = await askRegistry(
      registry,
      () => registry.resolveVersion(name, spec, sources.context),
      sources.registryRetryAfterMs ?? REGISTRY_RETRY_AFTER_MS,
    );
    const entry: CachedVersions = { metadata: resolved.metadata, fetchedAt: Date.now() };
    // kept without expiry: an expired list is still the fallback when the registry is down
    await sources.cache?.set(ns.versions, key, entry, { ttlMs: 0 }).catch((error: unknown) => {
      sources.logger?.warn('could not cache a version list', { registry: registry.id, name, error });
    });
    return { version: resolved.version, metadata: resolved.metadata, stale: false };
  } catch (error) {
    if (!cached || !unreachable(error) || sources.context?.signal?.aborted) throw error;
    sources.logger?.debug('registry unreachable: serving its last version list', { registry: registry.id, name });
    let version: string;
    try {
      version = await fromMetadata(cached.value.metadata, spec, scheme, registry, name);
    } catch (notFound) {
      throw unrefreshed(notFound, registry.id, reasonOf(error));
    }
    return { version, ...cached.value, stale: true, reason: reasonOf(error) };
  }
}

/**
 * The released version a spec names (seed 001 §9.1): exact, range (`0.3.x`, `^3.22`, `>=2,<3`), or latest
 * stable when omitted. Precedence: the package registry of the library's ecosystem when one is installed
 * (the spec handed to it as written; its version list cached, and reused when it cannot be reached); the
 * library's configured `versions` only when no installed registry knows the package. A version that does
 * not exist is `VERSION_NOT_FOUND` listing what does. Whether documentation exists for it is
 * {@link resolveLibraryVersion}'s question.
 */
export async function resolveReleasedVersion(
  library: LibraryDescriptor,
  spec: string | undefined,
  sources: VersionSources,
): Promise<VersionInfo> {
  const requested = spec?.trim() || undefined;
  const scheme = versionSchemeOf(library);
  const found = registryOf(library, sources.registries);
  let unreachableError: unknown;
  let unreachableId: string | undefined;
  if (found) {
    const { registry, name } = found;
    try {
      const resolved = await resolveInRegistry(registry, name, requested, scheme, sources);
      const stable = resolved.metadata.versions.filter((v) => !v.prerelease && !v.yanked).map((v) => v.version);
      return {
        version: resolved.version,
        ...(requested ? { requested } : {}),
        available: stable.slice(0, 10),
        latest: resolved.metadata.latestStable ?? stable[0] ?? resolved.version,
        from: registry.id,
        ...(resolved.stale
          ? {
              stale: true,
              unreachable: registry.id,
              ...(resolved.reason ? { unreachableReason: resolved.reason } : {}),
            }
          : {}),
      };
    } catch (error) {
      if (requested && !looksLikeVersion(requested) && isProContextError(error) && error.code === 'VERSION_NOT_FOUND') {
        const known = (error.details?.availableVersions as string[] | undefined) ?? [];
        throw notAVersion(library, requested, known);
      }
      // offline, behind a firewall or a DNS sinkhole, with no list cached: the library's own versions serve the
      // latest (with a note); a version asked for that they cannot name is VERSION_NOT_FOUND saying why (below)
      if (unreachable(error) && !sources.context?.signal?.aborted) {
        sources.logger?.debug('registry unreachable and no version list cached: serving the configured versions', {
          registry: registry.id,
          name,
        });
        unreachableError = error;
        unreachableId = registry.id;
      }
      // a hand-configured library the registry does not know is served from its configuration
      else if (!(isProContextError(error) && error.code === 'LIBRARY_NOT_FOUND')) throw error;
    }
  }
  // no registry and no configured versions: the versions the sources list (a repository's tags), latest = the head
  const listed = library.versions?.length || unreachableId ? [] : await listedVersionsOf(library, sources);
  // the version installed in the project exists, whatever a registry that cannot be asked would say
  const installed = unreachableId && library.installedVersion ? [library.installedVersion] : [];
  const configured = library.versions?.length
    ? library.versions
    : listed.length > 0
      ? listed
      : [library.defaultVersion ?? 'latest'];
  const available = [...new Set([...configured, ...installed])];
  const latest = library.defaultVersion ?? (listed.length > 0 ? 'latest' : available[0]) ?? 'latest';
  const result = (version: string): VersionInfo => ({
    version,
    ...(requested ? { requested } : {}),
    available: available.slice(0, 10),
    latest,
    from: 'config',
    ...(unreachableId
      ? { stale: true, unreachable: unreachableId, unreachableReason: reasonOf(unreachableError) }
      : {}),
  });
  if (!requested || requested === 'latest' || requested === 'stable') return result(latest);
  const match = await matchVersion(scheme, requested, available);
  if (match) return result(match);
  const known = available.filter((v) => v !== 'latest');
  if (!looksLikeVersion(requested)) throw notAVersion(library, requested, known);
  if (unreachableId) {
    throw unrefreshed(
      new ProContextError('VERSION_NOT_FOUND', `${library.name} has no known version '${requested}'.`, {
        details: { requested, availableVersions: known.slice(0, 10) },
      }),
      unreachableId,
      reasonOf(unreachableError),
    );
  }
  // with no list of versions to check against, docs that serve any version are asked for the version as written
  if (
    !library.versions?.length &&
    /^v?\d+(\.\d+)*([a-z0-9.-]*)?$/i.test(requested) &&
    (await docVersionsOf(library, sources)).some((d) => d.kind === 'any')
  ) {
    return result(requested);
  }
  throw new ProContextError('VERSION_NOT_FOUND', `${library.name} has no version '${requested}'.`, {
    suggestion: `Available versions: ${available.slice(0, 10).join(', ')}`,
    details: { requested, availableVersions: available.slice(0, 10) },
  });
}

/**
 * A `VERSION_NOT_FOUND` from a version list that could not be refreshed: it lists the versions known and says
 * the list is not the registry's current one (the version may exist).
 */
function unrefreshed(error: unknown, registry: string, reason: string): unknown {
  if (!isProContextError(error) || error.code !== 'VERSION_NOT_FOUND') return error;
  const known = (error.details?.availableVersions as string[] | undefined) ?? [];
  const requested = String(error.details?.requested ?? '');
  return new ProContextError(
    'VERSION_NOT_FOUND',
    `${error.message.replace(/\.$/, '')}: the ${registry} registry could not be asked (${reason}), so the list of versions could not be refreshed.`,
    {
      suggestion: `${known.length > 0 ? `Known versions: ${known.join(', ')}. ` : ''}Ask again without a version for the current documentation, or once the ${registry} registry can be reached${requested ? ` to check '${requested}'` : ''}.`,
      details: { ...error.details, availableVersions: known, unrefreshed: true, unreachable: registry },
      cause: error,
    },
  );
}

/** The versions the adapters list (`kind: 'list'`, such as a repository's tags), each once, in their order. */
async function listedVersionsOf(library: LibraryDescriptor, sources: VersionSources): Promise<string[]> {
  const said = await docVersionsOf(library, sources);
  return [...new Set(said.flatMap((d) => (d.kind === 'list' ? d.versions : [])))];
}

/** What each adapter able to serve the library says about its documented versions (default: latest only). */
async function docVersionsOf(library: LibraryDescriptor, sources: VersionSources): Promise<DocVersions[]> {
  return Promise.all(
    (sources.adapters ?? []).map(
      (a): Promise<DocVersions> =>
        a.docVersions ? a.docVersions(library, sources.context) : Promise.resolve({ kind: 'latest' }),
    ),
  );
}

/**
 * The ids of the adapters that document `info.version`: every adapter for the latest stable (whose docs any
 * source describes), else those whose `docVersions` is `any` or lists it.
 */
export async function documentingAdapters(
  library: LibraryDescriptor,
  info: VersionInfo,
  sources: VersionSources,
): Promise<string[]> {
  const adapters = sources.adapters ?? [];
  if (info.version === info.latest) return adapters.map((a) => a.id);
  const said = await docVersionsOf(library, sources);
  return adapters
    .filter((_, i) => {
      const d = said[i];
      return d?.kind === 'any' || (d?.kind === 'list' && d.versions.includes(info.version));
    })
    .map((a) => a.id);
}

/**
 * Resolves the version to serve: {@link resolveReleasedVersion}, and then a source must have documentation
 * for it (each adapter says which versions it serves). Documentation that describes the latest stable release
 * only makes another release `VERSION_NOT_FOUND` saying which version the available docs are (seed 001 §9.1
 * rule 4, US-6): the docs of one version are never labelled as another's.
 */
export async function resolveLibraryVersion(
  library: LibraryDescriptor,
  spec: string | undefined,
  sources: VersionSources,
): Promise<VersionInfo> {
  const info = await resolveReleasedVersion(library, spec, sources);
  const documentedBy = await documentingAdapters(library, info, sources);
  if (info.version === info.latest || documentedBy.length > 0) return { ...info, documentedBy };
  throw new ProContextError(
    'VERSION_NOT_FOUND',
    `${library.name} ${info.version} was released, but its documentation is not available: ${library.name}'s documentation URL is not version-specific, and the documentation there describes the latest stable version, ${info.latest}.`,
    {
      suggestion: `Call again with version '${info.latest}' (or without a version) to read the ${info.latest} documentation, which may not match ${info.version}; or configure a sources.llmsTxt.versionedDocsUrl containing {version} for ${library.id}.`,
      details: {
        requested: info.requested ?? info.version,
        resolved: info.version,
        documentedVersion: info.latest,
        availableVersions: [info.latest],
        releasedVersions: info.available,
      },
    },
  );
}

import { type DocVersions, isProContextError, type LibraryDescriptor, type ProContextError } from '@pro-context/kernel';
import { engineMessages } from '../tools/render-errors.js';
import { matchVersion, registryOf, type VersionScheme, versionSchemeOf } from './match.js';
import { reasonOf, resolveInRegistry, unreachable, unrefreshed } from './registry-versions.js';
import type { VersionInfo, VersionSources } from './types.js';

export type { VersionScheme } from './match.js';
export { matchVersion, registryOf, versionSchemeOf } from './match.js';
export { REGISTRY_RETRY_AFTER_MS } from './registry-versions.js';
export type { VersionInfo, VersionSources } from './types.js';

/** A spec with no digit at all (`banana`) is no version or range; `latest`, `stable`, `*`, `x` are. */
function looksLikeVersion(spec: string): boolean {
  return /\d/.test(spec) || /^(latest|stable|[x*])$/i.test(spec);
}

/** `INVALID_INPUT` for a spec that is not a version (`-V banana`). */
function notAVersion(library: LibraryDescriptor, spec: string, known: readonly string[]): ProContextError {
  const values = {
    spec,
    name: library.name,
    example: known[0] ?? '2.10.1',
    known: known.length > 0 ? `; known versions: ${known.slice(0, 10).join(', ')}` : '',
  };
  return engineMessages.create('NOT_A_VERSION', values, {
    details: { argument: 'version', requested: spec, availableVersions: known.slice(0, 10) },
  });
}

/** A registry's answer, or why it could not be asked (the library's own versions serve then). */
type RegistryOutcome = { info: VersionInfo } | { unreachableId?: string; unreachableError?: unknown };

/**
 * The released version as the package registry of the library's ecosystem knows it (the spec handed to it as
 * written); `{}` when no registry is installed for it or it does not know a hand-configured library, the
 * registry and its error when it could not be asked.
 */
async function fromRegistry(
  library: LibraryDescriptor,
  requested: string | undefined,
  scheme: VersionScheme,
  sources: VersionSources,
): Promise<RegistryOutcome> {
  const found = registryOf(library, sources.registries);
  if (!found) return {};
  const { registry, name } = found;
  try {
    const resolved = await resolveInRegistry(registry, name, requested, scheme, sources);
    const stable = resolved.metadata.versions.filter((v) => !v.prerelease && !v.yanked).map((v) => v.version);
    const info: VersionInfo = {
      version: resolved.version,
      ...(requested ? { requested } : {}),
      available: stable.slice(0, 10),
      latest: resolved.metadata.latestStable ?? stable[0] ?? resolved.version,
      from: registry.id,
      ...(resolved.stale
        ? { stale: true, unreachable: registry.id, ...(resolved.reason ? { unreachableReason: resolved.reason } : {}) }
        : {}),
    };
    return { info };
  } catch (error) {
    if (requested && !looksLikeVersion(requested) && isProContextError(error) && error.code === 'VERSION_NOT_FOUND') {
      const known = (error.details?.availableVersions as string[] | undefined) ?? [];
      throw notAVersion(library, requested, known);
    }
    // offline, behind a firewall or a DNS sinkhole, with no list cached: the library's own versions serve the
    // latest (with a note); a version asked for that they cannot name is VERSION_NOT_FOUND saying why
    if (unreachable(error) && !sources.context?.signal?.aborted) {
      sources.logger?.debug('registry unreachable and no version list cached: serving the configured versions', {
        registry: registry.id,
        name,
      });
      return { unreachableError: error, unreachableId: registry.id };
    }
    // a hand-configured library the registry does not know is served from its configuration
    if (!(isProContextError(error) && error.code === 'LIBRARY_NOT_FOUND')) throw error;
    return {};
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
  const outcome = await fromRegistry(library, requested, scheme, sources);
  if ('info' in outcome) return outcome.info;
  return fromConfig(library, requested, scheme, sources, outcome);
}

/** The released version as the library's own versions (configured, or listed by its sources) name it. */
async function fromConfig(
  library: LibraryDescriptor,
  requested: string | undefined,
  scheme: VersionScheme,
  sources: VersionSources,
  { unreachableId, unreachableError }: { unreachableId?: string; unreachableError?: unknown },
): Promise<VersionInfo> {
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
      engineMessages.create(
        'NO_KNOWN_VERSION',
        { library: library.name, requested },
        { details: { requested, availableVersions: known.slice(0, 10) } },
      ),
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
  throw engineMessages.create(
    'NO_VERSION',
    { library: library.name, requested, versions: available.slice(0, 10).join(', ') },
    { details: { requested, availableVersions: available.slice(0, 10) } },
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
  const values = {
    name: library.name,
    version: info.version,
    latest: info.latest,
    libraryId: library.id,
    placeholder: '{version}',
  };
  throw engineMessages.create('UNDOCUMENTED_VERSION', values, {
    details: {
      requested: info.requested ?? info.version,
      resolved: info.version,
      documentedVersion: info.latest,
      availableVersions: [info.latest],
      releasedVersions: info.available,
    },
  });
}

import { isProContextError, type LibraryDescriptor, ProContextError, type RegistryResolver } from '@pro-context/kernel';

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
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether `version` matches a `2.10.x` / `2.*` / `2` style spec. */
function matchesWildcard(spec: string, version: string): boolean {
  const parts = spec.replace(/(\.(x|\*))+$/i, '').split('.');
  return new RegExp(`^${parts.map(escapeRegExp).join('\\.')}(\\.|$)`).test(version);
}

/** Whether the library's documentation URL names a version (`{version}` in it), so each version has its own docs. */
export function hasVersionedDocs(library: LibraryDescriptor): boolean {
  return [library.versionedDocsUrl, library.llmsTxtUrl, library.llmsFullTxtUrl].some((u) => u?.includes('{version}'));
}

/**
 * The released version a spec names (seed 001 §9.1): exact, range (`0.3.x`), or latest stable when omitted —
 * through the package registry of the library's language when one is installed, else from the library's
 * configured versions. A version that does not exist is `VERSION_NOT_FOUND` listing what does. Whether
 * documentation exists for it is {@link resolveLibraryVersion}'s question.
 */
export async function resolveReleasedVersion(
  library: LibraryDescriptor,
  spec: string | undefined,
  registries: readonly RegistryResolver[],
): Promise<VersionInfo> {
  const requested = spec?.trim() || undefined;
  const registry = registries.find((r) => r.ecosystem === library.language);
  if (registry && !library.versions) {
    try {
      const resolved = await registry.resolveVersion(library.packageName ?? library.name, requested);
      const stable = resolved.metadata.versions.filter((v) => !v.prerelease && !v.yanked).map((v) => v.version);
      return {
        version: resolved.version,
        ...(requested ? { requested } : {}),
        available: stable.slice(0, 10),
        latest: resolved.metadata.latestStable ?? stable[0] ?? resolved.version,
        from: registry.id,
      };
    } catch (error) {
      // a hand-configured library the registry does not know is served from its configuration
      if (!(isProContextError(error) && error.code === 'LIBRARY_NOT_FOUND')) throw error;
    }
  }
  const available = library.versions?.length ? library.versions : [library.defaultVersion ?? 'latest'];
  const latest = library.defaultVersion ?? available[0] ?? 'latest';
  const result = (version: string): VersionInfo => ({
    version,
    ...(requested ? { requested } : {}),
    available: available.slice(0, 10),
    latest,
    from: 'config',
  });
  if (!requested || requested === 'latest' || requested === 'stable') return result(latest);
  if (available.includes(requested)) return result(requested);
  const wildcard = available.find((v) => matchesWildcard(requested, v));
  if (/^[\w.-]+$/.test(requested) && /(\.(x|\*))+$/i.test(requested) && wildcard) return result(wildcard);
  // with no list of versions to check against, versioned docs are asked for the version as written
  if (!library.versions?.length && hasVersionedDocs(library) && /^v?\d+(\.\d+)*([a-z0-9.-]*)?$/i.test(requested)) {
    return result(requested);
  }
  throw new ProContextError('VERSION_NOT_FOUND', `${library.name} has no version '${requested}'.`, {
    suggestion: `Available versions: ${available.slice(0, 10).join(', ')}`,
    details: { requested, availableVersions: available.slice(0, 10) },
  });
}

/**
 * Resolves the version to serve: {@link resolveReleasedVersion}, and then documentation for it must exist.
 * Documentation at a URL that names no version describes the latest stable release only, so another
 * release is `VERSION_NOT_FOUND` saying which version the available docs are (seed 001 §9.1 rule 4, US-6):
 * the docs of one version are never labelled as another's.
 */
export async function resolveLibraryVersion(
  library: LibraryDescriptor,
  spec: string | undefined,
  registries: readonly RegistryResolver[],
): Promise<VersionInfo> {
  const info = await resolveReleasedVersion(library, spec, registries);
  if (info.version === info.latest || hasVersionedDocs(library)) return info;
  throw new ProContextError(
    'VERSION_NOT_FOUND',
    `${library.name} ${info.version} was released, but its documentation is not available: ${library.name}'s documentation URL is not version-specific, and the documentation there describes the latest stable version, ${info.latest}.`,
    {
      suggestion: `Call again with version '${info.latest}' (or without a version) to read the ${info.latest} documentation, which may not match ${info.version}; or configure a versionedDocsUrl containing {version} for ${library.id}.`,
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

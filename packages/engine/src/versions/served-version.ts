import { type FetchContext, isProContextError, type LibraryDescriptor } from '@pro-context/kernel';
import type { EngineParts } from '../engine-parts.js';
import type { ServedVersion } from './types.js';
import { resolveLibraryVersion, type VersionSources } from './versions.js';

export type { ServedVersion } from './types.js';

/** The registries, the library's adapters and the version-list cache, for {@link resolveLibraryVersion}. */
export function versionSources(
  parts: Pick<EngineParts, 'deps' | 'sources'>,
  library: LibraryDescriptor,
  context?: FetchContext,
): VersionSources {
  const { deps } = parts;
  return {
    registries: deps.registries,
    adapters: parts.sources.for(library),
    cache: deps.cache,
    versionsTtlMs: deps.options.versionsTtlSeconds * 1000,
    logger: deps.logger,
    ...(context ? { context } : {}),
  };
}

/**
 * The version to serve (`VERSION_NOT_FOUND` lists what exists), without side effects: no version asked means
 * the one installed in the project, when it has documentation, else the latest stable.
 */
export async function servedVersion(
  parts: Pick<EngineParts, 'deps' | 'sources'>,
  library: LibraryDescriptor,
  spec?: string,
  context?: FetchContext,
): Promise<ServedVersion> {
  if (!spec?.trim() && library.installedVersion) {
    try {
      const { requested: _requested, ...info } = await servedVersion(parts, library, library.installedVersion, context);
      return { ...info, installed: true };
    } catch (error) {
      if (!isProContextError(error) || error.code !== 'VERSION_NOT_FOUND') throw error;
      parts.deps.logger.debug(
        `${library.id} ${library.installedVersion} (installed) has no documentation: serving latest`,
      );
      const { installedVersion: _installed, ...unpinned } = library;
      const latest = await servedVersion(parts, unpinned, spec, context);
      return { ...latest, installedUndocumented: library.installedVersion };
    }
  }
  const info = await resolveLibraryVersion(library, spec, versionSources(parts, library, context));
  // only the adapters that document this version are asked for its docs (the others would serve another's)
  const all = parts.sources.for(library);
  const documenting = info.documentedBy && info.documentedBy.length < all.length ? info.documentedBy : undefined;
  return documenting ? { ...info, documenting } : info;
}

import { type FetchContext, isProContextError, type LibraryDescriptor } from '@pro-context/kernel';
import type { EngineParts } from '../engine-parts.js';
import { type ServedVersion, servedVersion, versionSources } from '../versions/served-version.js';
import { resolveReleasedVersion, type VersionInfo } from '../versions/versions.js';

/**
 * The version a hint in a resolve-library query names, when it was released and has documentation of its
 * own; otherwise `undefined`, with a note saying why the latest stable is shown instead.
 */
export async function hintedVersion(
  parts: EngineParts,
  library: LibraryDescriptor,
  hint: string,
  latest: ServedVersion,
  notes: string[],
  context?: FetchContext,
): Promise<ServedVersion | undefined> {
  // a range as written ("zod@^3.22", "pydantic>=2"); a bare version exactly, else the newest of its
  // series ("pydantic v2" → 2.x, "typer 0.15" → 0.15.x)
  const bare = /^v?\d+(\.\d+)*$/i.test(hint);
  let released: VersionInfo | undefined;
  for (const spec of bare ? [hint, `${hint}.x`] : [hint]) {
    try {
      released = await resolveReleasedVersion(library, spec, versionSources(parts, library, context));
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
  // the latest stable: its documenting adapters are those found for it
  if (released.version === latest.version)
    return latest.documenting ? { ...released, documenting: latest.documenting } : released;
  try {
    return await servedVersion(parts, library, released.version, context);
  } catch (error) {
    if (!isProContextError(error) || error.code !== 'VERSION_NOT_FOUND') throw error;
    notes.push(
      `${library.name} ${released.version} exists, but only the documentation of the latest stable version, ${latest.version}, is available (its documentation URL is not version-specific); this TOC is ${latest.version}'s.`,
    );
    return undefined;
  }
}

import { type FetchContext, isProContextError, type LibraryDescriptor } from '@pro-context/kernel';
import type { EngineParts } from '../engine-parts.js';
import { type ServedVersion, servedVersion, versionSources } from '../versions/served-version.js';
import { resolveReleasedVersion, type VersionInfo } from '../versions/versions.js';
import type { ResolveNote } from './notes.js';

/**
 * The version a hint in a resolve-library query names, when it was released and has documentation of its
 * own; otherwise `undefined`, with a note saying why the latest stable is shown instead.
 */
export async function hintedVersion(
  parts: EngineParts,
  library: LibraryDescriptor,
  hint: string,
  latest: ServedVersion,
  notes: ResolveNote[],
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
        notes.push({
          kind: 'hint-unchecked',
          library: library.name,
          registry: String(error.details.unreachable),
          hint,
          version: latest.version,
        });
        return undefined;
      }
    }
  }
  if (!released) {
    const known = latest.available.filter((v) => v !== 'latest');
    // "zod==2.5" asked for version 2.5
    const shown = hint.replace(/^={1,3}\s*/, '');
    notes.push({ kind: 'no-such-version', library: library.name, hint: shown, known, version: latest.version });
    return undefined;
  }
  // the latest stable: its documenting adapters are those found for it
  if (released.version === latest.version)
    return latest.documenting ? { ...released, documenting: latest.documenting } : released;
  try {
    return await servedVersion(parts, library, released.version, context);
  } catch (error) {
    if (!isProContextError(error) || error.code !== 'VERSION_NOT_FOUND') throw error;
    notes.push({
      kind: 'version-undocumented',
      library: library.name,
      released: released.version,
      latest: latest.version,
    });
    return undefined;
  }
}

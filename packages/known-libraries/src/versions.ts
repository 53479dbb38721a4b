import type { KnownLibrary, VersionFormat } from './schema.js';

const VERSION = '{version}';

/**
 * A release version written the way a docs site names it: `exact` keeps it, `major.minor` → `2.10`,
 * `major` → `2`, `majorminor` → `20`. Missing parts count as `0` (`2` as `major.minor` is `2.0`); a leading
 * `v` and anything after the numeric core (`-beta.1`, `rc1`, `.post1`) are dropped for every format but `exact`.
 */
export function formatVersion(version: string, format: VersionFormat): string {
  if (format === 'exact') return version;
  const core = /^v?(\d+)(?:\.(\d+))?/.exec(version.trim());
  if (!core) return version;
  const major = core[1] ?? '0';
  const minor = core[2] ?? '0';
  switch (format) {
    case 'major':
      return major;
    case 'major.minor':
      return `${major}.${minor}`;
    case 'majorminor':
      return `${major}${minor}`;
  }
}

/**
 * The docs URL of `version` for a library with versioned docs (`{version}` filled in as its format says), or
 * `undefined` when the library keeps no per-version docs.
 */
export function versionedDocsUrlFor(library: KnownLibrary, version: string): string | undefined {
  const versioned = library.versionedDocs;
  if (!versioned) return undefined;
  return versioned.url.split(VERSION).join(encodeURIComponent(formatVersion(version, versioned.version)));
}

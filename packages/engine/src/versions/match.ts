import type { LibraryDescriptor, RegistryResolver } from '@pro-context/kernel';
import semver from 'semver';

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

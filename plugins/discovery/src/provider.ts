import type {
  CacheStore,
  FetchContext,
  HttpClient,
  LibraryDescriptor,
  LibraryLookupHints,
  LibraryProvider,
  Logger,
  PackageMetadata,
  RegistryResolver,
} from '@pro-context/kernel';
import type { DiscoveryPluginOptions } from './options.js';
import { type LlmsFileKind, type ProbeOutcome, probe, probeCandidates, siteBase } from './probe.js';

/** The cache namespace of discoveries (one entry per ecosystem and package name). */
export const DISCOVERY_NAMESPACE = 'discovery';

/** At most this many earlier discoveries are listed after a restart. */
const MAX_RESTORED = 1000;

/** What was discovered about one package of one registry: what a descriptor is built from. */
export interface DiscoveredPackage {
  /** The registry's ecosystem (`pypi`, `npm`). */
  ecosystem: string;
  /** The package name as the registry spells it. */
  name: string;
  summary?: string;
  homepage?: string;
  repository?: string;
  documentationUrl?: string;
  /** The llms.txt or llms-full.txt found, if any. */
  found?: { kind: LlmsFileKind; url: string; base: string };
  /** Every URL probed, in order, and what it answered. */
  tried: { url: string; reason: string }[];
  /** ISO date-time of the discovery. */
  discoveredAt: string;
}

/** A cache entry: the package, or `null` when the registry has no such name. */
interface CachedDiscovery {
  package: DiscoveredPackage | null;
}

/** The ecosystem of a language (resolve-library's `language` filter). */
const ECOSYSTEM_OF_LANGUAGE: Record<string, string> = {
  python: 'pypi',
  javascript: 'npm',
  typescript: 'npm',
};

/** The language a library found in an ecosystem is in. */
const LANGUAGE_OF_ECOSYSTEM: Record<string, string> = { pypi: 'python', npm: 'javascript' };

/** A package name as its registry compares names: PEP 503 for PyPI, lower case elsewhere. */
export function normalizePackageName(ecosystem: string, name: string): string {
  const lower = name.trim().toLowerCase();
  return ecosystem === 'pypi' ? lower.replace(/[-_.]+/g, '-') : lower;
}

/**
 * The library id of a package: its normalized name, with a scoped npm name's `@` dropped (an id is
 * alphanumerics and `-_./`): `Flask_SQLAlchemy` → `flask-sqlalchemy`, `@tanstack/react-query` →
 * `tanstack/react-query`.
 */
export function libraryIdOf(ecosystem: string, name: string): string {
  return normalizePackageName(ecosystem, name).replace(/^@/, '');
}

/** The name to ask a registry for: an npm id of a scoped package (`scope/name`) is asked as `@scope/name`. */
function registryName(ecosystem: string, name: string): string {
  const trimmed = name.trim();
  return ecosystem === 'npm' && /^[a-z0-9][\w.-]*\/[\w.-]+$/i.test(trimmed) ? `@${trimmed}` : trimmed;
}

/** Names no registry has: empty, spaces, or longer than npm's 214 characters. */
const plausibleName = (name: string) => /^@?[\w.-]+(\/[\w.-]+)?$/.test(name.trim()) && name.trim().length <= 214;

/** The collaborators of {@link DiscoveryLibraryProvider}. */
export interface DiscoveryDeps {
  options: DiscoveryPluginOptions;
  registries: readonly RegistryResolver[];
  http: HttpClient;
  cache: CacheStore;
  logger: Logger;
}

/**
 * Docs discovery (issue #8, deliverable 2), a {@link LibraryProvider} of priority 200: a name no other
 * provider lists is looked up in the installed package registries; the package's documentation URL and
 * homepage are probed, in order, for `{docs}/llms.txt`, `{docs}/llms-full.txt` and `{homepage}/llms.txt`,
 * and the package becomes a library whose `sources.llmsTxt` points at what was found. With nothing found it
 * is still a library (resolve-library answers it with an empty TOC), whose `docsNote` names what was tried.
 *
 * Registries: with a `language` hint, only that language's registry is asked; without one, every installed
 * registry is asked at once and the package with documentation found wins, else the first registry's (in
 * installation order). What was discovered is cached (namespace `discovery`) for `ttlHours`, so the next
 * lookup, in this process or the next, makes no request; a registry that cannot be reached is skipped (a
 * stale entry answers meanwhile).
 */
export class DiscoveryLibraryProvider implements LibraryProvider {
  readonly id = 'discovery';
  readonly priority = 200;
  private readonly logger: Logger;
  /** Discoveries under way, by cache key, so concurrent lookups of one name share their requests. */
  private readonly pending = new Map<string, Promise<DiscoveredPackage | null>>();

  constructor(private readonly deps: DiscoveryDeps) {
    this.logger = deps.logger.child({ plugin: 'discovery' });
  }

  /** Packages discovered by earlier processes (read from the cache after start), so list-libraries shows them. */
  private restored: readonly LibraryDescriptor[] = [];

  libraries(): readonly LibraryDescriptor[] {
    return this.restored;
  }

  /**
   * Reads the packages earlier processes discovered from the cache, after start (readiness never waits on
   * it), and hands them to the engine: a package discovered yesterday is listed by list-libraries today
   * without being looked up again. Names a registry did not know are not listed.
   */
  watch(onChange: () => void): () => void {
    let stopped = false;
    this.restore()
      .then((restored) => {
        if (stopped || restored.length === 0) return;
        this.restored = restored;
        onChange();
      })
      .catch((error: unknown) => this.logger.warn('could not read earlier discoveries from the cache', { error }));
    return () => {
      stopped = true;
    };
  }

  private async restore(): Promise<LibraryDescriptor[]> {
    const keys = (await this.deps.cache.keys(DISCOVERY_NAMESPACE)).sort().slice(0, MAX_RESTORED);
    const byId = new Map<string, DiscoveredPackage>();
    for (const key of keys) {
      const entry = await this.deps.cache.get<CachedDiscovery>(DISCOVERY_NAMESPACE, key, { allowStale: true });
      const pkg = entry?.value.package;
      if (!pkg) continue;
      const id = libraryIdOf(pkg.ecosystem, pkg.name);
      // one id on two registries: the one whose docs were found, as lookup chooses
      const known = byId.get(id);
      if (!known || (!known.found && pkg.found)) byId.set(id, pkg);
    }
    return [...byId.values()].map((pkg) => descriptorOf(pkg));
  }

  async lookup(name: string, context?: FetchContext, hints?: LibraryLookupHints): Promise<LibraryDescriptor | null> {
    if (!plausibleName(name)) return null;
    const registries = this.registriesFor(hints?.language);
    if (registries.length === 0) return null;
    const settled = await Promise.allSettled(registries.map((r) => this.discover(r, name, context)));
    context?.signal?.throwIfAborted();
    const packages: DiscoveredPackage[] = [];
    const failures: unknown[] = [];
    for (const [i, result] of settled.entries()) {
      if (result.status === 'fulfilled') {
        if (result.value) packages.push(result.value);
      } else {
        failures.push(result.reason);
        this.logger.warn(`registry '${registries[i]?.id}' could not be asked for '${name}'`, { error: result.reason });
      }
    }
    const chosen = packages.find((p) => p.found) ?? packages[0];
    if (!chosen) {
      // every registry failed: the engine logs it and answers LIBRARY_NOT_FOUND
      if (failures.length === registries.length) throw failures[0];
      return null;
    }
    return descriptorOf(chosen, hints?.language);
  }

  /** The registries to ask, one per ecosystem (the first bound wins); only the hinted language's, if any. */
  private registriesFor(language: string | undefined): RegistryResolver[] {
    const wanted = language ? ECOSYSTEM_OF_LANGUAGE[language.toLowerCase()] : undefined;
    if (language && !wanted) return [];
    const seen = new Set<string>();
    return this.deps.registries.filter(
      (r) => (!wanted || r.ecosystem === wanted) && !seen.has(r.ecosystem) && Boolean(seen.add(r.ecosystem)),
    );
  }

  /** What one registry and the probes say about a name: from the cache while it is fresh. */
  private async discover(
    registry: RegistryResolver,
    name: string,
    context?: FetchContext,
  ): Promise<DiscoveredPackage | null> {
    const asked = registryName(registry.ecosystem, name);
    const key = `${registry.ecosystem}:${normalizePackageName(registry.ecosystem, asked)}`;
    const cached = await this.deps.cache
      .get<CachedDiscovery>(DISCOVERY_NAMESPACE, key, { allowStale: true })
      .catch((error: unknown) => {
        this.logger.warn('could not read the discovery cache', { key, error });
        return undefined;
      });
    if (cached && !cached.stale) return cached.value.package;
    const running = this.pending.get(key);
    if (running) return running;
    const work = this.discoverNow(registry, asked, key, context).catch((error: unknown) => {
      if (context?.signal?.aborted || !cached) throw error;
      // the registry is down: what was discovered before answers meanwhile
      this.logger.warn(`registry '${registry.id}' failed; answering '${name}' from an expired discovery`, { error });
      return cached.value.package;
    });
    this.pending.set(key, work);
    try {
      return await work;
    } finally {
      this.pending.delete(key);
    }
  }

  private async discoverNow(
    registry: RegistryResolver,
    name: string,
    key: string,
    context?: FetchContext,
  ): Promise<DiscoveredPackage | null> {
    const { options } = this.deps;
    const metadata = await registry.lookup(name, context);
    if (!metadata) {
      await this.remember(key, { package: null }, options.missTtlHours);
      return null;
    }
    const outcomes: ProbeOutcome[] = [];
    for (const candidate of probeCandidates(metadata.documentationUrl, metadata.homepage)) {
      const result = await probe(this.deps.http, candidate, {
        timeoutMs: options.probeTimeoutMs,
        bytes: options.probeBytes,
        ...(context?.signal ? { signal: context.signal } : {}),
      });
      outcomes.push(result);
      if (result.hit) break;
    }
    const hit = outcomes.find((o) => o.hit);
    const discovered = packageOf(metadata, registry.ecosystem, outcomes, hit);
    this.logger.info('discovered a package', {
      ecosystem: registry.ecosystem,
      name: metadata.name,
      found: hit?.url ?? null,
      tried: outcomes.length,
    });
    const passing = !hit && outcomes.some((o) => o.transient);
    await this.remember(key, { package: discovered }, passing ? options.missTtlHours : options.ttlHours);
    return discovered;
  }

  private async remember(key: string, value: CachedDiscovery, hours: number): Promise<void> {
    if (hours <= 0) return; // 0 is "do not keep" here (a CacheStore TTL of 0 never expires)
    await this.deps.cache
      .set(DISCOVERY_NAMESPACE, key, value, { ttlMs: Math.round(hours * 3_600_000) })
      .catch((error: unknown) => this.logger.warn('could not cache a discovery', { key, error }));
  }
}

function packageOf(
  metadata: PackageMetadata,
  ecosystem: string,
  outcomes: readonly ProbeOutcome[],
  hit: ProbeOutcome | undefined,
): DiscoveredPackage {
  return {
    ecosystem,
    name: metadata.name,
    ...(metadata.summary ? { summary: metadata.summary } : {}),
    ...(metadata.homepage ? { homepage: metadata.homepage } : {}),
    ...(metadata.repository ? { repository: metadata.repository } : {}),
    ...(metadata.documentationUrl ? { documentationUrl: metadata.documentationUrl } : {}),
    ...(hit ? { found: { kind: hit.kind, url: hit.url, base: hit.base } } : {}),
    tried: outcomes.map((o) => ({ url: o.url, reason: o.reason })),
    discoveredAt: new Date().toISOString(),
  };
}

const REGISTRY_NAMES: Record<string, string> = { pypi: 'PyPI', npm: 'npm' };

/** The sentence naming what discovery tried, for a package without an llms.txt. */
export function triedNote(pkg: DiscoveredPackage): string {
  const registry = REGISTRY_NAMES[pkg.ecosystem] ?? pkg.ecosystem;
  const repository = pkg.repository ? ` Its repository is ${pkg.repository}.` : '';
  if (pkg.tried.length === 0) {
    return `Docs discovery found no documentation site in the ${registry} metadata of ${pkg.name} (no documentation URL or homepage besides a repository), so no llms.txt was looked for.${repository}`;
  }
  const tried = pkg.tried.map((t) => `${t.url} (${t.reason})`).join(', ');
  return `Docs discovery found no llms.txt for ${pkg.name} from its ${registry} metadata; tried ${tried}.${repository}`;
}

/**
 * The library a discovered package is: id = its normalized name, `packages` naming its registry,
 * `sources.llmsTxt` and `docsUrl` (the site the file was read from) when an llms.txt or llms-full.txt was
 * found, else `docsNote` naming what was tried. The docs URL of a site where nothing was found is left out:
 * the engine lets read-page fetch a library's `docsUrl`, and seed 001 §10.1 allows only the domains of
 * llms.txt files actually fetched.
 */
export function descriptorOf(pkg: DiscoveredPackage, language?: string): LibraryDescriptor {
  const id = libraryIdOf(pkg.ecosystem, pkg.name);
  const hinted = language && ECOSYSTEM_OF_LANGUAGE[language.toLowerCase()] === pkg.ecosystem ? language : undefined;
  const lang = hinted ?? LANGUAGE_OF_ECOSYSTEM[pkg.ecosystem];
  const found = pkg.found;
  const crawlable = found ? undefined : (siteBase(pkg.documentationUrl) ?? siteBase(pkg.homepage));
  return {
    id,
    name: pkg.name,
    ...(pkg.summary ? { description: pkg.summary } : {}),
    ...(lang ? { language: lang } : {}),
    ...(pkg.name.toLowerCase() !== id ? { aliases: [pkg.name] } : {}),
    packages: { [pkg.ecosystem]: pkg.name },
    ...(pkg.repository ? { repository: pkg.repository } : {}),
    ...(found
      ? {
          docsUrl: found.base,
          sources: { llmsTxt: found.kind === 'llms.txt' ? { llmsTxtUrl: found.url } : { llmsFullTxtUrl: found.url } },
        }
      : {
          docsNote: triedNote(pkg),
          // no llms.txt: the documentation site itself can still be crawled (the site-crawl source's bag; a
          // plugin not installed ignores it). Not a docsUrl: read-page reaches the site's pages once they are
          // crawled (their hosts join the allowlist with the TOC), not before.
          ...(crawlable ? { sources: { site: { url: crawlable } } } : {}),
        }),
  };
}

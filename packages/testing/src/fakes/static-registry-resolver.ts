import type { FetchContext, PackageMetadata, RegistryResolver, ResolvedVersion } from '@pro-context/kernel';
import { ProContextError } from '@pro-context/kernel';
import * as pep440 from '@renovatebot/pep440';
import semver from 'semver';

/**
 * A `RegistryResolver` over fixed package metadata, for tests. Specs are evaluated as the ecosystem does:
 * PEP 440 for `pypi` (`~=2.10`, `>=2,<3`, `==2.*`), semver for any other (`^3.22`, `3.x`); `2.1.x` and `2.*`
 * wildcards in both. It counts `resolveVersion` calls and can be told to fail (a registry that is down).
 */
export class StaticRegistryResolver implements RegistryResolver {
  /** Calls of `resolveVersion`, and the specs they were given (as written). */
  readonly calls: { spec: string | undefined; signal: boolean }[] = [];
  /** When set, every call throws this error (simulates an unreachable registry). */
  failWith: Error | undefined;

  constructor(
    readonly id: string,
    readonly ecosystem: string,
    private readonly packages: Record<string, PackageMetadata>,
  ) {}

  async lookup(name: string, context?: FetchContext): Promise<PackageMetadata | null> {
    context?.signal?.throwIfAborted();
    if (this.failWith) throw this.failWith;
    return this.packages[name.toLowerCase()] ?? null;
  }

  async resolveVersion(name: string, spec?: string, context?: FetchContext): Promise<ResolvedVersion> {
    this.calls.push({ spec, signal: context?.signal !== undefined });
    const metadata = await this.lookup(name, context);
    if (!metadata) throw new ProContextError('LIBRARY_NOT_FOUND', `No package '${name}' in ${this.id}.`);
    const stable = metadata.versions.filter((v) => !v.prerelease && !v.yanked).map((v) => v.version);
    const version =
      spec === undefined || spec === 'latest' ? (metadata.latestStable ?? stable[0]) : this.match(spec, stable);
    if (!version) {
      throw new ProContextError('VERSION_NOT_FOUND', `${name} has no version matching '${spec}'.`, {
        suggestion: `Available versions: ${stable.slice(0, 10).join(', ')}`,
        details: { availableVersions: stable.slice(0, 10) },
      });
    }
    return { version, ...(spec === undefined ? {} : { requested: spec }), metadata };
  }

  /** The newest stable version the spec allows (versions are newest first). */
  private match(spec: string, stable: string[]): string | undefined {
    if (stable.includes(spec)) return spec;
    const wildcard = /^(\d+(?:\.\d+)*)(?:\.[x*])+$/i.exec(spec)?.[1];
    if (this.ecosystem === 'pypi') {
      const specifier = wildcard ? `==${wildcard}.*` : spec;
      return pep440.validRange(specifier) ? (pep440.maxSatisfying(stable, specifier) ?? undefined) : undefined;
    }
    return semver.validRange(spec) ? (semver.maxSatisfying(stable, spec) ?? undefined) : undefined;
  }
}

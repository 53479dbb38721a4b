import type { PackageMetadata, RegistryResolver, ResolvedVersion } from '@pro-context/kernel';
import { ProContextError } from '@pro-context/kernel';

/**
 * A `RegistryResolver` over fixed package metadata, for tests. Versions are compared segment by segment
 * (numeric where possible); `2.1.x` and `2.x` style ranges resolve to the newest match.
 */
export class StaticRegistryResolver implements RegistryResolver {
  constructor(
    readonly id: string,
    readonly ecosystem: string,
    private readonly packages: Record<string, PackageMetadata>,
  ) {}

  async lookup(name: string): Promise<PackageMetadata | null> {
    return this.packages[name.toLowerCase()] ?? null;
  }

  async resolveVersion(name: string, spec?: string): Promise<ResolvedVersion> {
    const metadata = await this.lookup(name);
    if (!metadata) throw new ProContextError('LIBRARY_NOT_FOUND', `No package '${name}' in ${this.id}.`);
    const stable = metadata.versions.filter((v) => !v.prerelease && !v.yanked).map((v) => v.version);
    let version: string | undefined;
    if (spec === undefined || spec === 'latest') version = metadata.latestStable ?? stable[0];
    else if (/\.x$|\.\*$/.test(spec)) {
      const prefix = spec.replace(/(\.x|\.\*)$/, '.');
      version = stable.find((v) => v.startsWith(prefix));
    } else version = metadata.versions.find((v) => v.version === spec)?.version;
    if (!version) {
      throw new ProContextError('VERSION_NOT_FOUND', `${name} has no version matching '${spec}'.`, {
        suggestion: `Available versions: ${stable.slice(0, 10).join(', ')}`,
        details: { availableVersions: stable.slice(0, 10) },
      });
    }
    return { version, ...(spec === undefined ? {} : { requested: spec }), metadata };
  }
}

import type { RegistryResolver } from '@pro-context/kernel';
import { isProContextError } from '@pro-context/kernel';
import { beforeAll, describe, expect, it } from 'vitest';

/** What the suite needs: a resolver, a package it knows and one it does not. */
export interface RegistryResolverContractOptions {
  create(): RegistryResolver | Promise<RegistryResolver>;
  /** A package the registry knows, with at least two stable versions. */
  knownPackage: string;
  /** A name the registry does not know. */
  unknownPackage: string;
}

const versionCompare = (a: string, b: string) => a.localeCompare(b, undefined, { numeric: true, sensitivity: 'base' });

/**
 * The behaviour every `RegistryResolver` must have:
 * `describeRegistryResolverContract('pypi', { create, knownPackage: 'pydantic', unknownPackage: 'no-such-pkg' })`.
 */
export function describeRegistryResolverContract(name: string, options: RegistryResolverContractOptions): void {
  describe(`RegistryResolver contract: ${name}`, () => {
    let resolver: RegistryResolver;
    beforeAll(async () => {
      resolver = await options.create();
    });

    it('looks up a known package with versions newest first', async () => {
      const metadata = await resolver.lookup(options.knownPackage);
      expect(metadata).not.toBeNull();
      expect(metadata?.ecosystem).toBe(resolver.ecosystem);
      const stable = metadata?.versions.filter((v) => !v.prerelease).map((v) => v.version) ?? [];
      expect(stable.length).toBeGreaterThanOrEqual(2);
      expect(versionCompare(stable[0] as string, stable[1] as string)).toBeGreaterThan(0);
    });

    it('returns null for an unknown package', async () => {
      expect(await resolver.lookup(options.unknownPackage)).toBeNull();
    });

    it('resolves no spec to the latest stable version and an exact version to itself', async () => {
      const latest = await resolver.resolveVersion(options.knownPackage);
      expect(latest.version).toBe(latest.metadata.latestStable);
      const older = latest.metadata.versions.filter((v) => !v.prerelease)[1]?.version as string;
      expect((await resolver.resolveVersion(options.knownPackage, older)).version).toBe(older);
    });

    it('evaluates a range as written, the way its ecosystem does', async () => {
      const latest = await resolver.resolveVersion(options.knownPackage);
      const stable = latest.metadata.versions.filter((v) => !v.prerelease && !v.yanked).map((v) => v.version);
      const older = stable[1] as string;
      // `>=` and `<=` read the same in semver and PEP 440
      expect((await resolver.resolveVersion(options.knownPackage, `>=${older}`)).version).toBe(latest.version);
      const atMost = await resolver.resolveVersion(options.knownPackage, `<=${older}`);
      expect(atMost.version).toBe(older);
      expect(atMost.requested).toBe(`<=${older}`);
    });

    it('honours the FetchContext: an aborted call is refused', async () => {
      const controller = new AbortController();
      controller.abort();
      await expect(
        resolver.resolveVersion(options.knownPackage, undefined, { signal: controller.signal }),
      ).rejects.toThrow();
    });

    it('refuses a version that does not exist with VERSION_NOT_FOUND listing versions', async () => {
      try {
        await resolver.resolveVersion(options.knownPackage, '999.999.999');
      } catch (error) {
        expect(isProContextError(error) && error.code).toBe('VERSION_NOT_FOUND');
        expect((error as Error & { suggestion: string }).suggestion).toMatch(/Available versions: /);
        return;
      }
      throw new Error('expected VERSION_NOT_FOUND');
    });
  });
}

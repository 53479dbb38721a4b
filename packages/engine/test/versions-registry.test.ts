import { type LibraryDescriptor, type PackageMetadata, ProContextError } from '@pro-context/kernel';
import { catalogErrorOf, MemoryCacheStore, StaticRegistryResolver, StaticSourceAdapter } from '@pro-context/testing';
import { describe, expect, it } from 'vitest';
import {
  matchVersion,
  registryOf,
  resolveLibraryVersion,
  resolveReleasedVersion,
  versionSchemeOf,
} from '../src/versions/versions.js';

const metadata = (name: string, ecosystem: string, versions: string[]): PackageMetadata => ({
  name,
  ecosystem,
  versions: versions.map((version) => ({ version, prerelease: /[a-z]/i.test(version) })),
  latestStable: versions.find((v) => !/[a-z]/i.test(v)),
});
const pypi = () =>
  new StaticRegistryResolver('pypi', 'pypi', {
    pydantic: metadata('pydantic', 'pypi', ['2.11.3', '2.10.6', '2.9.2', '1.10.21']),
  });
const npm = () =>
  new StaticRegistryResolver('npm', 'npm', {
    zod: metadata('zod', 'npm', ['4.1.0', '4.0.0', '3.25.76', '3.24.1']),
  });
const anyVersion = [new StaticSourceAdapter('static', { pydantic: { pages: [], versions: { kind: 'any' } } })];
const pydantic: LibraryDescriptor = { id: 'pydantic', name: 'Pydantic', language: 'python', docsUrl: 'https://x.test' };

describe('registries are chosen by ecosystem', () => {
  it("uses a library's packages first, else the registry of its language", () => {
    const [p, n] = [pypi(), npm()];
    expect(registryOf({ id: 'zod', name: 'Zod', packages: { npm: 'zod' } }, [p, n])).toEqual({
      registry: n,
      name: 'zod',
    });
    // a library packaged on both: the first ecosystem an installed registry serves
    expect(registryOf({ id: 'x', name: 'X', packages: { conda: 'x', pypi: 'x-py' } }, [p, n])?.name).toBe('x-py');
    expect(registryOf({ ...pydantic, packageName: 'pydantic' }, [p, n])?.registry).toBe(p);
    expect(registryOf({ id: 'x', name: 'X', language: 'go' }, [p, n])).toBeUndefined();
    // packages that name no installed registry: no registry, even if the language has one
    expect(registryOf({ ...pydantic, packages: { conda: 'pydantic' } }, [p, n])).toBeUndefined();
  });

  it('evaluates ranges with PEP 440 for PyPI and semver for npm', async () => {
    expect(versionSchemeOf(pydantic)).toBe('pep440');
    expect(versionSchemeOf({ id: 'zod', name: 'Zod', language: 'typescript' })).toBe('semver');
    expect(versionSchemeOf({ id: 'x', name: 'X', language: 'javascript', packages: { pypi: 'x' } })).toBe('pep440');
    const py = ['2.11.3', '2.10.6', '1.10.21'];
    // ~=2.10 is ">=2.10, ==2.*" in PEP 440 (semver's ~2.10 would stop at 2.10.x)
    expect(await matchVersion('pep440', '~=2.10', py)).toBe('2.11.3');
    expect(await matchVersion('pep440', '>=2,<2.11', py)).toBe('2.10.6');
    expect(await matchVersion('pep440', '2.10.x', py)).toBe('2.10.6');
    const js = ['4.1.0', '3.25.76', '3.24.1'];
    expect(await matchVersion('semver', '^3.24', js)).toBe('3.25.76');
    expect(await matchVersion('semver', '~3.24.0', js)).toBe('3.24.1');
    expect(await matchVersion('semver', '==3.24.1', js)).toBe('3.24.1');
    // a bare number names its exact version only; the caller asks for the series explicitly
    expect(await matchVersion('semver', '3', js)).toBeUndefined();
    expect(await matchVersion('semver', 'not a range', js)).toBeUndefined();
  });
});

describe('resolveReleasedVersion with a registry', () => {
  it('hands the range to the registry as written, with the FetchContext', async () => {
    const registry = pypi();
    const signal = new AbortController().signal;
    const info = await resolveReleasedVersion(pydantic, '~=2.10', { registries: [registry], context: { signal } });
    expect(info).toMatchObject({ version: '2.11.3', requested: '~=2.10', from: 'pypi', latest: '2.11.3' });
    expect(registry.calls).toEqual([{ spec: '~=2.10', signal: true }]);
  });

  it('asks the registry even when the library lists versions (a registry that knows the package wins)', async () => {
    const listed = { ...pydantic, versions: ['2.0.0', '1.0.0'] };
    const info = await resolveReleasedVersion(listed, undefined, { registries: [pypi()] });
    expect(info).toMatchObject({ version: '2.11.3', from: 'pypi' });
    // and falls back to the list for a package the registry does not know
    const unknown = { ...listed, packages: { pypi: 'not-on-pypi' } };
    expect(await resolveReleasedVersion(unknown, undefined, { registries: [pypi()] })).toMatchObject({
      version: '2.0.0',
      from: 'config',
    });
  });

  it('caches the version list, answers from it within the TTL, and serves it marked stale when the registry is down', async () => {
    const registry = pypi();
    const cache = new MemoryCacheStore();
    const sources = { registries: [registry], cache, adapters: anyVersion };
    expect((await resolveLibraryVersion(pydantic, undefined, sources)).version).toBe('2.11.3');
    expect(registry.calls).toHaveLength(1);
    // within the TTL: evaluated on the cached list, the registry is not asked
    expect((await resolveLibraryVersion(pydantic, '>=2,<2.11', sources)).version).toBe('2.10.6');
    expect(registry.calls).toHaveLength(1);
    expect(await cache.keys('versions')).toEqual(['pypi:pydantic']);

    // past the TTL, registry down: the last list, marked stale
    registry.failWith = new ProContextError('REGISTRY_TIMEOUT', 'pypi did not answer.');
    const expired = { ...sources, versionsTtlMs: 0 };
    const stale = await resolveLibraryVersion(pydantic, '2.10.x', expired);
    expect(stale).toMatchObject({ version: '2.10.6', stale: true, from: 'pypi' });
    expect(registry.calls).toHaveLength(2);

    // with nothing cached (offline, a firewall): the library's own versions serve the latest, marked stale and
    // naming the registry that could not be reached; a version asked for that they cannot name is the failure
    const empty = { ...expired, cache: new MemoryCacheStore() };
    expect(await resolveLibraryVersion(pydantic, undefined, empty)).toMatchObject({
      version: 'latest',
      from: 'config',
      stale: true,
      unreachable: 'pypi',
    });
    const listed = { ...pydantic, versions: ['2.10.6', '2.9.2'] };
    expect(await resolveLibraryVersion(listed, '2.9.x', empty)).toMatchObject({ version: '2.9.2', stale: true });
    // offline: not a timeout error, but VERSION_NOT_FOUND listing the versions known and saying why the list is old
    const error = await catalogErrorOf(resolveLibraryVersion(listed, '3.x', empty));
    expect(error.code).toBe('VERSION_NOT_FOUND');
    expect(error.message).toContain('the list of versions could not be refreshed');
    expect(error.suggestion).toContain('Known versions: 2.10.6, 2.9.2');
    expect(error.details).toMatchObject({ availableVersions: ['2.10.6', '2.9.2'], unrefreshed: true });
  });

  it('degrades a registry failure of any kind (refused by policy, DNS, 5xx, 429) to a note, never a failed call', async () => {
    const failures = [
      new ProContextError('URL_NOT_ALLOWED', 'Refused to connect to pypi.org: it resolves to 203.0.113.80.', {
        details: { failure: 'refused-by-policy' },
      }),
      new ProContextError('REGISTRY_UNREACHABLE', 'PyPI could not be reached.', { details: { failure: 'dns' } }),
      new ProContextError('REGISTRY_ERROR', 'PyPI answered HTTP 503.', { details: { failure: 'http-5xx' } }),
      new ProContextError('RATE_LIMITED', 'PyPI is rate limiting requests.', { retryAfter: 60 }),
    ];
    for (const failWith of failures) {
      const registry = pypi();
      registry.failWith = failWith;
      const sources = { registries: [registry], cache: new MemoryCacheStore(), adapters: anyVersion };
      const listed = { ...pydantic, versions: ['2.10.6', '2.9.2'] };
      const info = await resolveLibraryVersion(listed, undefined, sources);
      expect(info, failWith.code).toMatchObject({ version: '2.10.6', unreachable: 'pypi' });
    }
    const sinkholed = pypi();
    sinkholed.failWith = failures[0] as ProContextError;
    const info = await resolveLibraryVersion(pydantic, undefined, {
      registries: [sinkholed],
      cache: new MemoryCacheStore(),
      adapters: anyVersion,
    });
    expect(info.unreachableReason).toBe('the address it resolves to is refused by the network policy');
  });

  it('answers a version that is not a version with INVALID_INPUT, online and offline', async () => {
    const online = { registries: [pypi()], cache: new MemoryCacheStore(), adapters: anyVersion };
    const error = await catalogErrorOf(resolveLibraryVersion(pydantic, 'banana', online));
    expect([error.code, error.message]).toEqual(['INVALID_INPUT', "'banana' is not a version of Pydantic."]);
    const down = pypi();
    down.failWith = new ProContextError('REGISTRY_UNREACHABLE', 'PyPI could not be reached.', {
      details: { failure: 'dns' },
    });
    const offline = { registries: [down], cache: new MemoryCacheStore(), adapters: anyVersion };
    expect((await catalogErrorOf(resolveLibraryVersion(pydantic, 'banana', offline))).code).toBe('INVALID_INPUT');
  });

  it('does not ask a registry that could not be reached again for a while (one deadline, not one per call)', async () => {
    const registry = pypi();
    registry.failWith = new ProContextError('REGISTRY_TIMEOUT', 'pypi did not answer.');
    const sources = { registries: [registry], cache: new MemoryCacheStore(), adapters: anyVersion };
    expect(await resolveLibraryVersion(pydantic, undefined, sources)).toMatchObject({
      stale: true,
      unreachable: 'pypi',
    });
    expect(await resolveLibraryVersion(pydantic, undefined, sources)).toMatchObject({
      stale: true,
      unreachable: 'pypi',
    });
    expect(registry.calls).toHaveLength(1);
    // once the pause is over (0 here), the registry is asked again, and a registry that is back answers
    registry.failWith = undefined;
    const retry = { ...sources, registryRetryAfterMs: 0 };
    expect((await resolveLibraryVersion(pydantic, undefined, retry)).version).toBe('2.11.3');
    // still within the first minute, but a registry that answered is no longer paused
    registry.failWith = undefined;
    expect(await resolveLibraryVersion(pydantic, undefined, sources)).toMatchObject({ version: '2.11.3' });
  });

  it('refuses a range no cached release satisfies with VERSION_NOT_FOUND', async () => {
    const cache = new MemoryCacheStore();
    const sources = { registries: [pypi()], cache };
    await resolveReleasedVersion(pydantic, undefined, sources);
    const error = await catalogErrorOf(resolveReleasedVersion(pydantic, '>=3', sources));
    expect(error.code).toBe('VERSION_NOT_FOUND');
    expect(error.suggestion).toBe('Available versions: 2.11.3, 2.10.6, 2.9.2, 1.10.21');
  });
});

import {
  isProContextError,
  type ProContextError,
  registryResolverToken,
  type StartedKernel,
} from '@pro-context/kernel';
import {
  catalogErrorOf,
  createTestKernel,
  describeRegistryResolverContract,
  type FakeNpmPackage,
  type FakeRegistry,
  fakeNpmPackages,
  startFakeNpm,
} from '@pro-context/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { NpmRegistryResolver, npmPackagePath, npmPlugin } from '../src/index.js';
import { kernelFromEnv, kernelWith } from './helpers.js';

let npm: FakeRegistry;
const kernels: StartedKernel[] = [];

/** A resolver against the fake registry (no reuse unless asked, so every call is a request). */
async function resolverFor(reuseSeconds = 0, config: Record<string, unknown> = {}, url = npm.url) {
  const { kernel, resolver } = await kernelWith({ url, reuseSeconds }, config);
  kernels.push(kernel);
  return resolver;
}

const abbreviated = (accept?: string) => (accept ?? '').includes('application/vnd.npm.install-v1+json');

beforeAll(async () => {
  npm = await startFakeNpm(fakeNpmPackages);
});
afterEach(() => {
  npm.fault();
  npm.requests.length = 0;
});
afterAll(async () => {
  await Promise.all(kernels.map((k) => k.stop()));
  await npm.close();
});

describeRegistryResolverContract('npm', {
  create: () => resolverFor(),
  knownPackage: 'react',
  unknownPackage: 'no-such-package-anywhere',
});

describe('the plugin', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('binds one resolver for the npm ecosystem, finding the registry only on first use', async () => {
    const { kernel, resolver } = await kernelWith();
    expect(resolver).toBeInstanceOf(NpmRegistryResolver);
    expect([resolver.id, resolver.ecosystem]).toEqual(['npm', 'npm']);
    await kernel.stop();
  });

  it('binds nothing when disabled, reading the registries.npm config section', async () => {
    const kernel = await createTestKernel({
      plugins: [npmPlugin],
      config: { registries: { npm: { enabled: false } } },
    });
    expect(kernel.resolveAll(registryResolverToken)).toEqual([]);
    await kernel.stop();
  });

  it('refuses a PRO_CONTEXT_NPM_URL that is not a URL at start-up, naming it', async () => {
    const error = await catalogErrorOf(kernelFromEnv({ PRO_CONTEXT_NPM_URL: 'not a url' }));
    expect([error.code, error.message]).toEqual(['CONFIG_INVALID', expect.stringContaining('PRO_CONTEXT_NPM_URL')]);
  });

  it('reads PRO_CONTEXT_NPM_URL when the url option is not set (declared: the kernel sets registries.npm.url)', async () => {
    const { kernel, resolver } = await kernelFromEnv({ PRO_CONTEXT_NPM_URL: npm.url });
    expect(kernel.environment).toEqual([{ variable: 'PRO_CONTEXT_NPM_URL', key: 'registries.npm.url', secret: false }]);
    expect((await resolver.resolveVersion('zod', '3.x')).version).toBe('3.25.76');
    expect(npm.count('/zod')).toBe(1);
    await kernel.stop();
  });

  it('refuses a misspelt option, naming it', async () => {
    const error = await catalogErrorOf(createTestKernel({ plugins: [[npmPlugin, { registry: 'http://x.test/' }]] }));
    expect([error.code, error.message]).toEqual(['PLUGIN_OPTIONS_INVALID', expect.stringContaining('registry')]);
  });
});

describe('lookup', () => {
  it('reads the full packument: description, homepage as docs site, repository, dates', async () => {
    const metadata = await (await resolverFor()).lookup('react');
    expect(metadata).toMatchObject({
      name: 'react',
      ecosystem: 'npm',
      summary: 'React is a JavaScript library for building user interfaces.',
      homepage: 'https://react.dev/',
      documentationUrl: 'https://react.dev/',
      repository: 'https://github.com/facebook/react',
      urls: { bugs: 'https://github.com/facebook/react/issues' },
      latestStable: '19.2.0',
    });
    expect(metadata?.versions.slice(0, 3)).toEqual([
      { version: '19.3.0-canary-4fdf7cf2-20251003', publishedAt: '2025-10-03T16:19:20.000Z', prerelease: true },
      { version: '19.2.0', publishedAt: '2025-10-01T21:38:45.000Z', prerelease: false },
      { version: '19.1.1', publishedAt: '2025-07-28T19:16:35.000Z', prerelease: false },
    ]);
    expect(npm.requests).toEqual([{ path: '/react', accept: 'application/json', status: 200 }]);
  });

  it('asks for a scoped package as @scope%2fname', async () => {
    const metadata = await (await resolverFor()).lookup('@tanstack/react-query');
    expect(metadata).toMatchObject({
      name: '@tanstack/react-query',
      repository: 'https://github.com/TanStack/query',
      documentationUrl: 'https://tanstack.com/query',
      latestStable: '5.90.2',
    });
    expect(npm.requests.map((r) => r.path)).toEqual(['/@tanstack%2freact-query']);
    expect(npmPackagePath('@tanstack/react-query')).toBe('@tanstack%2freact-query');
  });

  it('marks deprecated versions yanked, and a repository README homepage is not a docs site', async () => {
    const resolver = await resolverFor();
    const zod = await resolver.lookup('zod');
    expect(zod?.versions.find((v) => v.version === '3.24.0')?.yanked).toBe(true);
    expect(zod?.versions.find((v) => v.version === '3.24.1')?.yanked).toBeUndefined();
    const request = await resolver.lookup('request');
    expect(request?.homepage).toBe('https://github.com/request/request#readme');
    expect(request?.documentationUrl).toBeUndefined();
    expect(request?.versions.every((v) => v.yanked)).toBe(true);
    expect(request?.latestStable).toBeUndefined();
  });

  it('returns null for an unknown package (the registry 404) and for a name npm cannot have, without asking', async () => {
    const resolver = await resolverFor();
    expect(await resolver.lookup('no-such-package')).toBeNull();
    for (const name of ['../etc/passwd', '@/x', 'a b', '.hidden', '_private', '@scope/', '', 'a/b/c']) {
      expect(await resolver.lookup(name)).toBeNull();
    }
    expect(npm.requests.map((r) => [r.path, r.status])).toEqual([['/no-such-package', 404]]);
  });

  it('falls back to the abbreviated packument when the full one is over the HTTP size cap', async () => {
    const sizes = await Promise.all(
      ['application/json', 'application/vnd.npm.install-v1+json'].map(async (accept) => {
        const response = await fetch(`${npm.url}react`, { headers: { accept } });
        return (await response.arrayBuffer()).byteLength;
      }),
    );
    const [full, short] = sizes as [number, number];
    expect(short).toBeLessThan(full);
    npm.requests.length = 0;
    const resolver = await resolverFor(0, { http: { maxBodyBytes: Math.floor((full + short) / 2) } });
    const metadata = await resolver.lookup('react');
    expect(metadata?.latestStable).toBe('19.2.0');
    expect(metadata?.versions[0]?.publishedAt).toBeUndefined();
    expect(npm.requests.map((r) => abbreviated(r.accept))).toEqual([false, true]);
  });

  it('reads a registry that lives under a path (Artifactory, Nexus)', async () => {
    const mounted = await startFakeNpm(fakeNpmPackages, { basePath: '/api/npm/npm-remote' });
    const resolver = await resolverFor(0, {}, mounted.url);
    expect((await resolver.resolveVersion('@tanstack/react-query', '^4')).version).toBe('4.41.0');
    expect(mounted.requests.map((r) => r.path)).toEqual(['/api/npm/npm-remote/@tanstack%2freact-query']);
    await mounted.close();
  });
});

describe('resolveVersion', () => {
  const cases: [string, string | undefined, string][] = [
    ['react', undefined, '19.2.0'],
    ['react', 'latest', '19.2.0'],
    ['react', '18.2.0', '18.2.0'],
    ['react', 'v18.2.0', '18.2.0'],
    ['react', '18.2', '18.2.0'],
    ['react', '18.2.x', '18.2.0'],
    ['react', '18.x', '18.3.1'],
    ['react', '17', '17.0.2'],
    ['react', '^18', '18.3.1'],
    ['react', '^18.0.0', '18.3.1'],
    ['react', '~18.3.0', '18.3.1'],
    ['react', '>=18 <19', '18.3.1'],
    ['react', '>=18,<19', '18.3.1'],
    ['react', '^17 || ^18', '18.3.1'],
    ['react', '*', '19.2.0'],
    ['react', '>=16', '19.2.0'],
    ['react', 'next', '19.3.0-canary-4fdf7cf2-20251003'],
    ['react', 'rc', '19.0.0-rc.1'],
    ['react', '19.0.0-rc.1', '19.0.0-rc.1'],
    ['react', '>=19.3.0-0', '19.3.0-canary-4fdf7cf2-20251003'],
    ['zod', '3.x', '3.25.76'],
    ['zod', '^4.0.0', '4.1.12'],
    ['@tanstack/react-query', 'previous', '4.41.0'],
    ['@tanstack/react-query', '4.x', '4.41.0'],
    ['@tanstack/react-query', '^5', '5.90.2'],
  ];
  it.each(cases)('%s %s → %s', async (name, spec, expected) => {
    const resolved = await (await resolverFor(60)).resolveVersion(name, spec);
    expect(resolved.version).toBe(expected);
    expect(resolved.requested).toBe(spec);
    expect(resolved.metadata.name).toBe(name);
  });

  it('reads only the abbreviated packument, unless a lookup just read the full one', async () => {
    const cold = await resolverFor(60);
    const resolved = await cold.resolveVersion('react', '^18');
    expect(resolved.metadata.versions[0]?.publishedAt).toBeUndefined();
    expect(npm.requests.map((r) => [r.path, abbreviated(r.accept)])).toEqual([['/react', true]]);
    await cold.lookup('react'); // the full one is needed for dates and links
    await cold.resolveVersion('react', '^17');
    await cold.lookup('react');
    expect(npm.requests.map((r) => abbreviated(r.accept))).toEqual([true, false]);

    npm.requests.length = 0;
    const warm = await resolverFor(60);
    await warm.lookup('zod');
    expect((await warm.resolveVersion('zod')).metadata.versions[0]?.publishedAt).toBe('2025-10-06T01:53:12.000Z');
    expect(npm.count()).toBe(1);
  });

  it('skips a deprecated version in a range unless nothing else matches, and serves it when pinned', async () => {
    const resolver = await resolverFor(60);
    expect((await resolver.resolveVersion('zod', '~3.24.0')).version).toBe('3.24.1');
    expect((await resolver.resolveVersion('zod', '>=3.24.0 <3.24.1')).version).toBe('3.24.0');
    expect((await resolver.resolveVersion('zod', '3.24.0')).version).toBe('3.24.0');
    // every version of request is deprecated: with no spec, what npm install would get
    expect((await resolver.resolveVersion('request')).version).toBe('2.88.2');
  });

  it('never takes a deprecated or pre-release dist-tags.latest as latest stable', async () => {
    const odd: FakeNpmPackage[] = [
      {
        name: 'deprecated-latest',
        distTags: { latest: '1.1.0' },
        versions: [
          { version: '1.0.0', publishedAt: '2024-01-01T00:00:00Z' },
          { version: '1.1.0', publishedAt: '2024-02-01T00:00:00Z', deprecated: 'broken' },
        ],
      },
      {
        name: 'prerelease-latest',
        distTags: { latest: '2.0.0-beta.1' },
        versions: [
          { version: '1.0.0', publishedAt: '2024-01-01T00:00:00Z' },
          { version: '2.0.0-beta.1', publishedAt: '2024-02-01T00:00:00Z' },
        ],
      },
      {
        name: 'only-prereleases',
        distTags: { latest: '0.1.0-alpha.2' },
        versions: [
          { version: '0.1.0-alpha.1', publishedAt: '2024-01-01T00:00:00Z' },
          { version: '0.1.0-alpha.2', publishedAt: '2024-02-01T00:00:00Z' },
        ],
      },
    ];
    const fake = await startFakeNpm(odd);
    const resolver = await resolverFor(60, {}, fake.url);
    expect((await resolver.lookup('deprecated-latest'))?.latestStable).toBe('1.0.0');
    expect((await resolver.resolveVersion('deprecated-latest')).version).toBe('1.0.0');
    expect((await resolver.lookup('prerelease-latest'))?.latestStable).toBe('1.0.0');
    expect((await resolver.resolveVersion('prerelease-latest')).version).toBe('1.0.0');
    expect((await resolver.lookup('only-prereleases'))?.latestStable).toBeUndefined();
    expect((await resolver.resolveVersion('only-prereleases')).version).toBe('0.1.0-alpha.2');
    await fake.close();
  });

  it('refuses an unknown package with LIBRARY_NOT_FOUND', async () => {
    const error = await catalogErrorOf((await resolverFor()).resolveVersion('@nobody/nothing', '^1'));
    expect([error.code, error.message]).toEqual([
      'LIBRARY_NOT_FOUND',
      "The npm registry has no package named '@nobody/nothing'.",
    ]);
    expect(npm.requests.map((r) => [r.path, r.status])).toEqual([['/@nobody%2fnothing', 404]]);
  });

  it('refuses a version that matches nothing with VERSION_NOT_FOUND listing the nearest versions', async () => {
    const resolver = await resolverFor(60);
    const error = (await catalogErrorOf(resolver.resolveVersion('react', '18.1.5'))) as ProContextError;
    expect([error.code, error.message]).toEqual([
      'VERSION_NOT_FOUND',
      "react has no version matching '18.1.5' on npm.",
    ]);
    const nearest = error.details?.availableVersions as string[];
    expect(nearest).toEqual([
      '19.1.0',
      '19.0.0',
      '18.3.1',
      '18.3.0',
      '18.2.0',
      '18.0.0',
      '17.0.2',
      '17.0.1',
      '17.0.0',
      '16.14.0',
    ]);
    expect(error.suggestion).toBe(`Available versions: ${nearest.join(', ')}`);
    for (const spec of ['20.x', 'nightly', 'not a version', '>=30']) {
      expect((await catalogErrorOf(resolver.resolveVersion('react', spec))).code).toBe('VERSION_NOT_FOUND');
    }
  });
});

describe('search', () => {
  it("uses the registry's search, and finds nothing where the registry offers none", async () => {
    const resolver = await resolverFor();
    const hits = await resolver.search?.('react');
    expect(hits?.map((h) => h.name)).toEqual(['react', '@tanstack/react-query']);
    expect(hits?.[0]).toEqual({ name: 'react', summary: fakeNpmPackages[0]?.description, version: '19.2.0' });
    expect(npm.requests[0]?.path).toBe('/-/v1/search?text=react&size=20');
    npm.fault({ status: 404, body: '{"error":"Not found"}' });
    expect(await resolver.search?.('react')).toEqual([]);
  });
});

describe('failures', () => {
  it('reports a registry that cannot be reached (connection refused) as REGISTRY_UNREACHABLE, not a timeout', async () => {
    const gone = await startFakeNpm([]);
    await gone.close();
    const error = await catalogErrorOf((await resolverFor(0, {}, gone.url)).resolveVersion('react'));
    expect([error.code, error.recoverable, error.details?.failure]).toEqual([
      'REGISTRY_UNREACHABLE',
      true,
      'connection-refused',
    ]);
  });

  it('reports a registry that does not answer within timeoutMs as REGISTRY_TIMEOUT, whatever the HTTP deadline', async () => {
    const { kernel, resolver } = await kernelWith({ url: npm.url, timeoutMs: 600 }, { http: { timeoutMs: 30_000 } });
    kernels.push(kernel);
    npm.fault({ hang: true });
    const error = await catalogErrorOf(resolver.lookup('react'));
    expect([error.code, error.message]).toEqual([
      'REGISTRY_TIMEOUT',
      expect.stringContaining('did not answer within 0.6 s'),
    ]);
  });

  it('reports 5xx answers as REGISTRY_ERROR after retries, and 401 as a registry that wants credentials', async () => {
    const resolver = await resolverFor();
    npm.fault({ status: 503 });
    const unavailable = await catalogErrorOf(resolver.lookup('react'));
    expect([unavailable.code, unavailable.recoverable]).toEqual(['REGISTRY_ERROR', true]);
    expect(npm.count('/react')).toBe(3);
    npm.fault({ status: 401, body: '{"error":"unauthorized"}' });
    const auth = await catalogErrorOf(resolver.lookup('react'));
    expect([auth.code, auth.recoverable, auth.suggestion]).toEqual([
      'REGISTRY_ERROR',
      false,
      expect.stringContaining('credentials'),
    ]);
  });

  it('reports a 429 as RATE_LIMITED with the registry Retry-After', async () => {
    const resolver = await resolverFor();
    npm.fault({ status: 429, retryAfter: 300 });
    const error = await catalogErrorOf(resolver.resolveVersion('react'));
    expect([error.code, error.retryAfter]).toEqual(['RATE_LIMITED', 300]);
  });

  it('passes the caller signal through: an abort ends the request at once with the abort reason', async () => {
    const resolver = await resolverFor();
    npm.fault({ hang: true });
    const controller = new AbortController();
    const pending = resolver.lookup('zod', { signal: controller.signal });
    await vi.waitFor(() => expect(npm.count('/zod')).toBe(1));
    const reason = new Error('the agent cancelled');
    controller.abort(reason);
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBe(reason);
    expect(isProContextError(error)).toBe(false);
  });
});

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
  type FakeRegistry,
  fakePypiProjects,
  startFakePypi,
} from '@pro-context/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_PYPI_URL, PypiRegistryResolver, pypiPlugin } from '../src/index.js';
import { kernelFromEnv, kernelWith, noDns } from './helpers.js';

let pypi: FakeRegistry;
const kernels: StartedKernel[] = [];

/** A resolver against the fake PyPI (no reuse unless asked, so every call is a request). */
async function resolverFor(reuseSeconds = 0, config: Record<string, unknown> = {}) {
  const { kernel, resolver } = await kernelWith({ url: pypi.url, reuseSeconds }, config);
  kernels.push(kernel);
  return resolver;
}

beforeAll(async () => {
  pypi = await startFakePypi(fakePypiProjects);
});
afterEach(() => {
  pypi.fault();
  pypi.requests.length = 0;
});
afterAll(async () => {
  await Promise.all(kernels.map((k) => k.stop()));
  await pypi.close();
});

describeRegistryResolverContract('pypi', {
  create: () => resolverFor(),
  knownPackage: 'pydantic',
  unknownPackage: 'no-such-project-anywhere',
});

describe('the plugin', () => {
  it('binds one resolver for the pypi ecosystem', async () => {
    const { kernel, resolver } = await kernelWith({ url: 'http://127.0.0.1:9' });
    expect(resolver).toBeInstanceOf(PypiRegistryResolver);
    expect([resolver.id, resolver.ecosystem]).toEqual(['pypi', 'pypi']);
    await kernel.stop();
  });

  it('binds nothing when disabled, reading the registries.pypi config section', async () => {
    const kernel = await createTestKernel({
      plugins: [pypiPlugin],
      config: { registries: { pypi: { enabled: false } } },
    });
    expect(kernel.resolveAll(registryResolverToken)).toEqual([]);
    await kernel.stop();
  });

  it('refuses a misspelt option or a URL that is not http(s), naming it', async () => {
    const misspelt = await catalogErrorOf(createTestKernel({ plugins: [[pypiPlugin, { ur: 'http://x.test' }]] }));
    expect([misspelt.code, misspelt.message]).toEqual(['PLUGIN_OPTIONS_INVALID', expect.stringContaining('ur')]);
    const scheme = await catalogErrorOf(createTestKernel({ plugins: [[pypiPlugin, { url: 'ftp://x.test' }]] }));
    expect(scheme.message).toContain('url');
  });

  describe('PRO_CONTEXT_PYPI_URL (declared: the kernel sets registries.pypi.url from it)', () => {
    it('is the index when the config does not set registries.pypi.url', async () => {
      const { kernel, resolver } = await kernelFromEnv({ PRO_CONTEXT_PYPI_URL: pypi.url });
      expect((await resolver.lookup('fastapi'))?.name).toBe('fastapi');
      expect(pypi.count('/pypi/fastapi/json')).toBe(1);
      expect(kernel.environment).toEqual([
        { variable: 'PRO_CONTEXT_PYPI_URL', key: 'registries.pypi.url', secret: false },
      ]);
      await kernel.stop();
    });

    it('gives way to the url option of kernel.use', async () => {
      const kernel = await createTestKernel({
        plugins: [[pypiPlugin, { url: pypi.url }]],
        env: { PRO_CONTEXT_PYPI_URL: 'http://127.0.0.1:9' },
        httpOptions: { lookup: noDns },
      });
      const resolver = kernel.resolveAll(registryResolverToken)[0];
      expect((await resolver?.lookup('fastapi'))?.name).toBe('fastapi');
      await kernel.stop();
    });

    it('is refused at start-up when it is not a URL, naming the variable', async () => {
      const error = await catalogErrorOf(kernelFromEnv({ PRO_CONTEXT_PYPI_URL: 'not a url' }));
      expect([error.code, error.message]).toEqual(['CONFIG_INVALID', expect.stringContaining('PRO_CONTEXT_PYPI_URL')]);
    });

    it('falls back to the public index without it (checked without a request)', async () => {
      const { kernel, resolver } = await kernelFromEnv({ PRO_CONTEXT_PYPI_URL: '' });
      // The lookup refuses every DNS name, so this fails on the machine instead of reaching the index.
      const error = await catalogErrorOf(resolver.lookup('fastapi'));
      // a DNS failure is not a timeout
      expect(error.code).toBe('REGISTRY_UNREACHABLE');
      expect(error.details?.failure).toBe('dns');
      expect(error.message).toContain(new URL(DEFAULT_PYPI_URL).host);
      expect(pypi.count()).toBe(0);
      await kernel.stop();
    });
  });
});

describe('lookup', () => {
  it('reads summary, homepage, repository and documentation URL from project_urls', async () => {
    const metadata = await (await resolverFor()).lookup('fastapi');
    expect(metadata).toMatchObject({
      name: 'fastapi',
      ecosystem: 'pypi',
      summary: 'FastAPI framework, high performance, easy to learn, fast to code, ready for production',
      homepage: 'https://github.com/fastapi/fastapi',
      repository: 'https://github.com/fastapi/fastapi',
      documentationUrl: 'https://fastapi.tiangolo.com/',
      latestStable: '0.116.1',
    });
    expect(metadata?.urls?.Changelog).toBe('https://fastapi.tiangolo.com/release-notes/');
    expect(pypi.requests.map((r) => r.path)).toEqual(['/pypi/fastapi/json']);
  });

  it('lists every release newest first (PEP 440 order, not upload order) with its first upload time', async () => {
    const metadata = await (await resolverFor()).lookup('pydantic');
    const listed = metadata?.versions.map((v) => v.version) ?? [];
    expect(listed.slice(0, 8)).toEqual([
      '2.12.0a1',
      '2.11.7',
      '2.11.0',
      '2.11.0rc1',
      '2.11.0b1',
      '2.11.0a2',
      '2.11.0a1',
      '2.10.6',
    ]);
    expect(listed.indexOf('2.0')).toBeLessThan(listed.indexOf('2.0b3'));
    expect(listed.indexOf('2.0a1')).toBeLessThan(listed.indexOf('1.10.22'));
    expect(listed.at(-1)).toBe('1.10.7');
    expect(metadata?.versions.find((v) => v.version === '2.11.0')).toEqual({
      version: '2.11.0',
      publishedAt: '2025-03-27T15:02:51.000Z',
      prerelease: false,
    });
    expect(metadata?.versions.find((v) => v.version === '2.10.5')?.yanked).toBe(true);
    expect(metadata?.versions.filter((v) => v.prerelease).map((v) => v.version)).toContain('2.11.0rc1');
  });

  it('never takes a pre-release, a yanked release or a local version as latest stable', async () => {
    const resolver = await resolverFor();
    expect((await resolver.lookup('pydantic'))?.latestStable).toBe('2.11.7');
    const local = await startFakePypi([
      {
        name: 'edge',
        releases: [
          { version: '1.0', uploadedAt: '2024-01-01T00:00:00Z' },
          { version: '1.0.post1', uploadedAt: '2024-01-02T00:00:00Z' },
          { version: '1.1', uploadedAt: '2024-02-01T00:00:00Z', yanked: 'broken' },
          { version: '1.1+local.1', uploadedAt: '2024-02-02T00:00:00Z' },
          { version: '1.2.dev3', uploadedAt: '2024-03-01T00:00:00Z' },
          { version: '1.2rc1', uploadedAt: '2024-03-02T00:00:00Z' },
        ],
      },
    ]);
    const { kernel, resolver: edge } = await kernelWith({ url: local.url });
    const metadata = await edge.lookup('edge');
    // A post-release is a final release (PEP 440): pip installs it, so it is the latest stable one.
    expect(metadata?.latestStable).toBe('1.0.post1');
    expect(metadata?.versions.find((v) => v.version === '1.2.dev3')?.prerelease).toBe(true);
    await kernel.stop();
    await local.close();
  });

  it('returns null for an unknown project, and for a name PyPI cannot have without asking', async () => {
    const resolver = await resolverFor();
    expect(await resolver.lookup('no-such-project')).toBeNull();
    expect(await resolver.lookup('../../etc/passwd')).toBeNull();
    expect(await resolver.lookup('')).toBeNull();
    expect(pypi.requests.map((r) => [r.path, r.status])).toEqual([['/pypi/no-such-project/json', 404]]);
  });

  it('asks for the PEP 503 name and follows PyPI to the project own spelling', async () => {
    const resolver = await resolverFor();
    for (const spelling of ['typing_extensions', 'Typing.Extensions', 'TYPING--extensions']) {
      expect((await resolver.lookup(spelling))?.name).toBe('typing_extensions');
    }
    expect(pypi.requests.map((r) => `${r.status} ${r.path}`).slice(0, 2)).toEqual([
      '301 /pypi/typing-extensions/json',
      '200 /pypi/typing_extensions/json',
    ]);
    expect((await resolver.lookup('Pydantic'))?.name).toBe('pydantic');
    expect(pypi.requests.at(-1)?.path).toBe('/pypi/pydantic/json');
  });

  it('reuses a project fetched moments ago for reuseSeconds, so lookup then resolveVersion is one request', async () => {
    const reusing = await resolverFor(60);
    await reusing.lookup('pydantic');
    await reusing.resolveVersion('PYDANTIC', '2.10.x');
    await reusing.lookup('no-such-project');
    await reusing.lookup('no-such-project');
    expect([pypi.count('/pypi/pydantic/json'), pypi.count('/pypi/no-such-project/json')]).toEqual([1, 1]);
    const fresh = await resolverFor(0);
    await fresh.lookup('pydantic');
    await fresh.resolveVersion('pydantic');
    expect(pypi.count('/pypi/pydantic/json')).toBe(3);
  });
});

describe('resolveVersion', () => {
  const cases: [string, string | undefined, string][] = [
    ['pydantic', undefined, '2.11.7'],
    ['pydantic', 'latest', '2.11.7'],
    ['pydantic', '2.10.6', '2.10.6'],
    ['pydantic', 'v2.10.6', '2.10.6'],
    ['pydantic', '2.0.0', '2.0'],
    ['pydantic', '2.0', '2.0'],
    ['pydantic', '2.10.x', '2.10.6'],
    ['pydantic', '2.x', '2.11.7'],
    ['pydantic', '1.x', '1.10.22'],
    ['pydantic', '1.10.*', '1.10.22'],
    ['pydantic', '==2.*', '2.11.7'],
    ['pydantic', '==2.10.*', '2.10.6'],
    ['pydantic', '~=2.5', '2.11.7'],
    ['pydantic', '~=2.10.0', '2.10.6'],
    ['pydantic', '>=2,<3', '2.11.7'],
    ['pydantic', '>=2, <2.10', '2.9.2'],
    ['pydantic', '<2', '1.10.22'],
    ['fastapi', '0.115.x', '0.115.12'],
    ['fastapi', '~=0.115.0', '0.115.12'],
    ['fastapi', '0.100.x', '0.100.1'],
  ];
  it.each(cases)('%s %s → %s', async (name, spec, expected) => {
    const resolved = await (await resolverFor(60)).resolveVersion(name, spec);
    expect(resolved.version).toBe(expected);
    expect(resolved.requested).toBe(spec);
    expect(resolved.metadata.name).toBe(name);
  });

  it('skips a yanked release in a range, but serves it when pinned exactly (PEP 592)', async () => {
    const resolver = await resolverFor(60);
    expect((await resolver.resolveVersion('pydantic', '>=2.10.4,<2.10.6')).version).toBe('2.10.4');
    expect((await catalogErrorOf(resolver.resolveVersion('pydantic', '>2.10.4,<2.10.6'))).code).toBe(
      'VERSION_NOT_FOUND',
    );
    expect((await resolver.resolveVersion('pydantic', '==2.10.5')).version).toBe('2.10.5');
    expect((await resolver.resolveVersion('pydantic', '2.10.5')).version).toBe('2.10.5');
  });

  it('takes a pre-release when the spec names one, or when nothing else matches', async () => {
    const resolver = await resolverFor(60);
    expect((await resolver.resolveVersion('pydantic', '2.11.0rc1')).version).toBe('2.11.0rc1');
    expect((await resolver.resolveVersion('pydantic', '>=2.12.0a1')).version).toBe('2.12.0a1');
    expect((await resolver.resolveVersion('pydantic', '==2.12.*')).version).toBe('2.12.0a1');
    expect((await resolver.resolveVersion('pydantic', '~=2.11.0')).version).toBe('2.11.7');
  });

  it('refuses an unknown project with LIBRARY_NOT_FOUND', async () => {
    const error = await catalogErrorOf((await resolverFor()).resolveVersion('no-such-project', '1.0'));
    expect([error.code, error.message]).toEqual(['LIBRARY_NOT_FOUND', "PyPI has no project named 'no-such-project'."]);
  });

  it('refuses a version that matches nothing with VERSION_NOT_FOUND listing the nearest releases', async () => {
    const resolver = await resolverFor(60);
    const error = (await catalogErrorOf(resolver.resolveVersion('pydantic', '2.10.99'))) as ProContextError;
    expect(error.code).toBe('VERSION_NOT_FOUND');
    expect(error.message).toBe("pydantic has no release matching '2.10.99' on PyPI.");
    const nearest = error.details?.availableVersions as string[];
    expect(nearest).toHaveLength(10);
    expect(nearest).toContain('2.10.6');
    expect(nearest).toContain('2.11.0');
    expect(nearest).not.toContain('2.10.5'); // yanked
    expect(nearest).not.toContain('2.11.0rc1'); // pre-release
    expect(error.suggestion).toBe(`Available versions: ${nearest.join(', ')}`);
    const old = (await catalogErrorOf(resolver.resolveVersion('pydantic', '0.9'))) as ProContextError;
    expect(((old.details?.availableVersions ?? []) as string[]).at(-1)).toBe('1.10.7');
    for (const spec of ['3.x', '^2.5', 'not a version', '>=3']) {
      expect((await catalogErrorOf(resolver.resolveVersion('pydantic', spec))).code).toBe('VERSION_NOT_FOUND');
    }
  });
});

describe('failures', () => {
  it('reports an index that cannot be reached (connection refused) as REGISTRY_UNREACHABLE, not a timeout', async () => {
    const gone = await startFakePypi([]);
    await gone.close();
    const { kernel, resolver } = await kernelWith({ url: gone.url });
    const error = await catalogErrorOf(resolver.resolveVersion('fastapi'));
    expect([error.code, error.recoverable]).toEqual(['REGISTRY_UNREACHABLE', true]);
    expect(error.details?.failure).toBe('connection-refused');
    expect(error.message).toContain('could not be reached');
    await kernel.stop();
  });

  it('reports an index that does not answer within timeoutMs as REGISTRY_TIMEOUT, whatever the HTTP deadline', async () => {
    // the registry's own deadline wins over the client's 30 s, so a hung index costs resolve-library 0.6 s
    const { kernel, resolver } = await kernelWith({ url: pypi.url, timeoutMs: 600 }, { http: { timeoutMs: 30_000 } });
    kernels.push(kernel);
    pypi.fault({ hang: true });
    const error = await catalogErrorOf(resolver.lookup('fastapi'));
    expect(error.code).toBe('REGISTRY_TIMEOUT');
    expect(error.message).toContain('did not answer within 0.6 s');
    expect(error.details).toMatchObject({ failure: 'timeout', timeoutMs: 600 });
  });

  it('reports 5xx answers as REGISTRY_ERROR after the client retried them', async () => {
    const resolver = await resolverFor();
    pypi.fault({ status: 503 });
    const error = await catalogErrorOf(resolver.lookup('fastapi'));
    expect([error.code, error.message]).toEqual(['REGISTRY_ERROR', expect.stringContaining('HTTP 503')]);
    expect(error.details?.failure).toBe('http-5xx');
    expect(pypi.count('/pypi/fastapi/json')).toBe(3);
  });

  it('reports a 429 as RATE_LIMITED with the index Retry-After', async () => {
    const resolver = await resolverFor();
    pypi.fault({ status: 429, retryAfter: 120 });
    const error = await catalogErrorOf(resolver.lookup('fastapi'));
    expect([error.code, error.retryAfter]).toEqual(['RATE_LIMITED', 120]);
  });

  it('reports an answer that is not JSON as REGISTRY_ERROR naming the configured URL', async () => {
    const resolver = await resolverFor();
    pypi.fault({ status: 200, body: '<html>captive portal</html>' });
    const error = await catalogErrorOf(resolver.lookup('fastapi'));
    expect([error.code, error.suggestion]).toEqual(['REGISTRY_ERROR', expect.stringContaining(pypi.url)]);
    expect(error.details?.failure).toBe('invalid-body');
  });

  it('passes the caller signal through: an abort ends the request at once with the abort reason', async () => {
    const resolver = await resolverFor();
    pypi.fault({ hang: true });
    const controller = new AbortController();
    const pending = resolver.resolveVersion('fastapi', undefined, { signal: controller.signal });
    await vi.waitFor(() => expect(pypi.count('/pypi/fastapi/json')).toBe(1));
    const reason = new Error('the agent cancelled');
    controller.abort(reason);
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBe(reason);
    expect(isProContextError(error)).toBe(false);
  });
});

describe('no test leaves the machine', () => {
  it('uses only loopback fakes: the kernels of this file resolve no DNS name at all', async () => {
    const error = await new Promise<Error | null>((resolve) => noDns('pypi.org', {}, (e) => resolve(e)));
    expect(error?.message).toContain('tests resolve no names');
    expect(new URL(pypi.url).hostname).toBe('127.0.0.1');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FakeRegistry,
  fakeNpmPackages,
  fakePypiProjects,
  NPM_ABBREVIATED_MEDIA_TYPE,
  startFakeNpm,
  startFakePypi,
} from '../src/index.js';

// These tests read the fakes with fetch: they check the fakes themselves, not code that uses them.
const get = async (url: string, accept?: string) => {
  const response = await fetch(url, { redirect: 'manual', ...(accept ? { headers: { accept } } : {}) });
  const text = await response.text();
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    location: response.headers.get('location'),
    body: text ? (JSON.parse(text) as Record<string, any>) : undefined,
  };
};

describe('startFakePypi', () => {
  let pypi: FakeRegistry;
  beforeAll(async () => {
    pypi = await startFakePypi(fakePypiProjects);
  });
  afterAll(() => pypi.close());

  it('serves a project as the JSON API does: info, releases with files, urls of the latest', async () => {
    const { status, body } = await get(`${pypi.url}/pypi/pydantic/json`);
    expect(status).toBe(200);
    expect(Object.keys(body ?? {}).sort()).toEqual(['info', 'last_serial', 'releases', 'urls', 'vulnerabilities']);
    expect(body?.info).toMatchObject({
      name: 'pydantic',
      version: '2.11.7',
      summary: 'Data validation using Python type hints',
    });
    expect(body?.info.project_urls.Documentation).toBe('https://docs.pydantic.dev');
    const yanked = body?.releases['2.10.5'] as Record<string, unknown>[];
    expect(yanked.map((f) => [f.packagetype, f.yanked])).toEqual([
      ['sdist', true],
      ['bdist_wheel', true],
    ]);
    expect(yanked[0]?.yanked_reason).toContain('fixture');
    expect(body?.releases['2.11.0'][1].upload_time_iso_8601).toBe('2025-03-27T15:02:51.000000Z');
    expect(body?.urls.map((f: { filename: string }) => f.filename)).toEqual([
      'pydantic-2.11.7.tar.gz',
      'pydantic-2.11.7-py3-none-any.whl',
    ]);
  });

  it('serves one release, 404s as PyPI does, and redirects another spelling to the project own', async () => {
    const release = await get(`${pypi.url}/pypi/pydantic/1.10.22/json`);
    expect([release.status, release.body?.info.version, release.body?.releases]).toEqual([200, '1.10.22', undefined]);
    expect(await get(`${pypi.url}/pypi/pydantic/9.9/json`)).toMatchObject({
      status: 404,
      body: { message: 'Not Found' },
    });
    expect(await get(`${pypi.url}/pypi/nothing/json`)).toMatchObject({ status: 404, body: { message: 'Not Found' } });
    const moved = await get(`${pypi.url}/pypi/Typing-Extensions/json`);
    expect([moved.status, moved.location]).toEqual([301, `${pypi.url}/pypi/typing_extensions/json`]);
  });

  it('counts requests and plays faults a given number of times', async () => {
    pypi.requests.length = 0;
    pypi.fault({ path: '/fastapi/', status: 503, times: 1 });
    expect((await get(`${pypi.url}/pypi/fastapi/json`)).status).toBe(503);
    expect((await get(`${pypi.url}/pypi/fastapi/json`)).status).toBe(200);
    expect(pypi.count('/pypi/fastapi/json')).toBe(2);
    expect(pypi.requests.map((r) => r.status)).toEqual([503, 200]);
  });
});

describe('startFakeNpm', () => {
  let npm: FakeRegistry;
  beforeAll(async () => {
    npm = await startFakeNpm(fakeNpmPackages);
  });
  afterAll(() => npm.close());

  it('serves the full packument, or the abbreviated one when asked for it', async () => {
    const full = await get(`${npm.url}react`);
    expect(full.type).toBe('application/json');
    expect(full.body?.['dist-tags'].latest).toBe('19.2.0');
    expect(full.body?.time['18.2.0']).toBe('2022-06-14T19:46:38.000Z');
    expect(full.body?.repository.url).toBe('git+https://github.com/facebook/react.git');
    const short = await get(`${npm.url}zod`, `${NPM_ABBREVIATED_MEDIA_TYPE}; q=1.0, application/json; q=0.8, */*`);
    expect(short.type).toBe(NPM_ABBREVIATED_MEDIA_TYPE);
    expect(Object.keys(short.body ?? {}).sort()).toEqual(['dist-tags', 'modified', 'name', 'versions']);
    expect(short.body?.versions['3.24.0'].deprecated).toContain('fixture');
    expect(short.body?.versions['3.24.0'].dist.tarball).toBe(`${npm.origin}/zod/-/zod-3.24.0.tgz`);
  });

  it('answers a scoped name in each spelling, one version or tag, and 404s as the registry does', async () => {
    for (const path of ['@tanstack%2freact-query', '@tanstack%2Freact-query', '@tanstack/react-query']) {
      expect((await get(`${npm.url}${path}`)).body?.name).toBe('@tanstack/react-query');
    }
    expect((await get(`${npm.url}@tanstack%2freact-query/previous`)).body?.version).toBe('4.41.0');
    expect(await get(`${npm.url}left-pad`)).toMatchObject({ status: 404, body: { error: 'Not found' } });
  });

  it('searches names, descriptions and keywords', async () => {
    const { body } = await get(`${npm.url}-/v1/search?text=react&size=5`);
    expect(body?.objects.map((o: { package: { name: string } }) => o.package.name)).toEqual([
      'react',
      '@tanstack/react-query',
    ]);
    expect(body?.total).toBe(2);
  });

  it('lives under a path when asked, as Artifactory and Nexus registries do', async () => {
    const mounted = await startFakeNpm(fakeNpmPackages, { basePath: '/api/npm/remote' });
    expect(mounted.url).toBe(`${mounted.origin}/api/npm/remote/`);
    expect((await get(`${mounted.url}react`)).status).toBe(200);
    expect((await get(`${mounted.origin}/react`)).status).toBe(404);
    await mounted.close();
  });
});

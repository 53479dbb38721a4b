import type { FakeNpmPackage, FakeNpmVersion } from './npm.js';
import type { FakePypiProject, FakePypiRelease } from './pypi.js';

// Fixtures shaped like the real projects: names, URLs, version lines and publish dates follow the real
// registries closely, but they are samples (many releases left out, dates approximate). Two facts are made
// up for tests and marked: pydantic's yanked release and the deprecated zod release.

const releases = (rows: [string, string][], extra: Record<string, Partial<FakePypiRelease>> = {}): FakePypiRelease[] =>
  rows.map(([version, uploadedAt]) => ({ version, uploadedAt: `${uploadedAt}Z`, ...extra[version] }));

const versions = (rows: [string, string][], extra: Record<string, Partial<FakeNpmVersion>> = {}): FakeNpmVersion[] =>
  rows.map(([version, publishedAt]) => ({ version, publishedAt: `${publishedAt}Z`, ...extra[version] }));

/** fastapi: 0.x only, a documentation site and a GitHub repository in `project_urls`. */
export const fakeFastapi: FakePypiProject = {
  name: 'fastapi',
  summary: 'FastAPI framework, high performance, easy to learn, fast to code, ready for production',
  requiresPython: '>=3.8',
  license: 'MIT',
  projectUrls: {
    Homepage: 'https://github.com/fastapi/fastapi',
    Documentation: 'https://fastapi.tiangolo.com/',
    Repository: 'https://github.com/fastapi/fastapi',
    Issues: 'https://github.com/fastapi/fastapi/issues',
    Changelog: 'https://fastapi.tiangolo.com/release-notes/',
  },
  releases: releases([
    ['0.95.2', '2023-05-16T20:35:17.000'],
    ['0.100.0', '2023-07-07T16:35:22.000'],
    ['0.100.1', '2023-07-27T21:50:40.000'],
    ['0.110.0', '2024-02-24T20:31:03.000'],
    ['0.111.0', '2024-05-03T15:24:13.000'],
    ['0.115.0', '2024-09-17T17:04:36.000'],
    ['0.115.5', '2024-11-12T20:46:18.000'],
    ['0.115.6', '2024-12-03T22:37:42.000'],
    ['0.115.12', '2025-03-23T22:55:43.000'],
    ['0.116.0', '2025-07-07T15:09:27.000'],
    ['0.116.1', '2025-07-11T16:22:02.000'],
  ]),
};

/**
 * pydantic: a 2.x line and a 1.x line still released after it (so upload order is not version order),
 * alphas, betas and release candidates, and one yanked release (2.10.5: made up for tests).
 */
export const fakePydantic: FakePypiProject = {
  name: 'pydantic',
  summary: 'Data validation using Python type hints',
  requiresPython: '>=3.8',
  license: 'MIT',
  projectUrls: {
    Homepage: 'https://github.com/pydantic/pydantic',
    Documentation: 'https://docs.pydantic.dev',
    Funding: 'https://github.com/sponsors/samuelcolvin',
    Source: 'https://github.com/pydantic/pydantic',
    Changelog: 'https://docs.pydantic.dev/latest/changelog/',
  },
  releases: releases(
    [
      ['1.10.7', '2023-03-22T15:05:49.000'],
      ['2.0a1', '2023-04-03T14:53:34.000'],
      ['2.0b1', '2023-06-01T11:42:07.000'],
      ['2.0b3', '2023-06-16T18:30:08.000'],
      ['1.10.9', '2023-06-07T21:59:24.000'],
      ['2.0', '2023-06-30T17:31:15.000'],
      ['2.0.1', '2023-07-04T22:17:40.000'],
      ['1.10.13', '2023-09-27T18:42:41.000'],
      ['2.5.3', '2023-12-22T10:13:44.000'],
      ['1.10.14', '2024-01-16T16:35:16.000'],
      ['2.7.0b1', '2024-04-03T20:37:45.000'],
      ['2.7.0', '2024-04-11T14:39:44.000'],
      ['2.9.2', '2024-09-17T15:59:51.000'],
      ['2.10.0b1', '2024-11-06T18:10:02.000'],
      ['1.10.19', '2024-11-06T20:56:43.000'],
      ['2.10.0', '2024-11-20T18:42:35.000'],
      ['2.10.4', '2024-12-18T17:09:18.000'],
      ['2.10.5', '2025-01-09T13:39:12.000'],
      ['2.10.6', '2025-01-24T01:42:10.000'],
      ['2.11.0a1', '2025-01-30T17:27:01.000'],
      ['2.11.0a2', '2025-02-10T18:29:34.000'],
      ['2.11.0b1', '2025-03-06T16:27:50.000'],
      ['2.11.0rc1', '2025-03-21T08:05:35.000'],
      ['2.11.0', '2025-03-27T15:02:51.000'],
      ['1.10.22', '2025-05-07T11:29:54.000'],
      ['2.11.7', '2025-06-14T08:33:14.000'],
      ['2.12.0a1', '2025-07-26T13:03:41.000'],
    ],
    { '2.10.5': { yanked: 'Regression in model validation; use 2.10.6 (fixture)' } },
  ),
};

/** typing_extensions: a project whose own spelling is not its PEP 503 name (`typing-extensions`). */
export const fakeTypingExtensions: FakePypiProject = {
  name: 'typing_extensions',
  summary: 'Backported and Experimental Type Hints for Python 3.9+',
  requiresPython: '>=3.9',
  projectUrls: {
    Home: 'https://github.com/python/typing_extensions',
    Repository: 'https://github.com/python/typing_extensions',
    Changes: 'https://github.com/python/typing_extensions/blob/main/CHANGELOG.md',
    Documentation: 'https://typing-extensions.readthedocs.io/',
    'Bug Tracker': 'https://github.com/python/typing_extensions/issues',
  },
  releases: releases([
    ['4.9.0', '2023-12-10T00:57:33.000'],
    ['4.12.2', '2024-06-07T18:52:13.000'],
    ['4.13.0rc1', '2025-03-18T19:41:16.000'],
    ['4.13.0', '2025-03-26T03:49:40.000'],
    ['4.14.0', '2025-06-02T14:52:10.000'],
  ]),
};

/** The PyPI fixtures: fastapi, pydantic, typing_extensions. */
export const fakePypiProjects: readonly FakePypiProject[] = [fakeFastapi, fakePydantic, fakeTypingExtensions];

/** react: dist-tags `latest`, `next`, `canary`, `rc`, `beta`; a 17.x and an 18.x line. */
export const fakeReact: FakeNpmPackage = {
  name: 'react',
  description: 'React is a JavaScript library for building user interfaces.',
  homepage: 'https://react.dev/',
  repository: { type: 'git', url: 'git+https://github.com/facebook/react.git', directory: 'packages/react' },
  bugs: { url: 'https://github.com/facebook/react/issues' },
  license: 'MIT',
  keywords: ['react'],
  distTags: {
    latest: '19.2.0',
    next: '19.3.0-canary-4fdf7cf2-20251003',
    canary: '19.3.0-canary-4fdf7cf2-20251003',
    rc: '19.0.0-rc.1',
    beta: '19.0.0-beta-26f2496093-20240514',
  },
  versions: versions([
    ['16.14.0', '2020-10-14T16:19:50.000'],
    ['17.0.0', '2020-10-20T20:19:53.000'],
    ['17.0.1', '2020-10-22T13:28:17.000'],
    ['17.0.2', '2021-03-22T21:56:19.000'],
    ['18.0.0', '2022-03-29T15:59:42.000'],
    ['18.2.0', '2022-06-14T19:46:38.000'],
    ['18.3.0', '2024-04-25T17:36:33.000'],
    ['18.3.1', '2024-04-26T16:42:39.000'],
    ['19.0.0-beta-26f2496093-20240514', '2024-05-14T15:10:07.000'],
    ['19.0.0-rc.1', '2024-11-14T23:42:48.000'],
    ['19.0.0', '2024-12-05T18:07:38.000'],
    ['19.1.0', '2025-03-28T19:59:42.000'],
    ['19.1.1', '2025-07-28T19:16:35.000'],
    ['19.2.0', '2025-10-01T21:38:45.000'],
    ['19.3.0-canary-4fdf7cf2-20251003', '2025-10-03T16:19:20.000'],
  ]),
};

/** zod: a 3.x and a 4.x line, betas, and one deprecated release (3.24.0: made up for tests). */
export const fakeZod: FakeNpmPackage = {
  name: 'zod',
  description: 'TypeScript-first schema declaration and validation library with static type inference',
  homepage: 'https://zod.dev',
  repository: { type: 'git', url: 'git+https://github.com/colinhacks/zod.git' },
  bugs: { url: 'https://github.com/colinhacks/zod/issues' },
  license: 'MIT',
  keywords: ['typescript', 'schema', 'validation', 'type', 'inference'],
  versions: versions(
    [
      ['3.22.4', '2023-10-04T22:50:10.000'],
      ['3.23.0', '2024-04-19T00:12:40.000'],
      ['3.23.8', '2024-05-08T20:50:17.000'],
      ['3.24.0', '2024-12-10T04:26:14.000'],
      ['3.24.1', '2024-12-11T00:40:46.000'],
      ['3.25.0-beta.20250508T232436', '2025-05-08T23:25:18.000'],
      ['3.25.76', '2025-07-08T09:11:39.000'],
      ['4.0.0-beta.20250710T013516', '2025-07-10T01:35:47.000'],
      ['4.0.0', '2025-07-10T02:25:54.000'],
      ['4.0.5', '2025-07-14T06:19:07.000'],
      ['4.1.0', '2025-08-19T06:31:21.000'],
      ['4.1.12', '2025-10-06T01:53:12.000'],
    ],
    { '3.24.0': { deprecated: 'Broken type inference; use 3.24.1 (fixture)' } },
  ),
};

/** @tanstack/react-query: a scoped package with a v4 and a v5 line and its own `previous` tag. */
export const fakeTanstackReactQuery: FakeNpmPackage = {
  name: '@tanstack/react-query',
  description: 'Hooks for managing, caching and syncing asynchronous and remote data in React',
  homepage: 'https://tanstack.com/query',
  repository: { type: 'git', url: 'git+https://github.com/TanStack/query.git', directory: 'packages/react-query' },
  bugs: { url: 'https://github.com/TanStack/query/issues' },
  license: 'MIT',
  keywords: ['react', 'query', 'cache'],
  distTags: { latest: '5.90.2', previous: '4.41.0', beta: '5.0.0-beta.35' },
  versions: versions(
    [
      ['4.29.5', '2023-04-21T07:16:41.000'],
      ['4.36.1', '2023-10-02T12:01:18.000'],
      ['5.0.0-beta.35', '2023-10-10T09:12:40.000'],
      ['5.0.0', '2023-10-17T08:31:22.000'],
      ['5.8.4', '2023-11-13T06:13:11.000'],
      ['5.59.0', '2024-10-01T07:47:03.000'],
      ['5.62.8', '2024-12-16T12:04:15.000'],
      ['4.41.0', '2025-06-27T11:33:45.000'],
      ['5.90.2', '2025-09-23T11:56:41.000'],
    ],
    { '4.29.5': { peerDependencies: { react: '^16.8.0 || ^17.0.0 || ^18.0.0' } } },
  ),
};

/** request: every release deprecated, as the real package is since 2020. */
export const fakeRequest: FakeNpmPackage = {
  name: 'request',
  description: 'Simplified HTTP request client.',
  homepage: 'https://github.com/request/request#readme',
  repository: { type: 'git', url: 'git+https://github.com/request/request.git' },
  license: 'Apache-2.0',
  versions: versions(
    [
      ['2.88.0', '2018-07-17T14:41:11.000'],
      ['2.88.2', '2020-02-11T16:38:45.000'],
    ],
    {
      '2.88.0': { deprecated: 'request has been deprecated, see https://github.com/request/request/issues/3142' },
      '2.88.2': { deprecated: 'request has been deprecated, see https://github.com/request/request/issues/3142' },
    },
  ),
};

/** The npm fixtures: react, zod, @tanstack/react-query, request. */
export const fakeNpmPackages: readonly FakeNpmPackage[] = [fakeReact, fakeZod, fakeTanstackReactQuery, fakeRequest];

import {
  type LibraryDescriptor,
  type SourceAdapter,
  type StartedKernel,
  sourceAdapterToken,
} from '@pro-context/kernel';
import { createLogger } from '@pro-context/logging';
import {
  catalogErrorOf,
  corpusRepos,
  createTestKernel,
  describeSourceAdapterContract,
  type FakeGithub,
  type FakeGithubRepo,
  findCorpusRoot,
  startFakeGithub,
} from '@pro-context/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type GithubPluginOptionsInput, GithubSourceAdapter, githubPlugin } from '../src/index.js';

const corpusRoot = findCorpusRoot();
const skip = corpusRoot ? false : 'the corpora in ../shared/corpora are absent';

/** Repositories made inline: tag formats, a README-only repository, reStructuredText docs. */
const inlineRepos: FakeGithubRepo[] = [
  {
    fullName: 'acme/monorepo',
    files: { 'docs/index.md': '# Head docs\n\nOn the default branch.\n' },
    tags: [
      { name: 'widgets@1.2.3', files: { 'docs/index.md': '# Widgets 1.2.3\n\nwidgets-one-two-three.\n' } },
      { name: 'widgets-v2.0.0', files: { 'docs/index.md': '# Widgets 2.0.0\n\nwidgets-two.\n' } },
      { name: 'other@9.9.9', files: { 'docs/index.md': '# Other\n' } },
    ],
  },
  {
    fullName: 'acme/readme-only',
    files: {
      'README.md':
        '# Readme Only\n\nA library with no docs folder.\n\n## Installation\n\n`pip install readme-only`\n\n## Usage\n\nCall `go()`.\n\n### Options\n\nPass `fast=True` to go faster.\n',
      'src/main.py': 'print(1)\n',
    },
  },
  {
    fullName: 'acme/sphinx',
    files: {
      'doc/index.rst':
        'Sphinx Project\n==============\n\nWelcome. See :func:`sphinx.build` and `the site <https://example.com>`_.\n\nInstall\n-------\n\nRun this::\n\n    pip install sphinx-project\n\n.. code-block:: python\n\n   import sphinx_project\n   sphinx_project.run(fast=True)\n\n.. note::\n\n   Notes become bold labels.\n',
    },
  },
];

async function kernelWith(
  github: FakeGithub,
  options: GithubPluginOptionsInput = {},
  extra: { env?: Record<string, string>; logs?: string[] } = {},
): Promise<{ kernel: StartedKernel; adapter: SourceAdapter }> {
  const kernel = await createTestKernel({
    plugins: [[githubPlugin, { apiUrl: github.apiUrl, rawUrl: github.rawUrl, ...options }]],
    ...(extra.env ? { env: extra.env } : {}),
    ...(extra.logs
      ? {
          logger: createLogger({
            level: 'debug',
            stream: { write: (line: string) => Boolean(extra.logs?.push(line)) },
          }),
        }
      : {}),
  });
  const adapter = kernel.resolveAll(sourceAdapterToken).find((a) => a.id === 'github');
  if (!adapter) throw new Error('github adapter not bound');
  return { kernel, adapter };
}

/** What the adapter reports for pro-context://health. */
const healthOf = (adapter: SourceAdapter): any => (adapter.health ? adapter.health() : {});

const lib = (repository: string, extra: Partial<LibraryDescriptor> = {}): LibraryDescriptor => ({
  id: repository.split('/')[1] as string,
  name: repository.split('/')[1] as string,
  repository,
  ...extra,
});

describe.skipIf(skip)(`the GitHub source adapter${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let github: FakeGithub;
  beforeAll(async () => {
    github = await startFakeGithub([...corpusRepos(corpusRoot as string), ...inlineRepos]);
  });
  afterAll(async () => {
    await github?.close();
  });
  beforeEach(() => {
    github.requests.length = 0;
    github.setRateLimit({ remaining: 5000, limit: 5000 });
    github.fault();
  });

  describeSourceAdapterContract('github', {
    async create() {
      return (await kernelWith(github)).adapter;
    },
    library: lib('pydantic/pydantic'),
    foreignLibrary: { id: 'nope', name: 'Nope', docsUrl: 'https://example.com' },
  });

  it('binds one adapter with priority 20, and nothing when disabled', async () => {
    const { kernel, adapter } = await kernelWith(github);
    expect(adapter).toBeInstanceOf(GithubSourceAdapter);
    expect([adapter.id, adapter.priority]).toEqual(['github', 20]);
    await kernel.stop();
    const off = await createTestKernel({ plugins: [[githubPlugin, { enabled: false }]] });
    expect(off.resolveAll(sourceAdapterToken)).toEqual([]);
    await off.stop();
  });

  it('handles a library whose repository is owner/repo or a GitHub URL, and no other', async () => {
    const { kernel, adapter } = await kernelWith(github);
    for (const repository of [
      'encode/httpx',
      'https://github.com/encode/httpx',
      'git+https://github.com/encode/httpx.git',
      'git@github.com:encode/httpx.git',
    ]) {
      expect(adapter.canHandle(lib('encode/httpx', { repository })), repository).toBe(true);
    }
    expect(adapter.canHandle({ id: 'x', name: 'X', repository: 'https://gitlab.com/a/b' })).toBe(false);
    expect(adapter.canHandle({ id: 'x', name: 'X', docsUrl: 'https://x.dev' })).toBe(false);
    expect(adapter.canHandle(lib('encode/httpx', { source: 'llms-txt' }))).toBe(false);
    expect(adapter.canHandle({ id: 'x', name: 'X', sources: { github: { repo: 'encode/httpx' } } })).toBe(true);
    await kernel.stop();
  });

  it('reads a docs folder of hundreds of files with a handful of requests (tree + one tarball)', async () => {
    const { kernel, adapter } = await kernelWith(github);
    const fastapi = lib('fastapi/fastapi', { docsPath: 'docs/en/docs' });
    const toc = await adapter.fetchToc(fastapi, 'latest');
    const docs = await adapter.fetchDocs(fastapi, 'latest');
    expect(docs.pages.length).toBeGreaterThan(100);
    expect(toc.entries.length).toBe(docs.pages.length);
    expect(toc.entries.map((e) => e.title)).toContain('Dependencies with yield');
    const tutorial = toc.entries.find((e) =>
      e.url.endsWith('/docs/en/docs/tutorial/dependencies/dependencies-with-yield.md'),
    );
    expect(tutorial?.section).toBe('Tutorial / Dependencies');
    expect(tutorial?.url.startsWith(`${github.rawUrl}/fastapi/fastapi/master/`)).toBe(true);
    // its `{* ../../docs_src/… *}` includes are put in place from the same tarball (docs_src/ at the root)
    const withYield = docs.pages.find((p) => p.url === tutorial?.url)?.markdown ?? '';
    expect(withYield).not.toMatch(/\{\*.*docs_src/);
    expect(withYield).toMatch(/```python\n[\s\S]*yield db/);
    // repo metadata, the tree, the tarball and its download: nothing per file
    expect(github.count(), JSON.stringify(github.requests.map((r) => r.path))).toBeLessThanOrEqual(5);
    expect(github.count('/tarball/')).toBe(1);
    expect(github.count('/raw/')).toBe(0);
    await kernel.stop();
  });

  it('finds the docs folder by itself, and reads a small one file by file from the raw host', async () => {
    const { kernel, adapter } = await kernelWith(github, { rawFileLimit: 1000 });
    const docs = await adapter.fetchDocs(lib('pydantic/pydantic'), 'latest');
    expect(docs.pages.length).toBe(89);
    expect(docs.pages.every((p) => p.url.includes('/pydantic/pydantic/main/docs/'))).toBe(true);
    expect(github.count('/raw/')).toBe(89);
    expect(github.count('/tarball/')).toBe(0);
    await kernel.stop();
  });

  it('serves the files at the tag of the requested version, and the default branch for latest', async () => {
    const { kernel, adapter } = await kernelWith(github);
    const pydantic = lib('pydantic/pydantic');
    expect(await adapter.docVersions?.(pydantic)).toEqual({ kind: 'list', versions: ['2.11.0', '1.10.0'] });
    const v1 = await adapter.fetchDocs(pydantic, '1.10.0');
    expect(v1.pages.map((p) => p.title).sort()).toEqual(['Models', 'Validators', 'pydantic v1.10']);
    expect(v1.pages[0]?.url).toContain('/pydantic/pydantic/v1.10.0/docs/');
    expect(v1.pages.map((p) => p.markdown).join('\n')).toContain('pydantic-v1-docs');
    const latest = await adapter.fetchDocs(pydantic, 'latest');
    expect(latest.pages.map((p) => p.markdown).join('\n')).not.toContain('pydantic-v1-docs');

    const widgets = lib('acme/monorepo', { id: 'widgets', name: 'Widgets', packages: { npm: 'widgets' } });
    expect(await adapter.docVersions?.(widgets)).toEqual({ kind: 'list', versions: ['1.2.3', '2.0.0'] });
    expect((await adapter.fetchDocs(widgets, '1.2.3')).pages[0]?.markdown).toContain('widgets-one-two-three');
    expect((await adapter.fetchDocs(widgets, '2.0.0')).pages[0]?.markdown).toContain('widgets-two');
    expect((await adapter.fetchDocs(widgets, 'latest')).pages[0]?.markdown).toContain('On the default branch');
    const httpx = lib('encode/httpx');
    expect(
      (await adapter.fetchDocs(httpx, '0.27.0')).pages.find((p) => p.url.endsWith('/docs/index.md'))?.markdown,
    ).toContain('httpx-0-27-0');
    await kernel.stop();
  });

  it('makes the README headings the TOC when there is no docs folder', async () => {
    const { kernel, adapter } = await kernelWith(github);
    const toc = await adapter.fetchToc(lib('acme/readme-only'), 'latest');
    expect(toc.entries.map((e) => [e.title, e.url.split('#')[1]])).toEqual([
      ['Installation', 'installation'],
      ['Usage', 'usage'],
      ['Options', 'options'],
    ]);
    const docs = await adapter.fetchDocs(lib('acme/readme-only'), 'latest');
    expect(docs.pages).toHaveLength(1);
    expect(docs.pages[0]?.markdown).toContain('fast=True');
    await kernel.stop();
  });

  it('converts reStructuredText to markdown', async () => {
    const { kernel, adapter } = await kernelWith(github);
    const docs = await adapter.fetchDocs(lib('acme/sphinx'), 'latest');
    const markdown = docs.pages[0]?.markdown ?? '';
    expect(docs.pages[0]?.title).toBe('Sphinx Project');
    expect(markdown).toContain('# Sphinx Project');
    expect(markdown).toContain('## Install');
    expect(markdown).toContain('```python\nimport sphinx_project\nsphinx_project.run(fast=True)\n```');
    expect(markdown).toContain('```\npip install sphinx-project\n```');
    expect(markdown).toContain('`sphinx.build`');
    expect(markdown).toContain('[the site](https://example.com)');
    expect(markdown).toContain('**Note**');
    await kernel.stop();
  });

  it('serves MDX docs from a configured folder', async () => {
    const { kernel, adapter } = await kernelWith(github);
    const zod = lib('colinhacks/zod', { sources: { github: { docsPath: 'packages/docs/content' } } });
    const toc = await adapter.fetchToc(zod, 'latest');
    expect(toc.entries.length).toBeGreaterThan(10);
    expect(toc.entries.every((e) => e.url.endsWith('.mdx'))).toBe(true);
    await kernel.stop();
  });

  it('answers read-page for raw and blob URLs of the repositories it handles', async () => {
    const { kernel, adapter } = await kernelWith(github, { webUrl: `${github.origin}/web` });
    const httpx = lib('encode/httpx');
    expect(adapter.canHandle(httpx)).toBe(true);
    const raw = new URL(`${github.rawUrl}/encode/httpx/0.27.0/docs/quickstart.md`);
    const blob = new URL(`${github.origin}/web/encode/httpx/blob/0.27.0/docs/quickstart.md`);
    expect(adapter.ownsUrl?.(raw)).toBe(true);
    expect(adapter.ownsUrl?.(blob)).toBe(true);
    expect(adapter.ownsUrl?.(new URL(`${github.rawUrl}/someone/else/main/README.md`))).toBe(false);
    const page = await adapter.fetchPage?.(blob);
    expect(page?.title).toBe('QuickStart');
    expect(page?.finalUrl).toBe(raw.href);
    const missing = await catalogErrorOf(
      adapter.fetchPage?.(new URL(`${github.rawUrl}/encode/httpx/0.27.0/docs/nope.md`)) as Promise<unknown>,
    );
    expect(missing.code).toBe('PAGE_NOT_FOUND');
    await kernel.stop();
  });

  it('revalidates with the ETag: unchanged docs are fresh after a 304 that costs no rate limit', async () => {
    const { kernel, adapter } = await kernelWith(github);
    const httpx = lib('encode/httpx');
    const docs = await adapter.fetchDocs(httpx, 'latest');
    expect(docs.freshness.etag).toBeTruthy();
    github.requests.length = 0;
    expect(await adapter.checkFreshness(httpx, 'latest', docs.freshness)).toBe('fresh');
    const tree = github.requests.find((r) => r.path.includes('/git/trees/'));
    expect(tree).toMatchObject({ status: 304, ifNoneMatch: docs.freshness.etag });
    // a change of the docs folder is seen
    github.setRepo({
      fullName: 'encode/httpx',
      dir: `${corpusRoot}/httpx`,
      files: { 'docs/new-page.md': '# New\n' },
    });
    expect(await adapter.checkFreshness(httpx, 'latest', docs.freshness)).toBe('changed');
    github.setRepo(corpusRepos(corpusRoot as string).find((r) => r.fullName === 'encode/httpx') as never);
    await kernel.stop();
  });

  it('reads the rate limit, shows it in health, and refuses locally with RATE_LIMITED when it is exhausted', async () => {
    const { kernel, adapter } = await kernelWith(github, { reuseSeconds: 0 });
    await adapter.fetchToc(lib('acme/readme-only'), 'latest');
    const health = healthOf(adapter);
    expect(health.rateLimit.limit).toBe(5000);
    expect(health.rateLimit.remaining).toBeLessThan(5000);
    expect(health.authenticated).toBe(false);

    const reset = Math.floor(Date.now() / 1000) + 120;
    github.setRateLimit({ remaining: 0, reset });
    const error = await catalogErrorOf(adapter.fetchToc(lib('acme/readme-only'), 'latest'));
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.retryAfter).toBeGreaterThan(100);
    expect(error.retryAfter).toBeLessThanOrEqual(120);
    expect(error.message).toMatch(/rate limit is exhausted/);
    expect(error.suggestion).toMatch(/sources\.github\.token/);
    expect(healthOf(adapter).rateLimit.remaining).toBe(0);
    // known to be exhausted: the next call is refused without a request
    const before = github.count();
    expect((await catalogErrorOf(adapter.fetchDocs(lib('acme/readme-only'), 'latest'))).code).toBe('RATE_LIMITED');
    expect(github.count()).toBe(before);
    // and its versions fall back to the latest instead of failing
    expect(await adapter.docVersions?.(lib('acme/monorepo'))).toEqual({ kind: 'latest' });
    await kernel.stop();
  });

  it('sends the token (from PRO_CONTEXT_GITHUB_TOKEN) and never logs it', async () => {
    const logs: string[] = [];
    const token = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    const { kernel, adapter } = await kernelWith(github, {}, { env: { PRO_CONTEXT_GITHUB_TOKEN: token }, logs });
    await adapter.fetchDocs(lib('acme/sphinx'), 'latest');
    expect(github.requests.filter((r) => r.path.startsWith('/repos/')).every((r) => r.authorized)).toBe(true);
    expect(healthOf(adapter).authenticated).toBe(true);
    expect(logs.length).toBeGreaterThan(0);
    expect(logs.join('\n')).not.toContain(token);
    expect(JSON.stringify(healthOf(adapter))).not.toContain(token);
    await kernel.stop();
  });

  it('takes its API URL from PRO_CONTEXT_GITHUB_API_URL (GitHub Enterprise), raw files from {origin}/raw', async () => {
    const kernel = await createTestKernel({
      plugins: [githubPlugin],
      env: { PRO_CONTEXT_GITHUB_API_URL: github.apiUrl },
    });
    const adapter = kernel.resolveAll(sourceAdapterToken)[0] as SourceAdapter;
    const toc = await adapter.fetchToc(lib('acme/readme-only'), 'latest');
    expect(toc.entries[0]?.url.startsWith(`${github.origin}/raw/acme/readme-only/main/README.md#`)).toBe(true);
    expect(kernel.allowlist.isAllowed(toc.entries[0]?.url as string)).toBe(true);
    await kernel.stop();
  });

  it('says what is wrong for a repository GitHub does not have', async () => {
    const { kernel, adapter } = await kernelWith(github);
    const error = await catalogErrorOf(adapter.fetchToc(lib('acme/missing'), 'latest'));
    expect(error.code).toBe('SOURCE_UNAVAILABLE');
    expect(error.message).toContain('acme/missing');
    expect(error.recoverable).toBe(false);
    await kernel.stop();
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { corpusRepos, type FakeGithub, startFakeGithub } from '@pro-context/testing';
import type { FakeWeb } from '@pro-context/testing/fake-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, corpusRoot, errorOf, offlineRegistries, skipReason, startCorpusWeb } from './helpers.js';

/**
 * The built stdio server with the GitHub source against a loopback GitHub serving the corpora as repositories
 * (`startFakeGithub`): HTTPX configured with nothing but its repository URL (no docs site, no llms.txt, no
 * registry), Pydantic with an llms.txt on the fake web and a repository too.
 */
describe.skipIf(skipReason)(
  `GitHub as a documentation source, through stdio${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let github: FakeGithub;
    let web: FakeWeb;
    let dir: string;
    let server: Awaited<ReturnType<typeof connectStdio>>;

    beforeAll(async () => {
      github = await startFakeGithub([
        ...corpusRepos(corpusRoot as string),
        { fullName: '567-labs/instructor', dir: join(corpusRoot as string, 'instructor') },
      ]);
      web = await startCorpusWeb();
      dir = mkdtempSync(join(tmpdir(), 'pc-github-e2e-'));
      const config = {
        security: { allowPrivateNetwork: true },
        http: { retryDelaysMs: [10, 20], timeoutMs: 10000 },
        cache: { directory: join(dir, 'cache') },
        ...offlineRegistries,
        project: { autoDetect: false },
        sources: { github: { apiUrl: github.apiUrl, rawUrl: github.rawUrl } },
        libraries: [
          { id: 'httpx', name: 'HTTPX', repository: 'https://github.com/encode/httpx' },
          {
            id: 'pydantic',
            name: 'Pydantic',
            repository: 'pydantic/pydantic',
            sources: { llmsTxt: { llmsTxtUrl: web.llmsTxtUrl('pydantic') } },
          },
          {
            // its real llms.txt is a 23 KB summary linking only into itself; the docs folder has the pages
            id: 'instructor',
            name: 'Instructor',
            repository: '567-labs/instructor',
            sources: { llmsTxt: { llmsTxtUrl: web.llmsTxtUrl('instructor') }, github: { docsPath: 'docs' } },
          },
          {
            // the same llms.txt, and a repository GitHub does not have
            id: 'instructor-fork',
            name: 'Instructor fork',
            repository: 'someone/instructor-gone',
            sources: { llmsTxt: { llmsTxtUrl: web.llmsTxtUrl('instructor') }, github: { docsPath: 'docs' } },
          },
        ],
      };
      const configFile = join(dir, 'pro-context.config.yaml');
      writeFileSync(configFile, JSON.stringify(config, null, 2));
      server = await connectStdio(configFile);
    });

    afterAll(async () => {
      await server?.close();
      await github?.close();
      await web?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('resolves a library with only a repository: the TOC is its docs folder, the versions its tags', async () => {
      const result = await server.call('resolve-library', { query: 'httpx' });
      expect(result.isError, JSON.stringify(result.content).slice(0, 400)).toBeFalsy();
      const r = result.structuredContent as {
        libraryId: string;
        sources: string[];
        defaultVersion: string;
        availableVersions: string[];
        toc: { title: string; url: string }[];
        notes: string[];
      };
      expect(r).toMatchObject({ libraryId: 'httpx', sources: ['github'], defaultVersion: 'latest' });
      expect(r.availableVersions).toEqual(['0.28.1', '0.27.0']);
      expect(r.toc.length).toBeGreaterThan(15);
      expect(r.toc.map((e) => e.title)).toEqual(expect.arrayContaining(['QuickStart', 'Async Support']));
      expect(r.toc.every((e) => e.url.startsWith(`${github.rawUrl}/encode/httpx/main/docs/`))).toBe(true);
    });

    it('answers get-docs from the docs folder; the whole folder cost a handful of requests', async () => {
      const result = await server.call('get-docs', {
        libraryId: 'httpx',
        topic: 'streaming responses',
        maxTokens: 2000,
      });
      expect(result.isError, JSON.stringify(result.content).slice(0, 400)).toBeFalsy();
      const a = result.structuredContent as { version: string; content: string; source: string };
      expect(a.version).toBe('latest');
      expect(a.content).toMatch(/iter_bytes|stream/);
      expect(a.source).toContain('/encode/httpx/main/docs/');
      // metadata, tags, the tree, the tarball (and its download): not one request per file
      const paths = github.requests.filter((r) => r.path.includes('encode/httpx')).map((r) => r.path);
      expect(paths.length, JSON.stringify(paths)).toBeLessThanOrEqual(6);
      expect(paths.filter((p) => p.includes('/tarball/'))).toHaveLength(1);
      expect(paths.filter((p) => p.startsWith('/raw/'))).toHaveLength(0);
    });

    it('serves the docs of a tagged version from that tag', async () => {
      const result = await server.call('get-docs', {
        libraryId: 'httpx',
        version: '0.27.0',
        topic: 'HTTPX 0.27.0 release marker',
        maxTokens: 1500,
      });
      expect(result.isError, JSON.stringify(result.content).slice(0, 400)).toBeFalsy();
      const a = result.structuredContent as { version: string; content: string; source: string };
      expect(a.version).toBe('0.27.0');
      expect(a.content).toContain('httpx-0-27-0');
      expect(a.source).toContain('/encode/httpx/0.27.0/');
      // the latest docs do not carry that marker
      const latest = await server.call('search-docs', { libraryId: 'httpx', query: 'httpx-0-27-0 release marker' });
      expect(JSON.stringify(latest.structuredContent ?? latest.content)).not.toContain('/encode/httpx/0.27.0/');
    });

    it('reads a page of the TOC with read-page', async () => {
      const url = `${github.rawUrl}/encode/httpx/main/docs/quickstart.md`;
      const result = await server.call('read-page', { url, maxTokens: 800 });
      expect(result.isError, JSON.stringify(result.content).slice(0, 400)).toBeFalsy();
      expect((result.structuredContent as { content: string }).content).toContain('httpx.get');
    });

    it('leaves a library with an llms.txt to llms-txt: its docs cost GitHub no tree, tarball or file', async () => {
      const result = await server.call('get-docs', {
        libraryId: 'pydantic',
        topic: 'field validators',
        maxTokens: 1500,
      });
      expect(result.isError, JSON.stringify(result.content).slice(0, 400)).toBeFalsy();
      expect((result.structuredContent as { source: string }).source).toContain(
        new URL(web.siteUrl('pydantic')).origin,
      );
      const reads = github.requests.filter(
        (r) => r.path.includes('pydantic/pydantic') && /\/(git\/trees|tarball|readme|contents)\/|^\/raw\//.test(r.path),
      );
      expect(reads).toEqual([]);
    });

    it('prefers the repository to an llms.txt that only condenses the docs; the summary answers when GitHub cannot', async () => {
      const topic = 'retry with tenacity stop_after_attempt';
      const result = await server.call('get-docs', { libraryId: 'instructor', topic, maxTokens: 1500 });
      expect(result.isError, JSON.stringify(result.content).slice(0, 400)).toBeFalsy();
      const answer = result.structuredContent as { source: string; content: string };
      expect(answer.source).toContain(`${github.rawUrl}/567-labs/instructor/`);
      expect(answer.content).toContain('stop_after_attempt');

      const fallback = await server.call('get-docs', { libraryId: 'instructor-fork', topic, maxTokens: 1500 });
      expect(fallback.isError, JSON.stringify(fallback.content).slice(0, 400)).toBeFalsy();
      const summary = fallback.structuredContent as { source: string; content: string };
      expect(summary.source).toContain(web.llmsTxtUrl('instructor'));
      expect(summary.content).toContain('max_retries');
    });

    it('when the rate limit is exhausted: a coded error with retryAfter, health shows it, the cache still answers', async () => {
      github.setRateLimit({ remaining: 0, reset: Math.floor(Date.now() / 1000) + 600 });
      const limited = await server.call('get-docs', { libraryId: 'httpx', version: '0.28.1', topic: 'timeouts' });
      const error = errorOf(limited);
      expect(error.code).toBe('RATE_LIMITED');
      expect(error.retryAfter).toBeGreaterThan(500);
      expect(error.message).toMatch(/GitHub API rate limit is exhausted/);

      const cached = await server.call('get-docs', {
        libraryId: 'httpx',
        topic: 'streaming responses',
        maxTokens: 1500,
      });
      expect(cached.isError, JSON.stringify(cached.content).slice(0, 400)).toBeFalsy();
      expect((cached.structuredContent as { cached: boolean }).cached).toBe(true);

      const health = await server.client.readResource({ uri: 'pro-context://health' });
      const body = JSON.parse((health.contents[0] as { text: string }).text) as {
        adapters: Record<string, { rateLimit?: { remaining: number; limit: number } }>;
      };
      expect(body.adapters.github?.rateLimit).toMatchObject({ remaining: 0, limit: 5000 });
      github.setRateLimit({ remaining: 5000 });
    });
  },
);

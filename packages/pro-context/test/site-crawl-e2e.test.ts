import type { FakeWeb } from '@pro-context/testing/fake-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, skipReason, startCorpusWeb, writeProject } from './helpers.js';

type Connection = Awaited<ReturnType<typeof connectStdio>>;

// A library whose docs site serves only built HTML pages (no llms.txt, no markdown): the site crawl finds them
// through the sitemap, and every tool answers from them.
describe.skipIf(skipReason)(
  `a docs site with only HTML pages, through the stdio server${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let web: FakeWeb;
    let project: ReturnType<typeof writeProject>;
    let server: Connection;

    beforeAll(async () => {
      web = await startCorpusWeb();
      project = writeProject(web, {
        libraries: [
          { id: 'httpx-site', name: 'HTTPX site', language: 'python', docsUrl: web.siteUrl('httpx-html-bare') },
          {
            id: 'httpx-links',
            name: 'HTTPX links',
            language: 'python',
            docsUrl: web.siteUrl('httpx-html-nositemap'),
          },
        ],
      });
      server = await connectStdio(project.configFile);
    });

    afterAll(async () => {
      await server?.close();
      await web?.close();
      project?.cleanup();
    });

    it('resolves the library to a TOC of the crawled pages, from the site source', async () => {
      const result = await server.call('resolve-library', { query: 'httpx-site' });
      expect(result.isError).toBeFalsy();
      const r = result.structuredContent as {
        libraryId: string;
        sources: string[];
        toc: { title: string; url: string; section?: string }[];
      };
      expect(r.libraryId).toBe('httpx-site');
      expect(r.sources).toContain('site');
      expect(r.toc).toHaveLength(23);
      expect(r.toc).toContainEqual({
        title: 'Timeouts',
        url: `${web.siteUrl('httpx-html-bare')}advanced/timeouts/`,
        section: 'Advanced',
      });
      // the llms.txt the site does not have was asked for first
      expect(web.requestsTo('/httpx-html-bare/llms.txt')[0]?.status).toBe(404);
    });

    it('answers get-docs from the HTML pages, as markdown without the site chrome', async () => {
      const result = await server.call('get-docs', {
        libraryId: 'httpx-site',
        topic: 'timeout configuration pool timeout',
        maxTokens: 2000,
      });
      expect(result.isError).toBeFalsy();
      const answer = result.structuredContent as { content: string; source: string };
      expect(answer.source).toContain('/httpx-html-bare/advanced/timeouts/');
      expect(answer.content).toContain('PoolTimeout');
      expect(answer.content).not.toMatch(/Initializing search|Skip to content|Table of contents/);
    });

    it('finds sections with search-docs and reads a page with read-page', async () => {
      const search = await server.call('search-docs', {
        libraryId: 'httpx-site',
        query: 'HTTP/2 support',
        maxResults: 3,
      });
      const results = (search.structuredContent as { results: { url: string; section: string }[] }).results;
      expect(results[0]?.url).toContain('/httpx-html-bare/http2/');

      const read = await server.call('read-page', { url: `${web.siteUrl('httpx-html-bare')}advanced/ssl/` });
      expect(read.isError).toBeFalsy();
      const page = read.structuredContent as { content: string; title: string };
      expect(page.title).toBe('SSL');
      expect(page.content).toMatch(/^# SSL/m);
      expect(page.content).not.toMatch(/Initializing search|Made with/);
    });

    it('crawls a site without sitemap by its links, leaving out what robots.txt disallows', async () => {
      const result = await server.call('resolve-library', { query: 'httpx-links' });
      const toc = (result.structuredContent as { toc: { url: string }[] }).toc.map((e) => e.url);
      expect(toc).toContain(`${web.siteUrl('httpx-html-nositemap')}advanced/proxies/`);
      expect(toc.some((u) => u.includes('code_of_conduct'))).toBe(false);
      const answer = await server.call('get-docs', { libraryId: 'httpx-links', topic: 'proxy environment variables' });
      expect(answer.isError).toBeFalsy();
      expect((answer.structuredContent as { content: string }).content).toMatch(/HTTPS?_PROXY/);
    });
  },
);

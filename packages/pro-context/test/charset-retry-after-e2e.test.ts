import { readFileSync, writeFileSync } from 'node:fs';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { corpusSites, type FakeWeb, startFakeWeb } from '@pro-context/testing/fake-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, corpusRoot, errorOf, skipReason, writeProject } from './helpers.js';

type Connection = Awaited<ReturnType<typeof connectStdio>>;

const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Issue #25.6 through the built stdio server: an llms.txt saved as UTF-16 (with a byte-order mark) is read as
 * text, not refused as "binary"; a docs host answering 503/429 with `Retry-After` gives errors that carry
 * `retryAfter`, and is not asked again before the wait passes: calls meanwhile answer from the stale copy when
 * there is one, else with the coded error. Each site has its own origin (host:port), as real docs hosts do.
 */
describe.skipIf(skipReason)(
  `charsets and Retry-After over stdio${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let web: FakeWeb;
    let project: ReturnType<typeof writeProject>;
    let server: Connection;
    const requestsTo = (site: string) => web.requests.filter((r) => r.site === site && !r.path.startsWith(`/${site}/`));

    beforeAll(async () => {
      web = await startFakeWeb({ sites: corpusSites(corpusRoot as string), layout: 'origin' });
      project = writeProject(web);
      const config = JSON.parse(readFileSync(project.configFile, 'utf8'));
      config.libraries = [
        // the httpx llms.txt, saved as UTF-16LE with a BOM and served as text/plain without a charset
        {
          id: 'httpx-utf16',
          name: 'HTTPX UTF-16',
          language: 'python',
          llmsTxtUrl: `${web.siteUrl('httpx')}u16/llms.txt`,
        },
        { id: 'pydantic', name: 'Pydantic', language: 'python', llmsTxtUrl: web.llmsTxtUrl('pydantic') },
        // cached for one second: the next call after that finds it stale
        {
          id: 'fastapi',
          name: 'FastAPI',
          language: 'python',
          llmsTxtUrl: web.llmsTxtUrl('fastapi'),
          ttlHours: 1 / 3600,
        },
      ];
      // read-page copies expire after one second too
      config.cache = { ...config.cache, ttlHours: { pages: 1 / 3600 } };
      writeFileSync(project.configFile, JSON.stringify(config));
      const llms = await (await fetch(web.llmsTxtUrl('httpx'))).text();
      const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(llms, 'utf16le')]);
      web.setFault({ site: 'httpx', path: 'u16/llms.txt' }, { body: utf16, contentType: 'text/plain' });
      server = await connectStdio(project.configFile);
    });

    afterAll(async () => {
      await server?.close();
      await web?.close();
      project?.cleanup();
    });

    it('reads an llms.txt saved as UTF-16 with a BOM: its TOC and its documentation', async () => {
      const resolved = await server.call('resolve-library', { query: 'httpx-utf16' });
      expect(resolved.isError).toBeFalsy();
      const toc = (resolved.structuredContent as { toc: { title: string }[]; notes: string[] }).toc;
      expect(toc.length).toBeGreaterThan(5);
      expect(textOf(resolved)).not.toMatch(/binary/);
      const docs = await server.call('get-docs', { libraryId: 'httpx-utf16', topic: 'async client' });
      expect(docs.isError).toBeFalsy();
      expect((docs.structuredContent as { content: string }).content).toMatch(/AsyncClient/);
    });

    it('a 503 with Retry-After: the error carries retryAfter, and the host is not asked again meanwhile', async () => {
      web.setFault({ site: 'pydantic' }, { status: 503, retryAfter: 120 });
      const first = await server.call('get-docs', { libraryId: 'pydantic', topic: 'validators' });
      const error = errorOf(first);
      expect(error.code).toBe('SOURCE_UNAVAILABLE');
      expect(error.retryAfter).toBeGreaterThanOrEqual(100);
      expect(error.retryAfter).toBeLessThanOrEqual(120);
      const asked = requestsTo('pydantic').length;
      expect(asked).toBeGreaterThan(0);

      const again = errorOf(await server.call('get-docs', { libraryId: 'pydantic', topic: 'models' }));
      expect(again.retryAfter).toBeGreaterThanOrEqual(100);
      expect(again.retryAfter).toBeLessThanOrEqual(120);
      expect(requestsTo('pydantic').length).toBe(asked);
    });

    it('a 429 with Retry-After on a library cached before: answers stay served from the stale copy, the host unasked', async () => {
      const fresh = await server.call('get-docs', { libraryId: 'fastapi', topic: 'dependencies' });
      expect(fresh.isError).toBeFalsy();
      const pageUrl = (fresh.structuredContent as { source: string }).source.replace(/#.*$/, '');
      const read = await server.call('read-page', { url: pageUrl });
      expect(read.isError).toBeFalsy();
      await sleep(1500); // the one-second TTLs pass
      web.setFault({ site: 'fastapi' }, { status: 429, retryAfter: 120 });
      const stale = await server.call('get-docs', { libraryId: 'fastapi', topic: 'dependencies' });
      expect(stale.isError).toBeFalsy();
      expect((stale.structuredContent as { stale: boolean }).stale).toBe(true);
      // the refresh behind the stale answer meets the 429
      for (let waited = 0; !requestsTo('fastapi').some((r) => r.status === 429) && waited < 10_000; waited += 100)
        await sleep(100);
      expect(requestsTo('fastapi').some((r) => r.status === 429)).toBe(true);
      await sleep(300);
      const asked = requestsTo('fastapi').length;

      for (const topic of ['dependencies', 'security', 'path parameters']) {
        const answer = await server.call('get-docs', { libraryId: 'fastapi', topic });
        expect(answer.isError).toBeFalsy();
        expect((answer.structuredContent as { content: string }).content.length).toBeGreaterThan(100);
      }
      // read-page of a page read before: its expired copy answers, the host is not asked
      const again = await server.call('read-page', { url: pageUrl });
      expect(again.isError).toBeFalsy();
      expect((again.structuredContent as { content: string }).content).toBe(
        (read.structuredContent as { content: string }).content,
      );
      await sleep(300);
      expect(requestsTo('fastapi').length).toBe(asked);
    });
  },
);

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { estimateTokens } from '@pro-context/kernel';
import { codex7Descriptions } from '@pro-context/plugin-codex7';
import { type FakeContext7, startFakeContext7 } from '@pro-context/testing';
import type { FakeWeb } from '@pro-context/testing/fake-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, errorOf, skipReason, startCorpusWeb, writeProject } from './helpers.js';

type Connection = Awaited<ReturnType<typeof connectStdio>>;

const KEY = 'fake-codex7-context7-key-0c3d8e';

const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

interface Resolved {
  id: string;
  title: string;
  source: 'local' | 'remote';
  tool: string;
  topics: Record<string, string[]> | null;
  documents: { path: string; title: string }[] | null;
}

describe.skipIf(skipReason)(
  `Codex7's tools (seed 002) over stdio, local docs engine + Context7 fake${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let web: FakeWeb;
    let context7: FakeContext7;
    let project: ReturnType<typeof writeProject>;
    let server: Connection;
    let httpx: Resolved;

    beforeAll(async () => {
      web = await startCorpusWeb();
      context7 = await startFakeContext7({ apiKey: KEY });
      project = writeProject(web, { plugins: ['codex7'] });
      server = await connectStdio(project.configFile, {
        CONTEXT7_API_KEY: KEY,
        PRO_CONTEXT_CONTEXT7_URL: context7.url,
      });
      httpx = (await server.call('resolve-library-id', { libraryName: 'httpx' }))
        .structuredContent as unknown as Resolved;
    });

    afterAll(async () => {
      const stderr = server?.stderr.join('') ?? '';
      await server?.close();
      await Promise.all([web?.close(), context7?.close()]);
      project?.cleanup();
      expect(stderr).not.toContain(KEY);
    });

    it("lists the three tools with the seed's descriptions, and no second Context7 surface", async () => {
      const { tools } = await server.client.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['resolve-library-id', 'get-library-docs', 'get-context7-docs']));
      expect(names).not.toContain('context7.doc');
      expect(names).not.toContain('context7.search');
      for (const name of ['resolve-library-id', 'get-library-docs', 'get-context7-docs'] as const) {
        expect(tools.find((t) => t.name === name)?.description).toBe(codex7Descriptions[name]);
      }
    });

    it('resolve-library-id answers a remote library with tool get-context7-docs and no topics or documents', async () => {
      const result = await server.call('resolve-library-id', { libraryName: 'next.js' });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({
        id: '/vercel/next.js',
        title: 'Next.js',
        source: 'remote',
        tool: 'get-context7-docs',
        topics: null,
        documents: null,
      });
      expect(textOf(result)).toContain('tool: get-context7-docs');
    });

    it("resolve-library-id answers a local library with tool get-library-docs, topics from the TOC's sections and documents", async () => {
      expect(httpx).toMatchObject({ id: '/httpx', title: 'HTTPX', source: 'local', tool: 'get-library-docs' });
      const categories = Object.keys(httpx.topics ?? {});
      expect(categories.length).toBeGreaterThan(1);
      for (const titles of Object.values(httpx.topics ?? {})) expect(titles.length).toBeGreaterThan(0);
      expect(httpx.documents?.length).toBeGreaterThan(5);
      for (const d of httpx.documents ?? []) expect(d.path).not.toMatch(/^https?:/);
      // paths relative to the docs root, as the site serves them (mkdocs: one folder per page)
      expect(httpx.documents).toContainEqual({ path: 'quickstart/index.md', title: 'QuickStart' });
      expect(httpx.topics?.Advanced).toContain('Proxies');
    });

    it('get-library-docs with one document path returns that document', async () => {
      const result = await server.call('get-library-docs', {
        libraryId: 'httpx',
        path: 'quickstart/index.md',
        tokens: 2000,
      });
      expect(result.isError).toBeFalsy();
      const s = result.structuredContent as { path: string; content: string; sources: string[] };
      expect(s.path).toBe('quickstart/index.md');
      expect(s.sources[0]).toContain('quickstart');
      expect(s.content).toContain('httpx.get');
      expect(estimateTokens(s.content)).toBeLessThanOrEqual(2000);
    });

    it('get-library-docs with several topics returns content from those topics only, within tokens', async () => {
      const [first, second] = Object.entries(httpx.topics ?? {});
      if (!first || !second) throw new Error('httpx has fewer than two topic categories');
      const pageTitle = second[1][0] as string;
      const result = await server.call('get-library-docs', {
        libraryId: 'httpx',
        topics: [first[0], pageTitle],
        tokens: 3000,
      });
      expect(result.isError).toBeFalsy();
      const s = result.structuredContent as { content: string; sources: string[]; topics: string[] };
      expect(s.topics).toEqual([first[0], pageTitle]);
      expect(estimateTokens(s.content)).toBeLessThanOrEqual(3000);
      const allowed = new Set(
        (httpx.documents ?? []).filter((d) => first[1].includes(d.title) || d.title === pageTitle).map((d) => d.path),
      );
      // the document a source URL is: the longest document path it ends with
      const documentOf = (url: string) =>
        (httpx.documents ?? [])
          .filter((d) => url.replace(/#.*$/, '').endsWith(d.path))
          .sort((a, b) => b.path.length - a.path.length)[0]?.path;
      expect(s.sources.length).toBeGreaterThan(1);
      for (const url of s.sources) expect(allowed, url).toContain(documentOf(url));
      expect(new Set(s.sources.map(documentOf)).size).toBeGreaterThan(1);
    });

    it('get-library-docs searches customQuery within the selected topics', async () => {
      const everything = await server.call('get-library-docs', {
        libraryId: 'httpx',
        customQuery: 'proxy authentication',
      });
      expect(everything.isError).toBeFalsy();
      const all = everything.structuredContent as { sources: string[] };
      expect(all.sources.some((u) => /prox/i.test(u))).toBe(true);

      const within = await server.call('get-library-docs', {
        libraryId: 'httpx',
        topics: ['quickstart'],
        customQuery: 'json response',
      });
      expect(within.isError).toBeFalsy();
      const s = within.structuredContent as { sources: string[]; content: string };
      expect(s.sources.length).toBeGreaterThan(0);
      for (const url of s.sources) expect(url).toContain('/quickstart/');
      expect(s.content.toLowerCase()).toContain('json');
    });

    it('get-library-docs refuses a topic that is not in the hierarchy instead of guessing', async () => {
      const result = await server.call('get-library-docs', { libraryId: 'httpx', topics: ['quantum teleportation'] });
      const error = errorOf(result);
      expect(error.code).toBe('CODEX7_UNKNOWN_TOPIC');
      expect(error.message).toContain("'quantum teleportation' is not a topic of httpx");
    });

    it('get-context7-docs passes one topic string through to Context7', async () => {
      const before = context7.requests.length;
      const result = await server.call('get-context7-docs', {
        libraryId: '/vercel/next.js',
        topic: 'routing nested dynamic routes',
        tokens: 1000,
      });
      expect(result.isError).toBeFalsy();
      const asked = context7.requests.slice(before).filter((r) => r.path === '/api/v2/context');
      expect(asked).toHaveLength(1);
      expect(asked[0]?.query).toMatchObject({
        libraryId: '/vercel/next.js',
        query: 'routing nested dynamic routes',
        type: 'txt',
      });
      expect(textOf(result)).toContain('Dynamic route segment');
      expect(estimateTokens((result.structuredContent as { content: string }).content)).toBeLessThanOrEqual(1000);
    });

    it("the wrong tool for a library gets the seed's exact error naming the right one", async () => {
      const remote = errorOf(
        await server.call('get-library-docs', { libraryId: '/vercel/next.js', topics: ['routing'] }),
      );
      expect(remote.code).toBe('CODEX7_NOT_LOCAL');
      expect(remote.message).toBe("This library is not locally indexed. Use 'get-context7-docs' instead.");

      const before = context7.requests.length;
      const local = errorOf(await server.call('get-context7-docs', { libraryId: 'httpx', topic: 'proxies' }));
      expect(local.code).toBe('CODEX7_IS_LOCAL');
      expect(local.message).toBe("This is a local library. Use 'get-library-docs' for enhanced features.");
      expect(context7.requests.length).toBe(before);
    });

    it('no parameter is converted silently: the other tool’s parameters are refused', async () => {
      const topics = errorOf(
        await server.call('get-context7-docs', { libraryId: '/vercel/next.js', topics: ['routing', 'middleware'] }),
      );
      expect(topics.code).toBe('INVALID_INPUT');
      expect(topics.message).toContain('topics');

      const topic = errorOf(await server.call('get-library-docs', { libraryId: 'httpx', topic: 'proxies' }));
      expect(topic.code).toBe('INVALID_INPUT');

      const mixed = errorOf(
        await server.call('get-library-docs', { libraryId: 'httpx', path: 'quickstart/index.md', customQuery: 'json' }),
      );
      expect(mixed.code).toBe('CODEX7_PATH_WITH_FILTERS');

      const bareId = errorOf(await server.call('get-context7-docs', { libraryId: 'vercel/next.js', topic: 'routing' }));
      expect(bareId.code).toBe('CODEX7_BAD_LIBRARY_ID');
    });

    it('get-context7-docs surfaces Context7 errors with their status: 404 tag_not_found', async () => {
      const result = await server.call('get-context7-docs', { libraryId: '/vercel/next.js/v1.0.0', topic: 'routing' });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(
        '[Context7 error 404: tag_not_found: Tag "v1.0.0" not found for library /vercel/next.js. Available tags: v16.0.3, v15.1.8, v14.3.0]',
      );
    });
  },
);

describe.skipIf(skipReason)('Codex7 without a Context7 key', () => {
  it('keeps its tools listed; get-context7-docs answers "[Context7 API key not configured]"', async () => {
    const web = await startCorpusWeb();
    const project = writeProject(web);
    const server = await connectStdio(project.configFile, { PRO_CONTEXT_PLUGINS: 'codex7' });
    try {
      const names = (await server.client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['resolve-library-id', 'get-library-docs', 'get-context7-docs']));
      const result = await server.call('get-context7-docs', { libraryId: '/vercel/next.js', topic: 'routing' });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe('[Context7 API key not configured]');
      const local = await server.call('resolve-library-id', { libraryName: 'pydantic' });
      expect(local.structuredContent).toMatchObject({ id: '/pydantic', source: 'local', tool: 'get-library-docs' });
    } finally {
      await server.close();
      await web.close();
      project.cleanup();
    }
  });
});

import {
  LoggingMessageNotificationSchema,
  ResourceListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { FakeWeb } from '@pro-context/testing/fake-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, errorOf, skipReason, startCorpusWeb, writeProject } from './helpers.js';

type Connection = Awaited<ReturnType<typeof connectStdio>>;

describe.skipIf(skipReason)(
  `pro-context over stdio against the fake web${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let web: FakeWeb;
    let project: ReturnType<typeof writeProject>;
    let server: Connection;
    let listChanged = 0;
    const logs: unknown[] = [];

    beforeAll(async () => {
      web = await startCorpusWeb();
      project = writeProject(web);
      server = await connectStdio(project.configFile);
      server.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
        listChanged += 1;
      });
      server.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
      // until a client sets its level it gets `warning` and above (#15); this one asks for `info`
      await server.client.setLoggingLevel('info');
    });

    afterAll(async () => {
      await server?.close();
      await web?.close();
      project?.cleanup();
    });

    it('lists the five tools with the seed schemas and read-only annotations', async () => {
      const { tools } = await server.client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([
        'get-docs',
        'list-libraries',
        'read-page',
        'resolve-library',
        'search-docs',
      ]);
      const getDocs = tools.find((t) => t.name === 'get-docs');
      expect(getDocs?.inputSchema.required).toEqual(['libraryId', 'topic']);
      expect(getDocs?.inputSchema.properties?.maxTokens).toMatchObject({ default: 5000, minimum: 500, maximum: 10000 });
      expect(getDocs?.outputSchema?.properties).toHaveProperty('relatedPages');
      expect(getDocs?.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: true });
    });

    it('resolves a library with a typo to its id, versions, sources and TOC, and registers its TOC resource', async () => {
      const before = listChanged;
      const result = await server.call('resolve-library', { query: 'pydantc' });
      expect(result.isError).toBeFalsy();
      const r = result.structuredContent as {
        libraryId: string;
        toc: { title: string; url: string; section?: string }[];
        sources: string[];
        defaultVersion: string;
      };
      expect(r.libraryId).toBe('pydantic');
      expect(r.sources[0]).toBe('llms-txt');
      expect(r.defaultVersion).toBe('latest');
      expect(r.toc.length).toBeGreaterThan(50);
      expect(r.toc.find((e) => e.title === 'Validators')?.url).toBe(
        `${web.siteUrl('pydantic')}concepts/validators/index.md`,
      );
      const { resources } = await server.client.listResources();
      expect(resources.map((x) => x.uri)).toContain('library://pydantic/toc');
      await expect.poll(() => listChanged).toBeGreaterThan(before);
      const toc = await server.client.readResource({ uri: 'library://pydantic/toc' });
      expect((toc.contents[0] as { text: string }).text).toMatch(/^# Pydantic Validation Documentation/);
    });

    it('answers get-docs from the real docs within the budget, with provenance, and reports progress the first time', async () => {
      const progress: unknown[] = [];
      const result = await server.call(
        'get-docs',
        { libraryId: 'pydantic', topic: "field_validator mode='before'", maxTokens: 2500 },
        { onprogress: (p) => progress.push(p) },
      );
      expect(result.isError).toBeFalsy();
      const answer = result.structuredContent as {
        content: string;
        source: string;
        version: string;
        confidence: number;
        cached: boolean;
        stale: boolean;
        relatedPages: unknown[];
        lastUpdated: string;
      };
      expect(answer.content).toContain("run before Pydantic's internal parsing and validation");
      // what the agent reads (content, source line, related pages) stays within maxTokens
      const text = (result.content as { type: string; text: string }[]).map((c) => c.text).join('');
      expect(Math.ceil(text.length / 4)).toBeLessThanOrEqual(2500);
      expect(answer.source).toContain('concepts/validators');
      expect(answer.version).toBe('latest');
      expect(answer.cached).toBe(false);
      expect(answer.stale).toBe(false);
      expect(answer.confidence).toBeGreaterThan(0.5);
      expect(Number.isNaN(Date.parse(answer.lastUpdated))).toBe(false);
      expect(answer.relatedPages.length).toBeGreaterThan(0);
      expect(progress.length).toBeGreaterThan(0);
      const again = await server.call('get-docs', { libraryId: 'pydantic', topic: 'model_validator after' });
      expect((again.structuredContent as { cached: boolean }).cached).toBe(true);
    });

    it('searches with normalized relevance and snippets; a first search of an unindexed library says INDEXING_IN_PROGRESS or answers', async () => {
      const result = await server.call('search-docs', {
        libraryId: 'pydantic',
        query: 'discriminated unions',
        maxResults: 3,
      });
      const s = result.structuredContent as {
        results: { relevance: number; url: string; snippet: string; section: string }[];
        totalMatches: number;
      };
      expect(s.results).toHaveLength(3);
      expect(s.totalMatches).toBeGreaterThanOrEqual(3);
      for (const r of s.results) {
        expect(r.relevance).toBeGreaterThan(0);
        expect(r.relevance).toBeLessThanOrEqual(1);
        expect(r.snippet.length).toBeLessThan(600);
      }
      expect(s.results[0]?.url).toContain('concepts/unions');
    });

    it('reads a TOC page as markdown, truncates at a section boundary with the seed note, and continues from an offset', async () => {
      const url = `${web.siteUrl('pydantic')}concepts/validators/index.md`;
      const first = await server.call('read-page', { url, maxTokens: 1000 });
      const page = first.structuredContent as {
        content: string;
        truncated: boolean;
        nextOffset: number;
        contentLength: number;
        title: string;
      };
      expect(page.title).toBe('Validators');
      expect(page.truncated).toBe(true);
      expect(page.content).toMatch(
        /\[Content truncated\. \d+ tokens not shown\. Call read-page again with a higher maxTokens limit to see more\.\]/,
      );
      const second = await server.call('read-page', { url, maxTokens: 1000, offset: page.nextOffset });
      const rest = second.structuredContent as { content: string; cached: boolean; offset: number };
      expect(rest.cached).toBe(true);
      expect(rest.offset).toBe(page.nextOffset);
      expect(rest.content.startsWith(page.content.slice(0, 50))).toBe(false);
    });

    it('converts an HTML page to markdown of its main content', async () => {
      await server.call('resolve-library', { query: 'httpx-html' });
      const result = await server.call('read-page', { url: `${web.siteUrl('httpx-html')}quickstart/` });
      const page = result.structuredContent as { content: string; title: string };
      expect(result.isError).toBeFalsy();
      expect(page.content).toMatch(/^# QuickStart/m);
      expect(page.content).toContain('```');
      expect(page.content).not.toMatch(/Table of contents/);
    });

    it('gives coded errors with suggestions for bad input', async () => {
      const unknown = errorOf(await server.call('get-docs', { libraryId: 'pydantix', topic: 'validators' }));
      expect(unknown).toMatchObject({ code: 'LIBRARY_NOT_FOUND', recoverable: true });
      expect(unknown.suggestion).toBe("Did you mean 'pydantic'?");

      const outside = errorOf(await server.call('read-page', { url: 'https://evil.example.com/x' }));
      expect(outside.code).toBe('URL_NOT_ALLOWED');
      expect(outside.suggestion).toBe('Resolve the library first, or add the domain to your config.');
      // an address: adding it to the allowlist cannot help (the network guard refuses cloud metadata whatever it says)
      for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://[fe80::1]/docs']) {
        const address = errorOf(await server.call('read-page', { url }));
        expect(address.code).toBe('URL_NOT_ALLOWED');
        expect(address.suggestion).toContain('cloud metadata never');
        expect(address.suggestion).not.toContain('add the domain');
      }

      const missing = errorOf(
        await server.call('read-page', { url: `${web.siteUrl('pydantic')}concepts/nope/index.md` }),
      );
      expect(missing.code).toBe('PAGE_NOT_FOUND');

      const removeFault = web.setFault(
        { site: 'pydantic', path: '/binary.md' },
        { body: new Uint8Array([0, 1, 2, 3, 0, 255]), contentType: 'application/octet-stream' },
      );
      const binary = errorOf(await server.call('read-page', { url: `${web.siteUrl('pydantic')}binary.md` }));
      removeFault();
      expect(binary.code).toBe('INVALID_CONTENT');

      const topic = errorOf(await server.call('get-docs', { libraryId: 'pydantic', topic: 'xylophonist quokka' }));
      expect(topic.code).toBe('TOPIC_NOT_FOUND');
      expect(topic.suggestion).toBe('Try search-docs for broader results, or browse the TOC with read-page.');

      const removeGarbage = web.setFault(
        { site: 'pydantic', path: '/broken/llms.txt' },
        { body: '{"error": "this is an API, not an llms.txt"}', contentType: 'application/json' },
      );
      // resolve still gives the id (seed §5.1: metadata without TOC, with a note); get-docs gives the coded error
      const resolvedBroken = await server.call('resolve-library', { query: 'broken-docs' });
      expect(resolvedBroken.isError).toBeFalsy();
      expect(resolvedBroken.structuredContent).toMatchObject({ libraryId: 'broken-docs', toc: [] });
      expect((resolvedBroken.structuredContent as { notes: string[] }).notes.join(' ')).toMatch(/not an llms\.txt/);
      const malformed = errorOf(await server.call('get-docs', { libraryId: 'broken-docs', topic: 'anything' }));
      removeGarbage();
      expect(malformed.code).toBe('INVALID_CONTENT');
      expect(malformed.message).toMatch(/llms\.txt/);

      const removeHuge = web.setFault(
        { site: 'pydantic', path: '/huge/index.md' },
        { generatedBytes: 12 * 1024 * 1024, contentType: 'text/markdown' },
      );
      const huge = errorOf(await server.call('read-page', { url: `${web.siteUrl('pydantic')}huge/index.md` }));
      removeHuge();
      // over the per-page size limit (engine.pages.maxBytes, 5 MB), refused as it arrives
      expect(huge.code).toBe('PAGE_TOO_LARGE');
      expect(huge.message).toMatch(/larger than the limit of 5000000 bytes .*engine\.pages\.maxBytes/);

      const invalid = errorOf(await server.call('get-docs', { libraryId: 'pydantic', topic: 'x', maxTokens: 20 }));
      expect(invalid.code).toBe('INVALID_INPUT');
      expect(invalid.message).toMatch(/maxTokens/);
    });

    it('serves resources and prompts', async () => {
      const health = JSON.parse(
        ((await server.client.readResource({ uri: 'pro-context://health' })).contents[0] as { text: string }).text,
      );
      expect(health.status).toBe('healthy');
      expect(health.adapters['llms-txt'].status).toBe('available');
      const { prompts } = await server.client.listPrompts();
      expect(prompts.map((p) => p.name).sort()).toEqual(['debug-with-docs', 'explain-api', 'migrate-code']);
      const prompt = await server.client.getPrompt({
        name: 'explain-api',
        arguments: { libraryId: 'pydantic', apiName: 'BaseModel' },
      });
      const text = (prompt.messages[0]?.content as { text: string } | undefined)?.text ?? '';
      expect(text).toMatch(/^Explain the BaseModel API from pydantic\./);
      expect(text).not.toContain('{#if');
      expect(text).not.toContain('(version');
    });

    it('serves a restarted server from the cache: no fetch, no re-chunking, same answer', async () => {
      const before = await server.call('get-docs', {
        libraryId: 'pydantic',
        topic: 'computed_field decorator',
        maxTokens: 1500,
      });
      await server.close();
      web.clearRequests();
      server = await connectStdio(project.configFile);
      const after = await server.call('get-docs', {
        libraryId: 'pydantic',
        topic: 'computed_field decorator',
        maxTokens: 1500,
      });
      expect(after.structuredContent).toMatchObject({ cached: true, stale: false });
      expect((after.structuredContent as { content: string }).content).toBe(
        (before.structuredContent as { content: string }).content,
      );
      // a topic never asked before: the index is restored from its snapshot, still without a fetch
      const other = await server.call('get-docs', {
        libraryId: 'pydantic',
        topic: 'discriminated unions',
        maxTokens: 1500,
      });
      expect(other.structuredContent).toMatchObject({ cached: true, stale: false });
      expect((other.structuredContent as { content: string }).content).toContain('discriminator');
      expect(web.requests.filter((r) => r.site === 'pydantic')).toEqual([]);
    });

    it('forwards logs over MCP and never writes anything but JSON-RPC to stdout', async () => {
      expect(logs.length).toBeGreaterThan(0);
      expect(server.stderr.join('')).toMatch(/"span":"get-docs"/);
    });
  },
);

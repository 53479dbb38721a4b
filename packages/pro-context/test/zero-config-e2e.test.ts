import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type CallToolResult, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  type FakeProxy,
  type FakePypiProject,
  type FakeRegistry,
  fakeNpmPackages,
  fakePypiProjects,
  type LoopbackSite,
  startFakeNpm,
  startFakeProxy,
  startFakePypi,
  startLoopbackSite,
} from '@pro-context/testing';
import type { FakeWeb } from '@pro-context/testing/fake-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, errorOf, skipReason, startCorpusWeb } from './helpers.js';

/** Docs of two packages the curated registry does not list: tinydocs (an llms.txt and two pages), quietdocs (nothing). */
function unlistedDocsSite(): Promise<LoopbackSite> {
  let origin = '';
  const text = (res: import('node:http').ServerResponse, body: string) =>
    res.writeHead(200, { 'content-type': 'text/markdown; charset=utf-8' }).end(body);
  const promise = startLoopbackSite((path, res) => {
    switch (path.split('?')[0]) {
      case '/tinydocs/docs/llms.txt':
        return text(
          res,
          [
            '# Tinydocs',
            '',
            '> Tinydocs makes widgets.',
            '',
            '## Docs',
            '',
            `- [Getting started](${origin}/tinydocs/docs/start.md): install tinydocs-lib and make a first widget`,
            `- [Widget options](${origin}/tinydocs/docs/options.md): every option of configure_widget`,
            '',
          ].join('\n'),
        );
      case '/tinydocs/docs/start.md':
        return text(res, '# Getting started\n\nInstall tinydocs-lib with pip, then call `make_widget()`.\n');
      case '/tinydocs/docs/options.md':
        return text(
          res,
          '# Widget options\n\n## Colour\n\nPass `colour="blue"` to `configure_widget` to paint a widget blue.\n',
        );
      default:
        res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Not found</body></html>');
    }
  });
  return promise.then((site) => {
    origin = site.origin;
    return site;
  });
}

/** PyPI projects the curated registry does not list, their docs on {@link unlistedDocsSite}. */
function unlistedProjects(origin: string): FakePypiProject[] {
  return [
    {
      name: 'tinydocs-lib',
      summary: 'Tinydocs makes widgets.',
      projectUrls: { Documentation: `${origin}/tinydocs/docs/`, Source: 'https://github.com/example/tinydocs-lib' },
      releases: [
        { version: '1.0.0', uploadedAt: '2024-01-01T00:00:00Z' },
        { version: '1.2.0', uploadedAt: '2025-03-01T10:00:00Z' },
      ],
    },
    {
      name: 'quietdocs-lib',
      summary: 'Quietdocs publishes no llms.txt.',
      homePage: `${origin}/quietdocs/home`,
      projectUrls: { Documentation: `${origin}/quietdocs/docs/` },
      releases: [{ version: '0.4.0', uploadedAt: '2025-02-01T00:00:00Z' }],
    },
  ];
}

/**
 * The stdio server with NO configuration file (an empty working directory and home): the curated registry
 * answers well-known names, the PyPI and npm resolvers read their loopback fakes (set by the declared
 * variables PRO_CONTEXT_PYPI_URL / PRO_CONTEXT_NPM_URL; loopback allowed by --allow-private-network). The
 * curated docs sites are real https hosts: HTTPS_PROXY/HTTP_PROXY point at the loopback fake proxy, which
 * serves https://fastapi.tiangolo.com from the fastapi corpus on the fake web (TLS with the test CA, trusted
 * through NODE_EXTRA_CA_CERTS by the server's process only) and refuses every other host, so no request
 * leaves the machine (a host asked through the proxy is still looked up locally by the SSRF guard's preflight).
 * Two packages the curated registry does not list are on the fake PyPI with their docs on a loopback site
 * (reached directly: NO_PROXY), so docs discovery finds one's llms.txt and reports what it tried for the other.
 */
describe.skipIf(skipReason)(
  `pro-context with no configuration file${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let pypi: FakeRegistry;
    let npm: FakeRegistry;
    let web: FakeWeb;
    let proxy: FakeProxy;
    let docs: LoopbackSite;
    let dir: string;
    let client: Client;
    const call = async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args }, CallToolResultSchema, { timeout: 60_000 })) as CallToolResult;

    beforeAll(async () => {
      docs = await unlistedDocsSite();
      pypi = await startFakePypi([...fakePypiProjects, ...unlistedProjects(docs.origin)]);
      npm = await startFakeNpm(fakeNpmPackages);
      web = await startCorpusWeb();
      proxy = await startFakeProxy({ 'fastapi.tiangolo.com': web.siteUrl('fastapi') });
      dir = mkdtempSync(join(tmpdir(), 'pc-zero-config-'));
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [cliPath, '--allow-private-network'],
        cwd: dir,
        env: {
          ...getDefaultEnvironment(),
          HOME: dir,
          USERPROFILE: dir,
          PRO_CONTEXT_CACHE_DIR: join(dir, 'cache'),
          PRO_CONTEXT_PYPI_URL: pypi.url,
          PRO_CONTEXT_NPM_URL: npm.url,
          HTTPS_PROXY: proxy.url,
          HTTP_PROXY: proxy.url,
          NO_PROXY: '127.0.0.1',
          NODE_EXTRA_CA_CERTS: proxy.caFile,
        },
        stderr: 'pipe',
      });
      transport.stderr?.on('data', () => undefined);
      client = new Client({ name: 'zero-config', version: '0.0.1' }, { capabilities: {} });
      await client.connect(transport);
    });

    afterAll(async () => {
      await client?.close();
      await pypi?.close();
      await npm?.close();
      await proxy?.close();
      await web?.close();
      await docs?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('resolves a misspelt well-known name (fastapy) to FastAPI, with its versions from PyPI and its TOC', async () => {
      const result = await call('resolve-library', { query: 'fastapy' });
      expect(result.isError).toBeFalsy();
      const r = result.structuredContent as {
        libraryId: string;
        name: string;
        defaultVersion: string;
        availableVersions: string[];
        notes: string[];
        toc: { title: string; url: string }[];
      };
      expect(r, JSON.stringify(r).slice(0, 300)).toMatchObject({
        libraryId: 'fastapi',
        name: 'FastAPI',
        defaultVersion: '0.116.1',
      });
      expect(r.availableVersions).toContain('0.110.0');
      expect(pypi.count('/pypi/fastapi/json')).toBeGreaterThanOrEqual(1);
      // the curated docs site, https://fastapi.tiangolo.com/llms.txt, served by the proxy from the corpus
      expect(proxy.requests).toContain('fastapi.tiangolo.com:443');
      expect(r.toc.length, JSON.stringify(r.notes)).toBeGreaterThan(10);
      // the close spelling is said in the structured notes (#15); nothing else is
      expect(r.notes).toEqual([expect.stringMatching(/^Matched 'fastapy' to fastapi .*by a close spelling/)]);
    });

    it('discovers a package the registry does not list (tinydocs-lib) from its PyPI metadata and llms.txt', async () => {
      const result = await call('resolve-library', { query: 'tinydocs-lib' });
      expect(result.isError, JSON.stringify(result.content).slice(0, 300)).toBeFalsy();
      const r = result.structuredContent as {
        libraryId: string;
        defaultVersion: string;
        availableVersions: string[];
        notes: string[];
        toc: { title: string; url: string }[];
      };
      expect(r, JSON.stringify(r).slice(0, 300)).toMatchObject({ libraryId: 'tinydocs-lib', defaultVersion: '1.2.0' });
      expect(r.availableVersions).toEqual(expect.arrayContaining(['1.0.0', '1.2.0']));
      expect(pypi.count('/pypi/tinydocs-lib/json')).toBeGreaterThanOrEqual(1);
      expect(r.toc.map((t) => t.title)).toEqual(expect.arrayContaining(['Getting started', 'Widget options']));
      expect(r.toc.map((t) => t.url)).toContain(`${docs.origin}/tinydocs/docs/options.md`);
      expect(docs.hits).toContain('/tinydocs/docs/llms.txt');

      const answer = await call('get-docs', { libraryId: 'tinydocs-lib', topic: 'paint a widget blue' });
      expect(answer.isError, JSON.stringify(answer.content).slice(0, 300)).toBeFalsy();
      const a = answer.structuredContent as { version: string; content: string };
      expect(a.version).toBe('1.2.0');
      expect(a.content).toContain('colour="blue"');
      expect(docs.hits).toContain('/tinydocs/docs/options.md');
    });

    it('resolves an unlisted package whose docs publish no llms.txt with an empty TOC and the URLs tried', async () => {
      const result = await call('resolve-library', { query: 'quietdocs-lib' });
      expect(result.isError, JSON.stringify(result.content).slice(0, 300)).toBeFalsy();
      const r = result.structuredContent as {
        libraryId: string;
        defaultVersion: string;
        notes: string[];
        toc: unknown[];
      };
      expect(r, JSON.stringify(r).slice(0, 300)).toMatchObject({ libraryId: 'quietdocs-lib', defaultVersion: '0.4.0' });
      expect(r.toc).toEqual([]);
      const note = r.notes.join(' ');
      expect(note).toContain(`${docs.origin}/quietdocs/docs/llms.txt`);
      expect(note).toContain(`${docs.origin}/quietdocs/docs/llms-full.txt`);
      expect(note).toContain(`${docs.origin}/quietdocs/home/llms.txt`);
      expect(note).toContain('HTTP 404');
    });

    it('lists the whole curated registry, a page at a time, filtered by language and category', async () => {
      type Page = { libraries: { id: string; language: string }[]; total: number; nextCursor?: string };
      const first = (await call('list-libraries', {})).structuredContent as Page;
      expect(first.total).toBeGreaterThanOrEqual(400);
      const ids: string[] = first.libraries.map((l) => l.id);
      for (let cursor = first.nextCursor; cursor; ) {
        const page = (await call('list-libraries', { cursor })).structuredContent as Page;
        ids.push(...page.libraries.map((l) => l.id));
        cursor = page.nextCursor;
      }
      expect(ids).toHaveLength(first.total);
      expect(new Set(ids).size).toBe(first.total);
      const python = (await call('list-libraries', { language: 'python' })).structuredContent as Page;
      expect(python.libraries.every((l) => l.language === 'python')).toBe(true);
      const fastapi = (await call('list-libraries', { language: 'python', query: 'fastapi' }))
        .structuredContent as Page;
      expect(fastapi.libraries.map((l) => l.id)).toContain('fastapi');
      const orms = (await call('list-libraries', { language: 'javascript', category: 'orm' })).structuredContent as {
        libraries: { id: string; categories: string[] }[];
      };
      expect(orms.libraries.map((l) => l.id)).toContain('prisma');
      expect(orms.libraries.every((l) => l.categories.includes('orm'))).toBe(true);
    });

    it('answers get-docs for the latest stable from the curated docs site', async () => {
      const result = await call('get-docs', { libraryId: 'fastapi', topic: 'dependencies with yield' });
      expect(result.isError).toBeFalsy();
      const answer = result.structuredContent as { version: string; content: string };
      expect(answer.version).toBe('0.116.1');
      expect(answer.content.toLowerCase()).toContain('yield');
    });

    it("prints every curated entry with the CLI's libraries --all --json", () => {
      const out = execFileSync(process.execPath, [cliPath, 'libraries', '--all', '--json'], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '', HOME: dir, PRO_CONTEXT_CACHE_DIR: join(dir, 'cli-cache') },
        encoding: 'utf8',
      });
      const listed = JSON.parse(out) as { libraries: { id: string }[]; total: number };
      expect(listed.libraries.length).toBe(listed.total);
      expect(listed.total).toBeGreaterThanOrEqual(400);
      expect(listed.libraries.map((l) => l.id)).toEqual(expect.arrayContaining(['fastapi', 'react', 'openai-js']));
    });

    it('says plainly which version get-docs cannot serve for a range, and why', async () => {
      const result = await call('get-docs', { libraryId: 'fastapi', topic: 'dependencies', version: '0.110.x' });
      const error = errorOf(result);
      expect(error.code).toBe('VERSION_NOT_FOUND');
      expect(error.message).toContain('FastAPI 0.110.0 was released');
      expect(error.message).toContain('the latest stable version, 0.116.1');
      expect(error.suggestion).toContain("version '0.116.1'");
    });

    it('names the other ecosystem as an alternative when a name exists in both (openai)', async () => {
      const result = await call('resolve-library', { query: 'openai' });
      const r = result.structuredContent as { libraryId: string; language: string; alternatives: { id: string }[] };
      expect([r.libraryId, r.language]).toEqual(['openai', 'python']);
      expect(r.alternatives.map((a) => a.id)).toContain('openai-js');
      const js = (await call('resolve-library', { query: 'openai', language: 'javascript' })).structuredContent as {
        libraryId: string;
      };
      expect(js.libraryId).toBe('openai-js');
    });
  },
);

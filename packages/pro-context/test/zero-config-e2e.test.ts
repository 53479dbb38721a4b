import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type CallToolResult, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  type FakeProxy,
  type FakeRegistry,
  fakeNpmPackages,
  fakePypiProjects,
  startFakeNpm,
  startFakeProxy,
  startFakePypi,
} from '@pro-context/testing';
import type { FakeWeb } from '@pro-context/testing/fake-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, errorOf, skipReason, startCorpusWeb } from './helpers.js';

/**
 * The stdio server with NO configuration file (an empty working directory and home): the curated registry
 * answers well-known names, the PyPI and npm resolvers read their loopback fakes (set by the declared
 * variables PRO_CONTEXT_PYPI_URL / PRO_CONTEXT_NPM_URL; loopback allowed by --allow-private-network). The
 * curated docs sites are real https hosts: HTTPS_PROXY/HTTP_PROXY point at the loopback fake proxy, which
 * serves https://fastapi.tiangolo.com from the fastapi corpus on the fake web (TLS with the test CA, trusted
 * through NODE_EXTRA_CA_CERTS by the server's process only) and refuses every other host, so no request
 * leaves the machine (a host asked through the proxy is still looked up locally by the SSRF guard's preflight).
 */
describe.skipIf(skipReason)(
  `pro-context with no configuration file${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let pypi: FakeRegistry;
    let npm: FakeRegistry;
    let web: FakeWeb;
    let proxy: FakeProxy;
    let dir: string;
    let client: Client;
    const call = async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args }, CallToolResultSchema, { timeout: 60_000 })) as CallToolResult;

    beforeAll(async () => {
      pypi = await startFakePypi(fakePypiProjects);
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
      expect(r.notes).toEqual([]);
    });

    it('lists the whole curated registry, filtered by language and category', async () => {
      const all = (await call('list-libraries', {})).structuredContent as { libraries: { id: string }[] };
      expect(all.libraries.length).toBeGreaterThanOrEqual(400);
      const python = (await call('list-libraries', { language: 'python' })).structuredContent as {
        libraries: { id: string; language: string }[];
      };
      expect(python.libraries.every((l) => l.language === 'python')).toBe(true);
      expect(python.libraries.map((l) => l.id)).toContain('fastapi');
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

    it("prints every curated entry with the CLI's libraries --json", () => {
      const out = execFileSync(process.execPath, [cliPath, 'libraries', '--json'], {
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

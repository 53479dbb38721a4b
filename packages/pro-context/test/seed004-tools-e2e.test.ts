import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { type FakeContext7, startFakeContext7 } from '@pro-context/testing';
import type { FakeWeb } from '@pro-context/testing/fake-web';
import { freePort } from '@pro-context/testing/fake-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cliPath,
  connectStdio,
  errorOf,
  offlineRegistries,
  skipReason,
  startCorpusWeb,
  writeProject,
} from './helpers.js';

type Connection = Awaited<ReturnType<typeof connectStdio>>;

/** A key no redaction pattern recognises: only the code keeping it out protects it. */
const KEY = 'fake-seed004-context7-key-8d1f0a';

const textOf = (result: CallToolResult) => result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

describe.skipIf(skipReason)(
  `seed 004's Context7 tools and Context7 as the engine's fallback, through the built server${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let web: FakeWeb;
    let context7: FakeContext7;
    let project: ReturnType<typeof writeProject>;
    let server: Connection;
    let keyless: Connection;
    let closedPort: number;

    beforeAll(async () => {
      [web, context7, closedPort] = await Promise.all([
        startCorpusWeb(),
        startFakeContext7({ apiKey: KEY }),
        freePort(),
      ]);
      // Next.js is configured, but its docs site does not answer (nothing listens on that port)
      project = writeProject(web, {
        plugins: ['context7', 'codex7'],
        context7: { timeoutMs: 5000 },
        http: { retryDelaysMs: [10, 20], timeoutMs: 3000, retries: 0 },
      });
      const config = JSON.parse(readFileSync(project.configFile, 'utf8')) as { libraries: Record<string, unknown>[] };
      config.libraries.push({
        id: 'nextjs-docs',
        name: 'Next.js',
        language: 'javascript',
        llmsTxtUrl: `http://127.0.0.1:${closedPort}/llms.txt`,
      });
      writeFileSync(project.configFile, JSON.stringify(config, null, 2));
      const env = { PRO_CONTEXT_CONTEXT7_URL: context7.url };
      [server, keyless] = await Promise.all([
        connectStdio(project.configFile, { ...env, CONTEXT7_API_KEY: KEY }),
        // a blank key is no key
        connectStdio(project.configFile, { ...env, CONTEXT7_API_KEY: '   ' }),
      ]);
    });

    afterAll(async () => {
      const stderr = [server?.stderr.join(''), keyless?.stderr.join('')].join('\n');
      await Promise.all([server?.close(), keyless?.close()]);
      await Promise.all([web?.close(), context7?.close()]);
      project?.cleanup();
      expect(stderr).not.toContain(KEY);
    });

    it("lists search_documentation and resolve_library with seed 004's names, parameters, defaults and output shapes", async () => {
      const { tools } = await server.client.listTools();
      const search = tools.find((t) => t.name === 'search_documentation');
      const resolve = tools.find((t) => t.name === 'resolve_library');
      expect(search?.description).toBe('Search technical documentation, SDKs, and library references');
      expect(resolve?.description).toBe('Find the correct library ID for a package name');
      expect(Object.keys(search?.inputSchema.properties ?? {})).toEqual(['libraryName', 'topic', 'tokens']);
      expect(search?.inputSchema.required).toEqual(['libraryName']);
      expect((search?.inputSchema.properties as { tokens?: { default: number } } | undefined)?.tokens?.default).toBe(
        3000,
      );
      expect(Object.keys(search?.outputSchema?.properties ?? {})).toEqual([
        'libraryId',
        'documentation',
        'codeExamples',
        'trustScore',
      ]);
      expect(Object.keys(resolve?.inputSchema.properties ?? {})).toEqual(['libraryName']);
      const match = (resolve?.outputSchema?.properties as { matches?: { items: { properties: object } } } | undefined)
        ?.matches;
      expect(Object.keys(match?.items.properties ?? {})).toEqual([
        'libraryId',
        'name',
        'description',
        'trustScore',
        'snippets',
      ]);
    });

    it('search_documentation answers a library the engine serves from the engine, one it does not know from Context7', async () => {
      const local = await server.call('search_documentation', { libraryName: 'httpx', topic: 'async client' });
      expect(local.isError).toBeFalsy();
      expect(local.structuredContent).toMatchObject({ libraryId: 'httpx' });
      expect(textOf(local)).toContain("Source: pro-context's docs engine");
      const before = context7.count();
      const remote = await server.call('search_documentation', { libraryName: 'react', topic: 'hooks' });
      expect(remote.isError, textOf(remote)).toBeFalsy();
      expect(remote.structuredContent).toMatchObject({ libraryId: '/facebook/react' });
      expect(textOf(remote)).toContain(`Source: Context7 · ${context7.url}/v2/context?libraryId=/facebook/react`);
      expect(textOf(remote)).toContain("(fallback: the local docs engine does not know 'react')");
      expect(context7.count()).toBeGreaterThan(before);
      const matches = await server.call('resolve_library', { libraryName: 'react' });
      expect((matches.structuredContent as { matches: { libraryId: string }[] }).matches[0]?.libraryId).toBe(
        '/facebook/react',
      );
    });

    it('a library the engine knows but cannot fetch is answered from Context7, saying so (issue #26)', async () => {
      const before = context7.count('/v2/context');
      const docs = await server.call('search_documentation', { libraryName: 'Next.js', topic: 'middleware' });
      expect(docs.isError, textOf(docs)).toBeFalsy();
      expect(docs.structuredContent).toMatchObject({ libraryId: '/vercel/next.js' });
      expect(textOf(docs)).toMatch(/Source: Context7 .*\(fallback: /);
      const codex7 = await server.call('get-library-docs', { libraryId: '/nextjs-docs', topics: ['middleware'] });
      expect(codex7.isError, textOf(codex7)).toBeFalsy();
      expect(textOf(codex7)).toMatch(/Source: Context7 \/vercel\/next\.js · .*\(fallback: /);
      expect(context7.count('/v2/context')).toBeGreaterThan(before);
    });

    it("the engine's resolve-library and get-docs answer from Context7 what the engine cannot, with provenance", async () => {
      const resolved = await server.call('resolve-library', { query: 'react' });
      expect(resolved.isError, textOf(resolved)).toBeFalsy();
      expect(resolved.structuredContent).toMatchObject({ libraryId: 'facebook/react', sources: ['context7'] });
      expect(textOf(resolved)).toContain(
        "**Note:** Found on Context7, not in pro-context's docs engine (pro-context's docs engine does not know 'react'): get-docs with libraryId 'facebook/react' answers from Context7.",
      );
      const react = await server.call('get-docs', { libraryId: 'facebook/react', topic: 'hooks' });
      expect(react.isError, textOf(react)).toBeFalsy();
      expect(textOf(react)).toMatch(/useState/);
      expect(textOf(react)).toContain('Source: Context7 /facebook/react · ');
      const unfetched = await server.call('get-docs', { libraryId: 'nextjs-docs', topic: 'middleware' });
      expect(unfetched.isError, textOf(unfetched)).toBeFalsy();
      expect(textOf(unfetched)).toMatch(
        /Source: Context7 \/vercel\/next\.js · .* · fallback: the documentation of 'nextjs-docs' could not be fetched \(/,
      );
      const noted = await server.call('resolve-library', { query: 'nextjs-docs' });
      expect(textOf(noted)).toContain(
        "get-docs answers from Context7 while Next.js's documentation cannot be fetched.",
      );
      // a library the engine serves is still the engine's
      const local = await server.call('get-docs', { libraryId: 'httpx', topic: 'proxies' });
      expect(textOf(local)).not.toContain('Context7');
    });

    it('without a Context7 key, the answers name CONTEXT7_API_KEY instead of "No library matches"', async () => {
      const docs = await keyless.call('search_documentation', { libraryName: 'zzz-no-such-lib' });
      expect(docs.isError).toBe(true);
      expect(errorOf(docs).message).toMatch(/Set CONTEXT7_API_KEY to answer from Context7\.$/);
      const resolved = await keyless.call('resolve-library-id', { libraryName: 'zzz-no-such-lib' });
      expect(textOf(resolved)).toContain('Set CONTEXT7_API_KEY to answer from Context7.');
      const unfetched = await keyless.call('get-library-docs', { libraryId: '/nextjs-docs' });
      expect(unfetched.isError).toBe(true);
      const error = errorOf(unfetched);
      expect(error.code).toBe('SOURCE_UNAVAILABLE');
      expect(error.message).toMatch(
        /^The documentation of Next\.js could not be fetched: .+\. Set CONTEXT7_API_KEY to answer from Context7\.$/,
      );
      expect(error.message).not.toContain('is not a document');
      const engineResolve = await keyless.call('resolve-library', { query: 'zzz-no-such-lib' });
      expect(errorOf(engineResolve)).toMatchObject({ code: 'LIBRARY_NOT_FOUND' });
      expect(errorOf(engineResolve).message).toMatch(/Set CONTEXT7_API_KEY to answer from Context7\.$/);
      const engineDocs = errorOf(await keyless.call('get-docs', { libraryId: 'nextjs-docs', topic: 'middleware' }));
      expect(engineDocs.message).toMatch(/Set CONTEXT7_API_KEY to answer from Context7\.$/);
      expect(context7.requests.filter((r) => r.authorization === undefined)).toEqual([]);
    });

    it("codex7: local ids carry the seed's leading slash; a truncated document names get-library-docs and tokens", async () => {
      const httpx = await server.call('resolve-library-id', { libraryName: 'httpx' });
      expect(httpx.structuredContent).toMatchObject({ id: '/httpx', source: 'local', tool: 'get-library-docs' });
      const cut = await server.call('get-library-docs', {
        libraryId: '/httpx',
        path: 'quickstart/index.md',
        tokens: 300,
      });
      expect(cut.isError).toBeFalsy();
      expect(cut.structuredContent).toMatchObject({ libraryId: '/httpx', truncated: true });
      const text = textOf(cut);
      expect(text).toMatch(
        /\[Content truncated\. \d+ tokens not shown\. Call get-library-docs again with path "quickstart\/index\.md" and a higher tokens limit \(the whole document is about \d+ tokens\) to see more\.\]/,
      );
      expect(text).not.toContain('read-page');
      expect(text).not.toContain('maxTokens');
    });
  },
);

describe.skipIf(skipReason)(
  `seed 004's tools over HTTP, and Context7 on a private address${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let context7: FakeContext7;
    let dir: string;
    let http: ChildProcess | undefined;
    let strict: Connection | undefined;
    const stderr: string[] = [];

    beforeAll(async () => {
      context7 = await startFakeContext7({ apiKey: KEY });
      dir = mkdtempSync(join(tmpdir(), 'pc-seed004-'));
    });
    afterAll(async () => {
      if (http && http.exitCode === null) http.kill('SIGKILL');
      await strict?.close();
      await context7?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('the HTTP server lists search_documentation and resolve_library with Context7 enabled, and answers them', async () => {
      const configFile = join(dir, 'http.config.yaml');
      writeFileSync(
        configFile,
        JSON.stringify({
          ...offlineRegistries,
          security: { allowPrivateNetwork: true },
          cache: { directory: join(dir, 'cache-http') },
          project: { autoDetect: false },
          server: { auth: 'none' },
          plugins: ['context7'],
        }),
      );
      const port = await freePort();
      http = spawn(process.execPath, [cliPath, 'serve', '--http'], {
        env: {
          PATH: process.env.PATH ?? '',
          HOME: dir,
          PRO_CONTEXT_CONFIG: configFile,
          PRO_CONTEXT_PORT: String(port),
          CONTEXT7_API_KEY: KEY,
          PRO_CONTEXT_CONTEXT7_URL: context7.url,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      http.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
      const started = Date.now();
      while (!/pro-context HTTP server ready/.test(stderr.join(''))) {
        if (http.exitCode !== null || Date.now() - started > 30_000) throw new Error(`no server:\n${stderr.join('')}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const client = new Client({ name: 'agent', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
      try {
        const names = (await client.listTools()).tools.map((t) => t.name);
        expect(names).toEqual(expect.arrayContaining(['search_documentation', 'resolve_library']));
        const result = (await client.callTool(
          { name: 'search_documentation', arguments: { libraryName: 'next.js', topic: 'middleware' } },
          CallToolResultSchema,
          { timeout: 60_000 },
        )) as CallToolResult;
        expect(result.isError, textOf(result)).toBeFalsy();
        expect(result.structuredContent).toMatchObject({ libraryId: '/vercel/next.js' });
      } finally {
        await client.close();
      }
      expect(stderr.join('')).not.toContain(KEY);
    });

    it("Context7's refusal of a private address (a mirror on the intranet) names security.allowPrivateNetwork", async () => {
      const configFile = join(dir, 'strict.config.yaml');
      writeFileSync(
        configFile,
        JSON.stringify({
          ...offlineRegistries,
          cache: { directory: join(dir, 'cache-strict') },
          project: { autoDetect: false },
        }),
      );
      strict = await connectStdio(configFile, {
        PRO_CONTEXT_PLUGINS: 'context7',
        CONTEXT7_API_KEY: KEY,
        PRO_CONTEXT_CONTEXT7_URL: context7.url,
      });
      const before = context7.count();
      const refused = await strict.call('context7.search', { query: 'react' });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/^\[Context7 unreachable: .*security\.allowPrivateNetwork/);
      expect(context7.count()).toBe(before);
    });
  },
);

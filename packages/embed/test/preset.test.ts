import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSilentLogger } from '@pro-context/logging';
import exaPlugin from '@pro-context/plugin-exa';
import groundingPlugin from '@pro-context/plugin-grounding';
import {
  type FakeContext7,
  type FakeExa,
  type FakeGemini,
  startFakeContext7,
  startFakeExa,
  startFakeGemini,
} from '@pro-context/testing';
import { corpusSites, type FakeWeb, findCorpusRoot, startFakeWeb } from '@pro-context/testing/fake-web';
import { startProContext } from 'pro-context';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolClient, type ToolClient } from '../src/index.js';

const corpusRoot = findCorpusRoot();

describe.skipIf(!corpusRoot)('createToolClient() starting the preset (real SQLite and Orama, the httpx corpus)', () => {
  let web: FakeWeb;
  let exa: FakeExa;
  let gemini: FakeGemini;
  let client: ToolClient;
  let dir: string;

  beforeAll(async () => {
    web = await startFakeWeb({ sites: corpusSites(corpusRoot as string) });
    exa = await startFakeExa();
    gemini = await startFakeGemini();
    dir = mkdtempSync(join(tmpdir(), 'pc-embed-'));
    client = await createToolClient({
      tools: 'all',
      compose: startProContext,
      start: {
        config: {
          values: {
            registry: { enabled: false },
            registries: { pypi: { enabled: false }, npm: { enabled: false } },
            security: { allowPrivateNetwork: true },
            http: { retryDelaysMs: [10, 20], timeoutMs: 10_000 },
            cache: { directory: join(dir, 'cache') },
            libraries: [{ id: 'httpx', name: 'HTTPX', language: 'python', llmsTxtUrl: web.llmsTxtUrl('httpx') }],
          },
          lines: new Map(),
          fromEnv: new Map(),
          // the keys and URLs reach the plugins through their declared environment variables, as in a server
          env: {
            EXA_API_KEY: exa.apiKey,
            PRO_CONTEXT_EXA_URL: exa.url,
            OT_GEMINI_API_KEY: gemini.apiKey,
            PRO_CONTEXT_GEMINI_URL: gemini.url,
          },
        },
        plugins: [groundingPlugin, exaPlugin],
        logger: createSilentLogger(),
      },
    });
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await Promise.all([web?.close(), exa?.close(), gemini?.close()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('offers the docs engine and the installed remote plugins, and answers search_documentation from the corpus', async () => {
    expect(client.getAvailableTools()).toEqual(
      expect.arrayContaining(['search_documentation', 'resolve_library', 'get-docs', 'ground.search', 'web_search']),
    );
    const result = await client.executeTool('search_documentation', { libraryName: 'httpx', topic: 'async client' });
    expect(result.success).toBe(true);
    const data = result.data as { libraryId: string; documentation: string; codeExamples: number };
    expect(data.libraryId).toBe('httpx');
    expect(data.documentation).toContain('AsyncClient');
    expect(data.codeExamples).toBeGreaterThan(0);
    const grounded = await client.executeTool('ground.docs', { query: 'AsyncClient timeouts', technology: 'HTTPX' });
    expect(grounded.success).toBe(true);
    expect(grounded.metadata?.text).toContain('## Sources\n\n1. [');
    expect(gemini.prompts().at(-1)).toContain('official HTTPX documentation');
  }, 60_000);
});

describe('search_documentation falls back to Context7 for a library the docs engine does not know (seed 004 §2.2)', () => {
  let context7: FakeContext7;
  let client: ToolClient;
  let dir: string;

  beforeAll(async () => {
    context7 = await startFakeContext7({ apiKey: 'c7-embed-test-key' });
    dir = mkdtempSync(join(tmpdir(), 'pc-embed-c7-'));
    client = await createToolClient({
      compose: startProContext,
      start: {
        config: {
          values: {
            registry: { enabled: false },
            registries: { pypi: { enabled: false }, npm: { enabled: false } },
            security: { allowPrivateNetwork: true },
            cache: { directory: join(dir, 'cache') },
            project: { autoDetect: false },
            plugins: ['context7'],
          },
          lines: new Map(),
          fromEnv: new Map(),
          env: { CONTEXT7_API_KEY: 'c7-embed-test-key', PRO_CONTEXT_CONTEXT7_URL: context7.url },
        },
        logger: createSilentLogger(),
      },
    });
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await context7?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers next.js from Context7, and says so in the metadata', async () => {
    const result = await client.executeTool('search_documentation', { libraryName: 'next.js', topic: 'middleware' });
    expect(result.success, JSON.stringify(result.error)).toBe(true);
    const data = result.data as { libraryId: string; documentation: string; trustScore: number };
    expect(data.libraryId).toBe('/vercel/next.js');
    expect(data.documentation).toMatch(/middleware/i);
    expect(data.trustScore).toBe(10);
    expect(result.metadata?.source).toBe('context7');
    const resolved = await client.executeTool('resolve_library', { libraryName: 'next.js' });
    expect((resolved.data as { matches: { libraryId: string }[] }).matches[0]?.libraryId).toBe('/vercel/next.js');
  }, 60_000);
});

describe("createToolClient() starting the preset itself: quiet, with the seed's plugins", () => {
  let dir: string;
  let exa: FakeExa;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pc-embed-quiet-'));
    exa = await startFakeExa();
  });
  afterAll(async () => {
    await exa?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("writes nothing to the host program's stderr, offers the seed's tools, and names CONTEXT7_API_KEY for an unknown library", async () => {
    const written: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
      written.push(String(chunk));
      return write(chunk, ...rest);
    }) as typeof process.stderr.write;
    let client: ToolClient | undefined;
    try {
      client = await createToolClient({
        compose: startProContext,
        start: {
          config: {
            values: {
              registry: { enabled: false },
              registries: { pypi: { enabled: false }, npm: { enabled: false } },
              security: { allowPrivateNetwork: true },
              cache: { directory: join(dir, 'cache') },
              project: { autoDetect: false },
              // debug: every span would be a JSON line on stderr with the kernel's default logger
              logging: { level: 'debug' },
            },
            lines: new Map(),
            fromEnv: new Map(),
            // a blank Context7 key is no key
            env: { EXA_API_KEY: exa.apiKey, PRO_CONTEXT_EXA_URL: exa.url, CONTEXT7_API_KEY: '   ' },
          },
        },
      });
      expect(client.getAvailableTools()).toEqual([
        'search_documentation',
        'resolve_library',
        'web_search',
        'find_similar_content',
      ]);
      const search = await client.executeTool('web_search', { query: 'httpx async client', numResults: 1 });
      expect(search.success).toBe(true);
      const docs = await client.executeTool('search_documentation', { libraryName: 'zzz-unknown-lib' });
      expect(docs).toMatchObject({ success: false, metadata: { code: 'LIBRARY_NOT_FOUND' } });
      expect(docs.error).toMatch(/Set CONTEXT7_API_KEY to answer from Context7\.$/);
      const resolved = await client.executeTool('resolve_library', { libraryName: 'zzz-unknown-lib' });
      expect(resolved.error).toMatch(/Set CONTEXT7_API_KEY to answer from Context7\.$/);
    } finally {
      await client?.close();
      process.stderr.write = write;
    }
    expect(written.join('')).toBe('');
  }, 60_000);
});

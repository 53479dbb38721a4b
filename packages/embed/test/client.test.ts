import { enginePlugin } from '@pro-context/engine';
import { definePlugin, KERNEL_VERSION, type StartedKernel, sourceAdapterToken } from '@pro-context/kernel';
import { createLogger } from '@pro-context/logging';
import exaPlugin from '@pro-context/plugin-exa';
import groundingPlugin from '@pro-context/plugin-grounding';
import { createTestKernel, type FakeExa, StaticSourceAdapter, startFakeExa } from '@pro-context/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createToolClient,
  type DocsFallback,
  type LibraryMatch,
  type ToolClient,
  type ToolClientOptions,
} from '../src/index.js';

const EXA_KEY = 'exa-embed-key-71c3a9d0e5f4';

const acmeDocs = {
  acme: {
    pages: [
      {
        url: 'https://docs.acme.test/billing',
        title: 'Billing',
        markdown:
          '# Billing\n\n## Create an invoice\n\nCreate an invoice with `acme.invoices.create()`:\n\n```python\nimport acme\n\ninvoice = acme.invoices.create(customer="c_1", amount=1200)\n```\n\nThen send it:\n\n```python\nacme.invoices.send(invoice.id)\n```\n',
      },
      {
        url: 'https://docs.acme.test/customers',
        title: 'Customers',
        markdown: '# Customers\n\nCustomers hold payment methods. List them with `acme.customers.list()`.\n',
      },
    ],
  },
};

let exa: FakeExa;
const clients: ToolClient[] = [];
const kernels: StartedKernel[] = [];
const written: string[] = [];

beforeAll(async () => {
  exa = await startFakeExa({ apiKey: EXA_KEY });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(kernels.splice(0).map((k) => k.stop()));
});
afterAll(async () => {
  await exa.close();
});

async function client(options: Omit<ToolClientOptions, 'kernel'> = {}) {
  const kernel = await createTestKernel({
    plugins: [
      enginePlugin,
      definePlugin({
        id: 'internal-docs',
        kernel: `>=${KERNEL_VERSION}`,
        register: (ctx) => ctx.bindValue(sourceAdapterToken, new StaticSourceAdapter('internal', acmeDocs)),
      }),
      groundingPlugin,
      exaPlugin,
    ],
    config: {
      libraries: [
        { id: 'acme', name: 'Acme', description: 'Acme billing SDK', language: 'python', source: 'internal' },
      ],
    },
    env: { EXA_API_KEY: EXA_KEY, PRO_CONTEXT_EXA_URL: exa.url },
    logger: createLogger({ level: 'debug', stream: { write: (line: string) => written.push(line) } }),
  });
  kernels.push(kernel);
  const created = await createToolClient({ kernel, ...options });
  clients.push(created);
  return created;
}

describe("createToolClient: the servers' tools in-process", () => {
  it('offers by default exactly the tools seed 004 names (search_documentation, resolve_library, web_search, find_similar_content)', async () => {
    const c = await client();
    expect(c.getAvailableTools()).toEqual([
      'search_documentation',
      'resolve_library',
      'web_search',
      'find_similar_content',
    ]);
    // an engine tool is not offered unless asked for
    const engine = await c.executeTool('get-docs', { libraryId: 'acme', topic: 'invoice' });
    expect(engine).toMatchObject({ success: false, error: 'Tool "get-docs" not found' });
  });

  it("offers the docs engine's and every installed plugin's tools on request, once each", async () => {
    const all = await client({ tools: 'all' });
    expect(all.getAvailableTools()).toEqual([
      'search_documentation',
      'resolve_library',
      'resolve-library',
      'get-docs',
      'search-docs',
      'read-page',
      'list-libraries',
      'ground.search',
      'ground.dev',
      'ground.docs',
      'ground.reddit',
      'web_search',
      'find_similar_content',
    ]);
    const some = await client({ tools: ['search_documentation', 'get-docs'] });
    expect(some.getAvailableTools()).toEqual(['search_documentation', 'get-docs']);
    await expect(client({ tools: ['nope'] })).rejects.toThrow('No tool named "nope" is installed.');
  });

  it('getToolsPrompt names each tool with its description and a one-line summary of its parameters, within 400 tokens', async () => {
    const c = await client();
    const prompt = c.getToolsPrompt();
    expect(
      prompt.startsWith(
        'Available external tools:\n\n- search_documentation: Search technical documentation, SDKs, and library references\n  Parameters: libraryName (string, required): e.g., "react", "next.js"; topic (string): e.g., "hooks", "routing"; tokens (integer, default 3000): max tokens\n- resolve_library: Find the correct library ID for a package name\n',
      ),
    ).toBe(true);
    expect(prompt).toContain('- web_search: Perform intelligent web search with AI-optimized ranking');
    expect(prompt).toContain('searchType ("neural" | "keyword", default "neural")');
    expect(prompt).toContain('TOOL_USE: <tool_name>\nPARAMS: <JSON parameters>');
    // measured: 1.7k tokens for 13 tools as indented JSON Schemas before; the seed's four tools now
    expect(c.getToolsPromptTokens()).toBeLessThanOrEqual(400);
    const only = c.getToolsPrompt(['web_search']);
    expect(only).toContain('- web_search:');
    expect(only).not.toContain('search_documentation');
  });

  it("search_documentation answers from the local engine with seed 004's output: libraryId, documentation, codeExamples, trustScore", async () => {
    const c = await client();
    const result = await c.executeTool('search_documentation', { libraryName: 'acme', topic: 'create an invoice' });
    expect(result.success).toBe(true);
    const data = result.data as { libraryId: string; documentation: string; codeExamples: number; trustScore: number };
    expect(Object.keys(data).sort()).toEqual(['codeExamples', 'documentation', 'libraryId', 'trustScore']);
    expect(data.libraryId).toBe('acme');
    expect(data.documentation).toContain('acme.invoices.create(customer="c_1", amount=1200)');
    expect(data.codeExamples).toBe(2);
    expect(data.trustScore).toBeGreaterThan(0);
    expect(data.trustScore).toBeLessThanOrEqual(10);
    expect(result.metadata).toMatchObject({ tool: 'search_documentation', source: 'local', maxTokens: 3000 });
    // tokens reaches get-docs' budget, clamped to its range
    const small = await c.executeTool('search_documentation', { libraryName: 'acme', topic: 'invoice', tokens: 200 });
    expect(small.metadata?.maxTokens).toBe(500);
  });

  it('resolve_library answers matches with libraryId, name, description, trustScore and snippets', async () => {
    const c = await client();
    const result = await c.executeTool('resolve_library', { libraryName: 'acme' });
    expect(result.success).toBe(true);
    const { matches } = result.data as { matches: LibraryMatch[] };
    expect(matches[0]).toEqual({
      libraryId: 'acme',
      name: 'Acme',
      description: 'Acme billing SDK',
      trustScore: 10,
      snippets: 2,
    });
    expect(result.metadata?.text).toContain('1. Acme (libraryId: acme, trust 10)');
    expect(result.metadata?.source).toBe('local');
  });

  it('validates parameters: a bad call is { success: false, error } naming the parameter, and never throws', async () => {
    const c = await client();
    const missing = await c.executeTool('search_documentation', { topic: 'hooks' });
    expect(missing).toMatchObject({ success: false, metadata: { code: 'INVALID_INPUT' } });
    expect(missing.error).toContain('libraryName');
    const wrongType = await c.executeTool('web_search', { query: 'x', numResults: 'five' });
    expect(wrongType).toMatchObject({ success: false, metadata: { code: 'INVALID_INPUT' } });
    expect(wrongType.error).toContain('numResults');
    const unknown = await c.executeTool('nope', {});
    expect(unknown).toMatchObject({ success: false, error: 'Tool "nope" not found' });
    expect(unknown.metadata?.suggestion).toContain('web_search');
    expect(exa.requests).toHaveLength(0);
  });

  it("runs the remote plugins' tools: web_search on the Exa fake, ground.* answering the seed's missing-key message", async () => {
    const c = await client({ tools: 'all' });
    const search = await c.executeTool('web_search', { query: 'httpx async client', numResults: 2 });
    expect(search.success).toBe(true);
    const data = search.data as { results: { url: string }[]; searchMetadata: { totalResults: number } };
    expect(data.results.map((r) => r.url)).toEqual([
      'https://www.python-httpx.org/async/',
      'https://github.com/encode/httpx',
    ]);
    expect(data.searchMetadata.totalResults).toBe(2);
    expect(search.metadata?.text).toContain('## Web results for "httpx async client" (2)');
    const grounded = await c.executeTool('ground.search', { query: 'anything' });
    expect(grounded).toMatchObject({ success: false, error: 'Error: OT_GEMINI_API_KEY environment variable not set' });
    expect(grounded.metadata?.text).toBe('Error: OT_GEMINI_API_KEY environment variable not set');
  });
});

describe('the kernel the client runs on', () => {
  it('is given (kernel) or started by the composer it is given (compose): the embed host imports no preset', async () => {
    await expect(createToolClient()).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: 'createToolClient needs a started kernel or a composer to start one.',
    });
    const seen: { plugins: string[]; silent: boolean }[] = [];
    const composed = await createToolClient({
      compose: async (options) => {
        seen.push({ plugins: (options.plugins ?? []).map((p) => p.id), silent: options.logger !== undefined });
        return createTestKernel({ plugins: [enginePlugin, ...(options.plugins ?? [])] });
      },
      start: { plugins: [groundingPlugin] },
      tools: 'all',
    });
    try {
      // the composer got the caller's plugins, the seed's (context7, exa) added, and a logger
      expect(seen).toEqual([{ plugins: ['grounding', 'context7', 'exa'], silent: true }]);
      expect(composed.getAvailableTools()).toEqual(expect.arrayContaining(['get-docs', 'web_search', 'ground.search']));
    } finally {
      await composed.close();
    }
  });
});

describe('libraries the local engine does not have', () => {
  it('without Context7: the answer names what would let Context7 answer, instead of "no match"', async () => {
    const c = await client();
    const resolved = await c.executeTool('resolve_library', { libraryName: 'zzz-unknown-lib' });
    expect(resolved).toMatchObject({ success: false, metadata: { code: 'LIBRARY_NOT_FOUND' } });
    expect(resolved.error).toContain(
      'Enable the context7 plugin (PRO_CONTEXT_PLUGINS=context7) and set CONTEXT7_API_KEY',
    );
    const docs = await c.executeTool('search_documentation', { libraryName: 'zzz-unknown-lib', topic: 'x' });
    expect(docs).toMatchObject({ success: false, metadata: { code: 'LIBRARY_NOT_FOUND' } });
    expect(docs.error).toContain('CONTEXT7_API_KEY');
    // a fallback bound without its key says which key
    const keyless = await client({ fallback: fakeFallback([], false) });
    const named = await keyless.executeTool('search_documentation', { libraryName: 'zzz-unknown-lib' });
    expect(named.error).toMatch(/Set CONTEXT7_API_KEY to answer from Context7\.$/);
  });

  it('with a fallback (the Context7 seam): asked only for libraries the engine does not know, with provenance', async () => {
    const asked: string[] = [];
    const c = await client({ fallback: fakeFallback(asked, true) });
    const local = await c.executeTool('search_documentation', { libraryName: 'acme', topic: 'invoice' });
    expect(local.metadata?.source).toBe('local');
    expect(asked).toEqual([]);
    const remote = await c.executeTool('search_documentation', { libraryName: 'next.js', topic: 'app router' });
    expect(remote).toMatchObject({
      success: true,
      data: { libraryId: '/vercel/next.js', codeExamples: 1, trustScore: 9.5 },
      metadata: { source: 'context7', reason: "the local docs engine does not know 'next.js'" },
    });
    expect(remote.metadata?.text).toContain(
      "Source: Context7 · https://context7.com/vercel/next.js (fallback: the local docs engine does not know 'next.js')",
    );
    const matches = await c.executeTool('resolve_library', { libraryName: 'next.js' });
    expect(matches).toMatchObject({
      success: true,
      data: { matches: [{ libraryId: '/vercel/next.js', name: 'Next.js', trustScore: 9.5, snippets: 45 }] },
      metadata: { source: 'context7' },
    });
    expect(asked).toEqual(['docs next.js app router 3000', 'search next.js']);
  });
});

describe('executeToolFromResponse (seed 004 §1.7)', () => {
  it('feeds back TOOL_RESULT as the seed does, JSON.stringify(data, null, 2); markdown on request', async () => {
    const c = await client();
    const reply = 'TOOL_USE: resolve_library\nPARAMS: {"libraryName": "acme"}';
    const data = (await c.executeTool('resolve_library', { libraryName: 'acme' })).data;
    expect(await c.executeToolFromResponse(reply)).toBe(
      `TOOL_RESULT for resolve_library:\n${JSON.stringify(data, null, 2)}`,
    );
    const markdown = await client({ resultFormat: 'markdown' });
    expect(await markdown.executeToolFromResponse(reply)).toBe(
      "TOOL_RESULT for resolve_library:\n1. Acme (libraryId: acme, trust 10) — Acme billing SDK\n\n---\n\nSource: pro-context's docs engine",
    );
    expect(await c.executeToolFromResponse('TOOL_USE: nope\nPARAMS: {}')).toBe(
      'TOOL_ERROR for nope:\nTool "nope" not found\nAvailable tools: search_documentation, resolve_library, web_search, find_similar_content.',
    );
  });
});

/** A stand-in Context7 fallback that records what it was asked. */
function fakeFallback(asked: string[], available: boolean): DocsFallback {
  return {
    id: 'context7',
    name: 'Context7',
    available,
    enableHint: 'Set CONTEXT7_API_KEY to answer from Context7.',
    async search(name) {
      asked.push(`search ${name}`);
      return [
        { id: '/vercel/next.js', title: 'Next.js', description: 'The React framework', trustScore: 9.5, snippets: 45 },
      ];
    },
    async docs({ library, topic, tokens }) {
      asked.push(`docs ${library} ${topic} ${tokens}`);
      return {
        libraryId: '/vercel/next.js',
        title: 'Next.js',
        content: '## App Router\n\nThe App Router…\n\n```tsx\nexport default function Page() {}\n```',
        url: 'https://context7.com/vercel/next.js',
        trustScore: 9.5,
      };
    },
  };
}

describe('parseToolUse (seed 004 §2.3)', () => {
  it('reads the tool and its JSON parameters, nested objects and braces in strings included', async () => {
    const c = await client();
    expect(
      c.parseToolUse(
        'I need docs.\nTOOL_USE: search_documentation\nPARAMS: {"libraryName": "next.js", "topic": "app router"}',
      ),
    ).toEqual({
      tool: 'search_documentation',
      params: { libraryName: 'next.js', topic: 'app router' },
    });
    expect(
      c.parseToolUse('TOOL_USE: web_search\nPARAMS: {"query": "a {b} c", "opts": {"x": [1, {"y": "}"}]}}\nthanks'),
    ).toEqual({
      tool: 'web_search',
      params: { query: 'a {b} c', opts: { x: [1, { y: '}' }] } },
    });
    expect(c.parseToolUse('TOOL_USE: `resolve_library`\nPARAMS:\n```json\n{"libraryName": "react"}\n```')).toEqual({
      tool: 'resolve_library',
      params: { libraryName: 'react' },
    });
    expect(c.parseToolUse('TOOL_USE: list-libraries')).toEqual({ tool: 'list-libraries', params: {} });
    expect(c.parseToolUse('Here is my final answer.')).toBeUndefined();
    expect(c.parseToolUse('TOOL_USE: web_search\nPARAMS: {"query": }')).toMatchObject({
      tool: 'web_search',
      error: expect.stringContaining('PARAMS is not valid JSON'),
    });
    expect(c.parseToolUse('TOOL_USE: web_search\nPARAMS: "query"')).toMatchObject({
      error: expect.stringContaining('JSON object'),
    });
  });
});

describe('secrets', () => {
  it('the Exa key appears nowhere in what the kernels of this file logged', () => {
    expect(written.some((line) => line.includes('"span":"exa.web_search"'))).toBe(true);
    expect(written.filter((line) => line.includes(EXA_KEY))).toEqual([]);
  });
});

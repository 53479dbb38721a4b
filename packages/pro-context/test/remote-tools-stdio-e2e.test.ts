import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type CallToolResult, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { type FakeExa, type FakeGemini, startFakeExa, startFakeGemini } from '@pro-context/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, offlineRegistries } from './helpers.js';

// the built CLI, as a user runs it: the two plugins enabled by PRO_CONTEXT_PLUGINS
const built = existsSync(cliPath);

/** Keys no redaction pattern recognises, so a leak would show as written. */
const GEMINI_KEY = 'gk-stdio-3a9b8c7d6e5f4a3b2c1d';
const EXA_KEY = 'exa-stdio-6f5e4d3c2b1a0f9e';

interface Server {
  client: Client;
  /** Everything the server process wrote: stderr, and every MCP message on stdout. */
  written: string[];
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
}

const text = (result: CallToolResult) => result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

describe.skipIf(!built)('the stdio server with the grounding and exa plugins (seed 003, seed 004 §2.2)', () => {
  let gemini: FakeGemini;
  let exa: FakeExa;
  let dir: string;
  const servers: { client: Client }[] = [];
  const written: string[] = [];

  async function spawn(env: Record<string, string>): Promise<Server> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliPath],
      cwd: dir,
      env: {
        ...getDefaultEnvironment(),
        PRO_CONTEXT_PLUGINS: 'grounding,exa',
        PRO_CONTEXT_CONFIG: join(dir, 'pro-context.config.yaml'),
        PRO_CONTEXT_LOG_LEVEL: 'debug',
        ...env,
      },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (d: Buffer) => written.push(d.toString()));
    const client = new Client({ name: 'e2e', version: '0.0.1' }, { capabilities: {} });
    await client.connect(transport);
    const deliver = transport.onmessage;
    transport.onmessage = (message) => {
      written.push(JSON.stringify(message));
      deliver?.(message);
    };
    servers.push({ client });
    return {
      client,
      written,
      call: async (name, args) =>
        (await client.callTool({ name, arguments: args }, CallToolResultSchema, { timeout: 30_000 })) as CallToolResult,
    };
  }

  beforeAll(async () => {
    gemini = await startFakeGemini({ apiKey: GEMINI_KEY });
    exa = await startFakeExa({ apiKey: EXA_KEY });
    dir = mkdtempSync(join(tmpdir(), 'pc-remote-'));
    const config = {
      security: { allowPrivateNetwork: true },
      http: { retryDelaysMs: [10, 20], timeoutMs: 10_000 },
      cache: { directory: join(dir, 'cache') },
      ...offlineRegistries,
      project: { autoDetect: false },
    };
    writeFileSync(join(dir, 'pro-context.config.yaml'), JSON.stringify(config, null, 2));
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.client.close()));
    await Promise.all([gemini?.close(), exa?.close()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const keys = () => ({
    OT_GEMINI_API_KEY: GEMINI_KEY,
    PRO_CONTEXT_GEMINI_URL: gemini.url,
    EXA_API_KEY: EXA_KEY,
    PRO_CONTEXT_EXA_URL: exa.url,
  });

  it('lists the docs engine tools beside ground.* and the Exa tools, and answers each seed 003 tool with numbered sources', async () => {
    const server = await spawn(keys());
    const names = (await server.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'resolve-library',
        'get-docs',
        'ground.search',
        'ground.dev',
        'ground.docs',
        'ground.reddit',
        'web_search',
        'find_similar_content',
      ]),
    );
    const calls: [string, Record<string, unknown>, string][] = [
      [
        'ground.search',
        { query: 'asyncio task groups', context: 'Python async programming', focus: 'code' },
        'Context: Python async programming',
      ],
      ['ground.search', { query: 'q', model: 'gemini-3.0-flash' }, 'Search the web and answer: q'],
      [
        'ground.dev',
        { query: 'background tasks', language: 'Python', framework: 'FastAPI' },
        'Prioritize results for the FastAPI framework.',
      ],
      ['ground.docs', { query: 'hooks', technology: 'React' }, 'Search the official React documentation'],
      ['ground.reddit', { query: 'tabs or spaces', subreddit: 'programming' }, 'site:reddit.com/r/programming'],
    ];
    for (const [name, args, inPrompt] of calls) {
      const result = await server.call(name, args);
      expect(result.isError).toBeFalsy();
      expect(text(result)).toMatch(
        /## Sources\n\n1\. \[docs\.example\.com\]\(https:\/\/[^)]+\)\n2\. \[stackoverflow\.com\]\(https:\/\/[^)]+\)$/,
      );
      expect(gemini.prompts().at(-1)).toContain(inPrompt);
    }
    expect(gemini.models()).toContain('gemini-3.0-flash');
    expect(gemini.models().filter((m) => m === 'gemini-2.5-flash')).toHaveLength(4);
  });

  it('answers web_search and find_similar_content with the seed output schemas and markdown', async () => {
    const server = await spawn(keys());
    const search = await server.call('web_search', { query: 'FastAPI dependencies with yield', numResults: 3 });
    expect(search.isError).toBeFalsy();
    const structured = search.structuredContent as {
      results: { url: string }[];
      searchMetadata: { totalResults: number };
    };
    expect(structured.results[0]?.url).toBe(
      'https://fastapi.tiangolo.com/tutorial/dependencies/dependencies-with-yield/',
    );
    expect(structured.searchMetadata.totalResults).toBe(3);
    expect(text(search)).toContain('## Web results for "FastAPI dependencies with yield" (3)');
    const similar = await server.call('find_similar_content', {
      url: 'https://www.python-httpx.org/async/',
      numResults: 2,
    });
    expect((similar.structuredContent as { results: unknown[] }).results).toHaveLength(2);
  });

  it('without keys the tools are still listed and answer the missing-key messages; refused keys and failures are coded errors', async () => {
    const server = await spawn({ PRO_CONTEXT_GEMINI_URL: gemini.url, PRO_CONTEXT_EXA_URL: exa.url });
    const names = (await server.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['ground.search', 'web_search']));
    for (const name of ['ground.search', 'ground.dev', 'ground.docs', 'ground.reddit']) {
      expect(text(await server.call(name, { query: 'x' }))).toBe(
        'Error: OT_GEMINI_API_KEY environment variable not set',
      );
    }
    expect(text(await server.call('web_search', { query: 'x' }))).toBe(
      'Error: EXA_API_KEY environment variable not set',
    );
    const wrong = await spawn({
      ...keys(),
      OT_GEMINI_API_KEY: 'gk-wrong-stdio-000000',
      EXA_API_KEY: 'exa-wrong-stdio-0000',
    });
    expect(JSON.parse(text(await wrong.call('ground.search', { query: 'x' }))).code).toBe('GROUNDING_KEY_REJECTED');
    expect(JSON.parse(text(await wrong.call('web_search', { query: 'x' }))).code).toBe('EXA_KEY_REJECTED');
    const ok = await spawn(keys());
    gemini.fault({ status: 429, retryAfter: 90 });
    expect(JSON.parse(text(await ok.call('ground.search', { query: 'limited' })))).toMatchObject({
      code: 'RATE_LIMITED',
      retryAfter: 90,
    });
    gemini.fault();
    exa.fault({ status: 500 });
    expect(JSON.parse(text(await ok.call('web_search', { query: 'down' }))).code).toBe('SOURCE_UNAVAILABLE');
    exa.fault();
  });

  it('never writes a key: not on stderr (debug logs), not in any MCP message', () => {
    const all = written.join('\n');
    // the seed 003 spans, the failed one with its error message
    const spans = all.match(/\{[^\n]*"span":"ground\.search"[^\n]*\}/g) ?? [];
    expect(spans.some((line) => line.includes('"hasResults":true') && line.includes('"resultLen":'))).toBe(true);
    expect(
      spans.some((line) => line.includes('"error":"Gemini rate limit reached (HTTP 429 RESOURCE_EXHAUSTED)')),
    ).toBe(true);
    expect(all).toContain('EXA_KEY_REJECTED');
    for (const key of [GEMINI_KEY, EXA_KEY, 'gk-wrong-stdio-000000', 'exa-wrong-stdio-0000'])
      expect(all).not.toContain(key);
  });
});

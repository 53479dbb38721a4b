import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type CallToolResult, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { type FakeEmbeddings, openAiErrorBody, startFakeEmbeddings } from '@pro-context/testing';
import type { FakeWeb } from '@pro-context/testing/fake-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, offlineRegistries, skipReason, startCorpusWeb } from './helpers.js';

/** A key no redaction pattern recognises, so a leak would show as written. */
const KEY = 'emb-e2e-7c6b5a4f3e2d1c0b9a8f';

interface Server {
  /** Everything the server wrote: stderr, and every MCP message on stdout. */
  written: string[];
  docs(topic: string): Promise<{ content: string; notes: string[]; text: string }>;
  close(): Promise<void>;
}

/** The blocks of a get-docs answer's content: each `<!-- label — url -->` and the text under it. */
const blocks = (content: string) => content.split('\n\n---\n\n');
const label = (block: string | undefined) => /^<!-- (.*?) — /.exec(block ?? '')?.[1];

/**
 * Issue #28, deliverable 7, through the real stdio server: httpx's docs (the fake web) ranked lexically by one
 * server, and by a second one configured with the openai-embeddings plugin against a loopback OpenAI-compatible
 * embeddings server (same cache: the second loads the docs the first indexed).
 */
describe.skipIf(skipReason)(`get-docs reranked by an embeddings model${skipReason ? ` (${skipReason})` : ''}`, () => {
  let web: FakeWeb;
  let fake: FakeEmbeddings;
  let dir: string;
  let lexical: Server;
  let reranked: Server;
  /** A phrase of the section the fake's vectors make the query's closest (set from the lexical answer). */
  let favoured: string | undefined;
  const servers: Server[] = [];

  async function spawn(configFile: string, env: Record<string, string> = {}): Promise<Server> {
    const written: string[] = [];
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [cliPath],
      cwd: dir,
      env: { ...getDefaultEnvironment(), PRO_CONTEXT_CONFIG: configFile, PRO_CONTEXT_LOG_LEVEL: 'debug', ...env },
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
    const server: Server = {
      written,
      async docs(topic) {
        const result = (await client.callTool(
          { name: 'get-docs', arguments: { libraryId: 'httpx', topic, maxTokens: 3000 } },
          CallToolResultSchema,
          { timeout: 60_000 },
        )) as CallToolResult;
        expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
        const structured = result.structuredContent as { content: string; notes?: string[] };
        const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
        return { content: structured.content, notes: structured.notes ?? [], text };
      },
      close: () => client.close(),
    };
    servers.push(server);
    return server;
  }

  beforeAll(async () => {
    web = await startCorpusWeb();
    // the query and the favoured section share one direction, every other text another
    fake = await startFakeEmbeddings({
      apiKey: KEY,
      vector: (text) =>
        /^how do I upload a file/.test(text) || (favoured && text.includes(favoured)) ? [1, 0, 0] : [0, 1, 0],
    });
    dir = mkdtempSync(join(tmpdir(), 'pc-rerank-'));
    const base = {
      security: { allowPrivateNetwork: true },
      http: { retryDelaysMs: [10, 20], timeoutMs: 10_000 },
      cache: { directory: join(dir, 'cache') },
      ...offlineRegistries,
      project: { autoDetect: false },
      libraries: [{ id: 'httpx', name: 'HTTPX', language: 'python', llmsTxtUrl: web.llmsTxtUrl('httpx') }],
    };
    writeFileSync(join(dir, 'lexical.yaml'), JSON.stringify(base));
    // the key comes from the environment (a secret): never in the file
    writeFileSync(
      join(dir, 'reranked.yaml'),
      JSON.stringify({
        ...base,
        embeddings: { baseUrl: fake.baseUrl, model: 'fake-embed', timeoutMs: 800, retries: 0 },
      }),
    );
    lexical = await spawn(join(dir, 'lexical.yaml'));
  }, 120_000);
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await fake?.close();
    await web?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("puts first the section the model's vectors make closest to the question", async () => {
    const topic = 'how do I upload a file';
    const plain = await lexical.docs(topic);
    const [first, second] = blocks(plain.content);
    expect(second).toBeDefined();
    // a phrase of the lexical second section that the first does not hold
    favoured = (second as string)
      .split('\n')
      .slice(1)
      .map((line) => line.trim())
      .find((line) => line.length >= 30 && !line.startsWith('#') && !first?.includes(line.slice(0, 40)))
      ?.slice(0, 40);
    expect(favoured).toBeDefined();
    reranked = await spawn(join(dir, 'reranked.yaml'), { PRO_CONTEXT_EMBEDDINGS_API_KEY: KEY });
    const answer = await reranked.docs(topic);
    expect(label(blocks(answer.content)[0])).toBe(label(second));
    expect(label(blocks(answer.content)[0])).not.toBe(label(first));
    expect(answer.notes).toEqual([]);
    // the model was asked with the key, for the query and the sections
    const request = fake.requests.find((r) => r.path === '/v1/embeddings');
    expect(request?.headers.authorization).toBe(`Bearer ${KEY}`);
    const input = (request?.body as { input?: string[] } | undefined)?.input ?? [];
    expect(input[0]).toBe(topic);
    expect(input.length).toBeGreaterThan(2);
    // asked again: the same answer (stored apart from the lexical one), nothing asked of the model
    const asked = fake.count();
    expect((await reranked.docs(topic)).content).toBe(answer.content);
    expect(fake.count()).toBe(asked);
  });

  /** A failure of the model: the reranked server's answer is the lexical one, with a note naming the cause. */
  async function degrades(topic: string, code: RegExp, why: RegExp) {
    const plain = await lexical.docs(topic);
    const answer = await reranked.docs(topic);
    expect(answer.content).toBe(plain.content);
    expect(answer.notes).toHaveLength(1);
    expect(answer.notes[0]).toMatch(code);
    expect(answer.notes[0]).toMatch(why);
    expect(answer.notes[0]).toMatch(/the lexical ranking answered/);
    expect(answer.text).toContain(`Note: ${answer.notes[0]}`);
    return answer;
  }

  it('degrades to the lexical answer with a coded note when the server refuses the connection', async () => {
    await fake.refuse();
    try {
      await degrades('configure proxies', /^EMBEDDINGS_UNREACHABLE: /, /the connection was refused/);
    } finally {
      await fake.accept();
    }
  });

  it('… when it answers in the wrong shape', async () => {
    fake.fault({ json: { object: 'list', data: 'nope' } });
    await degrades('timeout configuration', /^EMBEDDINGS_BAD_RESPONSE: /, /no "data" list/);
    fake.fault({ status: 200, body: '<html><body>Captive portal</body></html>' });
    await degrades('event hooks', /^EMBEDDINGS_BAD_RESPONSE: /, /not JSON/);
    fake.fault();
  });

  it('… when it refuses the key, echoing part of it or its base64: the note has none of it, nor the address', async () => {
    const partial = `${KEY.slice(0, 8)}****${KEY.slice(-4)}`;
    const base64 = Buffer.from(`:${KEY}`).toString('base64');
    fake.fault({
      status: 401,
      body: JSON.stringify(
        openAiErrorBody(
          `Incorrect API key provided: ${partial} (Basic ${base64}).`,
          'invalid_request_error',
          'invalid_api_key',
        ),
      ),
    });
    const answer = await degrades('ssl certificates', /^EMBEDDINGS_KEY_REJECTED: /, /HTTP 401/);
    // the code, a fixed sentence and the status: no upstream text, no URL
    expect(answer.notes[0]).toContain('(the embeddings server refused the API key (HTTP 401))');
    for (const leak of ['Incorrect API key', partial, KEY.slice(-4), base64, new URL(fake.baseUrl).host]) {
      expect(answer.text).not.toContain(leak);
    }
    // nor in anything the server wrote (stderr included)
    for (const line of reranked.written) {
      expect(line).not.toContain(partial);
      expect(line).not.toContain(base64);
    }
    fake.fault();
  });

  it('… when it redirects the POST with a 302 (which would turn it into a GET): coded, naming the status', async () => {
    fake.fault({ status: 302, headers: { location: `${fake.baseUrl}/moved` }, body: '' });
    const answer = await degrades('async support', /^EMBEDDINGS_REDIRECTED: /, /answered HTTP 302/);
    expect(answer.notes[0]).not.toContain(new URL(fake.baseUrl).host);
    expect(fake.requests.filter((r) => r.method !== 'POST')).toEqual([]);
    fake.fault();
  });

  it('… when it rate limits (and does not ask again before its Retry-After)', async () => {
    fake.fault({ status: 429, retryAfter: 1 });
    await degrades('authentication', /^RATE_LIMITED: /, /HTTP 429/);
    fake.fault();
    const asked = fake.count();
    await degrades('streaming responses', /^RATE_LIMITED: reranking skipped/, /asked again in 1 s/);
    expect(fake.count()).toBe(asked);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    // the wait is over: reranked again, no note
    expect((await reranked.docs('client instances')).notes).toEqual([]);
  });

  it('… when it is slow (given up at embeddings.timeoutMs)', async () => {
    fake.fault({ delayMs: 5000 });
    // the plugin's own deadline: its code names the server that was slow
    await degrades('cookies', /^EMBEDDINGS_TIMEOUT: /, /did not answer within 800 ms/);
    fake.fault();
  });

  it('never shows the key: not in answers, notes, errors, logs', () => {
    expect(reranked.written.length).toBeGreaterThan(0);
    for (const line of [...reranked.written, ...lexical.written]) expect(line).not.toContain(KEY);
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keyStoreToken, usageStoreToken } from '@pro-context/access';
import { docsEngineToken, enginePlugin } from '@pro-context/engine';
import {
  type AnswerRevisions,
  definePlugin,
  defineTool,
  KERNEL_VERSION,
  type StartedKernel,
  sourceAdapterToken,
  toolPluginToken,
  z,
} from '@pro-context/kernel';
import { sqliteCachePlugin } from '@pro-context/plugin-sqlite-cache';
import { createAnswerRevisions } from '@pro-context/runtime';
import { createTestKernel, StaticSourceAdapter } from '@pro-context/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiKey, type HttpServerHandle, serveHttp } from '../src/index.js';
import { AnswerMemo } from '../src/memo.js';
import { initialize, post } from './helpers.js';

describe('AnswerMemo', () => {
  const at = { now: 1_000 };
  const entry = (bytes: number, revision = 0, until = 2_000) => ({
    tool: 't',
    result: Buffer.alloc(bytes),
    revision,
    until,
  });

  it('keys a tools/call by tool name and arguments as sent, and refuses task calls and odd arguments', () => {
    expect(AnswerMemo.keyOf({ name: 'get-docs', arguments: { a: 1 } })).toEqual({
      key: 'get-docs\u0000{"a":1}',
      tool: 'get-docs',
    });
    expect(AnswerMemo.keyOf({ name: 'get-docs' })?.key).toBe('get-docs\u0000{}');
    expect(AnswerMemo.keyOf({ name: 'get-docs', arguments: [1] })).toBeUndefined();
    expect(AnswerMemo.keyOf({ name: 'get-docs', arguments: {}, task: { ttl: 1 } })).toBeUndefined();
    expect(AnswerMemo.keyOf({ arguments: {} })).toBeUndefined();
  });

  it('serves an entry only at the revision it was made at and before its until: a bump ends every entry', () => {
    const revisions: AnswerRevisions = createAnswerRevisions();
    const memo = new AnswerMemo(revisions, 10, 1000, () => at.now);
    memo.set('a', entry(10, 0, 2_000));
    memo.set('b', entry(10, 0, 1_500));
    expect(memo.get('a')?.tool).toBe('t');
    at.now = 1_500; // b's until: no longer served
    expect(memo.get('b')).toBeUndefined();
    expect(memo.get('a')).toBeDefined();
    revisions.bump('docs refreshed');
    expect(memo.get('a')).toBeUndefined();
    expect(memo.size).toBe(0);
    // an answer made before the bump (a call that ran across it) is not kept at all
    memo.set('c', entry(10, 0, 2_000));
    expect(memo.size).toBe(0);
    memo.set('c', entry(10, 1, 2_000));
    expect(memo.get('c')).toBeDefined();
    // nor one already past its time
    memo.set('d', entry(10, 1, 1_500));
    expect(memo.get('d')).toBeUndefined();
    at.now = 1_000;
  });

  it('drops the least recently used past its bounds, sweeps what may no longer be served, keeps no huge answer', () => {
    const revisions = createAnswerRevisions();
    const memo = new AnswerMemo(revisions, 2, 1000, () => at.now);
    memo.set('x', entry(10));
    memo.set('y', entry(10));
    memo.get('x'); // y is now the least recently used
    memo.set('z', entry(10));
    expect([memo.get('x'), memo.get('y'), memo.get('z')].map(Boolean)).toEqual([true, false, true]);
    // by bytes: six of 200 > 1000, the oldest goes
    const small = new AnswerMemo(revisions, 10, 1000, () => at.now);
    for (const k of ['p', 'q', 'r', 's', 't', 'u']) small.set(k, entry(200));
    expect(small.get('p')).toBeUndefined();
    expect(small.get('q')).toBeDefined();
    expect(small.size).toBe(5);
    // a sweep drops the entries past their time, asked for or not
    small.set('w', entry(10, 0, 1_200));
    at.now = 1_300;
    small.sweep();
    expect(small.size).toBe(4);
    at.now = 1_000;
    // an answer larger than a quarter of the bytes is not kept
    small.set('big', entry(300));
    expect(small.get('big')).toBeUndefined();
  });
});

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A small tool that says its answer may be served again (`ToolResult.reuse`) for `reuseMs` at the kernel's
 * current revision, and counts how often it really runs.
 */
function stampPlugin(reuseMs: number) {
  const state = { runs: 0, revisions: undefined as AnswerRevisions | undefined };
  const stamp = defineTool({
    name: 'stamp',
    title: 'Stamp',
    description: 'Answers with its word and how often it ran.',
    inputSchema: z.object({ word: z.string() }),
    outputSchema: z.object({ word: z.string(), run: z.number() }),
    async handler(args) {
      state.runs += 1;
      const revision = state.revisions?.current() ?? 0;
      return {
        structured: { word: args.word, run: state.runs },
        text: `${args.word} (run ${state.runs})`,
        reuse: { revision, until: Date.now() + reuseMs },
      };
    },
  });
  const plugin = definePlugin({
    id: 'stamp-tool',
    kernel: `>=${KERNEL_VERSION}`,
    register: (ctx) => ctx.bindValue(toolPluginToken, { id: 'stamp-tool', tools: () => [stamp as never] }),
  });
  return { plugin, state };
}

/** The HTTP host over a kernel with the stamp tool, a real SQLite key and usage store, and one key. */
async function stampHost(options: { stateless?: boolean; reuseMs?: number } = {}) {
  const { plugin, state } = stampPlugin(options.reuseMs ?? 60_000);
  const cacheDir = mkdtempSync(join(tmpdir(), 'pc-memo-'));
  const kernel = await createTestKernel({
    plugins: [sqliteCachePlugin, plugin],
    config: { cache: { directory: cacheDir } },
  });
  state.revisions = kernel.revisions;
  const handle = await serveHttp(kernel, {
    name: 'pro-context',
    version: '0.0.0-test',
    port: 0,
    metrics: { auth: 'none' },
    ...(options.stateless ? { stateless: true } : {}),
  });
  cleanups.push(async () => {
    await handle.close();
    rmSync(cacheDir, { recursive: true, force: true });
  });
  const client = await rawClient(kernel, handle, options.stateless ?? false);
  const stamp = (word = 'hello', headers: Record<string, string> = {}) => client.call('stamp', { word }, headers);
  return { kernel, handle, state, stamp, ...client };
}

/** A client speaking raw MCP POSTs with one API key (and a session unless stateless). */
async function rawClient(kernel: StartedKernel, handle: HttpServerHandle, stateless: boolean) {
  const { key, record } = await createApiKey(kernel.resolve(keyStoreToken), 'memo');
  const url = new URL(`${handle.url}/mcp`);
  const auth = { Authorization: `Bearer ${key}` };
  let session: Record<string, string> = {};
  if (!stateless) {
    const init = await post(url, initialize, auth);
    session = { 'Mcp-Session-Id': init.headers.get('mcp-session-id') as string };
    await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { ...auth, ...session });
  }
  let id = 10;
  const call = async (name: string, args: Record<string, unknown>, headers: Record<string, string> = {}) => {
    id += 1;
    const params = { name, arguments: args };
    const res = await post(
      url,
      { jsonrpc: '2.0', id, method: 'tools/call', params },
      { ...auth, ...session, ...headers },
    );
    const body =
      res.status === 200 ? (res.json() as { id: number; result: { content: { text: string }[] } }) : undefined;
    return {
      status: res.status,
      headers: res.headers,
      raw: res.text,
      id: body?.id,
      text: body?.result.content[0]?.text ?? res.text,
    };
  };
  const memoHits = async (tool: string) => {
    const text = await (await fetch(`${handle.url}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`pro_context_answer_memo_hits_total{tool="${tool}"}`));
    return line ? Number(line.split(' ').pop()) : 0;
  };
  return { key, record, call, memoHits };
}

describe('the HTTP host answer memo (a tool giving ToolResult.reuse)', () => {
  it('serves an equal call again without running the tool, until a revision bump; the client sees no reuse data', async () => {
    const host = await stampHost();
    const first = await host.stamp();
    expect(first.text).toBe('hello (run 1)');
    const again = await host.stamp();
    expect(again.status).toBe(200);
    expect(again.id).toBe(12);
    expect(again.text).toBe('hello (run 1)');
    expect(host.state.runs).toBe(1);
    expect(await host.memoHits('stamp')).toBe(1);
    // the answer is the tool's result as the client would get it from the tool, with the host's headers
    expect(again.raw).toBe(first.raw.replace('"id":11', '"id":12'));
    expect(again.raw).not.toMatch(/revision|until/);
    expect(again.headers.get('x-ratelimit-limit')).not.toBeNull();
    expect(again.headers.get('access-control-allow-origin')).toBe('*');
    // other arguments are another answer
    expect((await host.stamp('other')).text).toBe('other (run 2)');

    // something an answer may come from changed: the next equal call runs the tool again
    host.kernel.revisions.bump('test: docs refreshed');
    expect((await host.stamp()).text).toBe('hello (run 3)');
    expect((await host.stamp()).text).toBe('hello (run 3)');
    expect(await host.memoHits('stamp')).toBe(2);

    // a memo hit counts as a tool call of its key
    await host.handle.flushUsage();
    const [usage] = await host.kernel.resolve(usageStoreToken).summary(host.record.id);
    expect(usage?.toolCalls.stamp).toBe(5);
  });

  it('serves an answer only until its reuse.until', async () => {
    const host = await stampHost({ reuseMs: 300 });
    await host.stamp();
    expect((await host.stamp()).text).toBe('hello (run 1)');
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect((await host.stamp()).text).toBe('hello (run 2)');
  });

  it('still checks the key first: a revoked key gets AUTH_INVALID for an answer the memo holds', async () => {
    const host = await stampHost();
    await host.stamp();
    expect((await host.stamp()).status).toBe(200);
    expect(await host.memoHits('stamp')).toBe(1);
    await host.kernel.resolve(keyStoreToken).revoke(host.record.id, Date.now());
    const refused = await host.stamp();
    expect(refused.status).toBe(401);
    expect(refused.text).toContain('AUTH_INVALID');
    expect(await host.memoHits('stamp')).toBe(1);
  });

  it('serves repeats in stateless mode too, each with its own JSON-RPC id', async () => {
    const host = await stampHost({ stateless: true });
    await host.stamp();
    const a = await host.stamp();
    const b = await host.stamp();
    expect([a.id, b.id]).toEqual([12, 13]);
    expect(b.text).toBe(a.text);
    expect(b.text).toBe('hello (run 1)');
    expect(host.state.runs).toBe(1);
    expect(await host.memoHits('stamp')).toBe(2);
  });

  it('keeps nothing with the memo off', async () => {
    const { plugin, state } = stampPlugin(60_000);
    const kernel = await createTestKernel({ plugins: [plugin] });
    const handle = await serveHttp(kernel, { version: '0', port: 0, auth: 'none', answerMemo: { enabled: false } });
    cleanups.push(() => handle.close());
    const url = new URL(`${handle.url}/mcp`);
    const init = await post(url, initialize);
    const session = { 'Mcp-Session-Id': init.headers.get('mcp-session-id') as string };
    for (const id of [2, 3])
      await post(
        url,
        { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'stamp', arguments: { word: 'w' } } },
        session,
      );
    expect(state.runs).toBe(2);
  });
});

/** The engine on one library served by a static adapter (its docs expire after `ttlHours`), behind the HTTP host. */
async function acmeHost(ttlHours: number) {
  const docs = {
    pages: [
      { url: 'https://docs.acme.test/widgets', title: 'Widgets', markdown: '# Widgets\n\nWidgets are ALPHA-ONE.' },
    ],
    revision: 'r1',
  };
  const adapter = new StaticSourceAdapter('internal', { acme: docs });
  const cacheDir = mkdtempSync(join(tmpdir(), 'pc-memo-'));
  const kernel: StartedKernel = await createTestKernel({
    plugins: [
      sqliteCachePlugin,
      enginePlugin,
      definePlugin({
        id: 'internal-docs',
        kernel: `>=${KERNEL_VERSION}`,
        register: (ctx) => ctx.bindValue(sourceAdapterToken, adapter),
      }),
    ],
    config: {
      cache: { directory: cacheDir },
      libraries: [{ id: 'acme', name: 'Acme', language: 'python', source: 'internal', ttlHours }],
    },
  });
  const handle: HttpServerHandle = await serveHttp(kernel, {
    name: 'pro-context',
    version: '0.0.0-test',
    port: 0,
    metrics: { auth: 'none' },
  });
  cleanups.push(async () => {
    await handle.close();
    rmSync(cacheDir, { recursive: true, force: true });
  });
  const client = await rawClient(kernel, handle, false);
  const getDocs = () => client.call('get-docs', { libraryId: 'acme', topic: 'widgets', maxTokens: 2000 });
  return { kernel, handle, docs, getDocs, ...client, engine: kernel.resolve(docsEngineToken) };
}

describe('the HTTP host answer memo with the engine', () => {
  it("serves a repeated get-docs again, and a refreshed library's next answer is the new content", async () => {
    // the docs expire after 3.6 s: long enough for the first calls, short enough to refresh within the test
    const host = await acmeHost(0.001);
    const first = await host.getDocs();
    expect(first.text).toContain('ALPHA-ONE');
    // the first answer was fetched for this call (not served again); the second is of docs the engine had, and
    // is kept; the third is the memo's
    const second = await host.getDocs();
    expect(await host.memoHits('get-docs')).toBe(0);
    const again = await host.getDocs();
    expect(again.status).toBe(200);
    expect(again.text).toBe(second.text);
    expect(await host.memoHits('get-docs')).toBe(1);

    // the source changes; once the docs expire, the answer is served stale while they refresh behind it
    host.docs.pages[0] = { ...host.docs.pages[0], markdown: '# Widgets\n\nWidgets are BETA-TWO.' } as never;
    host.docs.revision = 'r2';
    await new Promise((resolve) => setTimeout(resolve, 3800));
    expect((await host.getDocs()).text).toContain('ALPHA-ONE');
    await host.engine.idle();
    // refreshed: the next answer over HTTP is the new content, never the memo's old one
    const renewed = await host.getDocs();
    expect(renewed.text).toContain('BETA-TWO');
    expect(renewed.text).not.toContain('ALPHA-ONE');
    const hits = await host.memoHits('get-docs');
    expect((await host.getDocs()).text).toContain('BETA-TWO');
    expect(await host.memoHits('get-docs')).toBe(hits + 1);
  });
});

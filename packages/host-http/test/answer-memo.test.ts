import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keyStoreToken, usageStoreToken } from '@pro-context/access';
import { docsEngineToken, enginePlugin } from '@pro-context/engine';
import { definePlugin, KERNEL_VERSION, type StartedKernel, sourceAdapterToken } from '@pro-context/kernel';
import { sqliteCachePlugin } from '@pro-context/plugin-sqlite-cache';
import { createTestKernel, StaticSourceAdapter } from '@pro-context/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiKey, type HttpServerHandle, serveHttp } from '../src/index.js';
import { AnswerMemo } from '../src/memo.js';
import { initialize, post } from './helpers.js';

describe('AnswerMemo', () => {
  const entry = (bytes: number, valid = () => true) => ({ tool: 't', result: Buffer.alloc(bytes), reusable: valid });

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

  it('drops an entry whose check fails (or throws), and the least recently used past its bounds', () => {
    const memo = new AnswerMemo(2, 1000);
    let valid = true;
    memo.set(
      'a',
      entry(10, () => valid),
    );
    expect(memo.get('a')).toBeDefined();
    valid = false;
    expect(memo.get('a')).toBeUndefined();
    expect(memo.size).toBe(0);
    memo.set(
      't',
      entry(10, () => {
        throw new Error('boom');
      }),
    );
    expect(memo.get('t')).toBeUndefined();

    memo.set('x', entry(10));
    memo.set('y', entry(10));
    memo.get('x'); // y is now the least recently used
    memo.set('z', entry(10));
    expect([memo.get('x'), memo.get('y'), memo.get('z')].map(Boolean)).toEqual([true, false, true]);
    // by bytes: six of 200 > 1000, the oldest goes
    const small = new AnswerMemo(10, 1000);
    for (const k of ['p', 'q', 'r', 's', 't', 'u']) small.set(k, entry(200));
    expect(small.get('p')).toBeUndefined();
    expect(small.get('q')).toBeDefined();
    expect(small.size).toBe(5);
    // a sweep drops the entries whose check fails, asked for or not
    let holds = true;
    small.set(
      'w',
      entry(10, () => holds),
    );
    holds = false;
    small.sweep();
    expect(small.size).toBe(4);
    // an answer larger than a quarter of the bytes is not kept
    small.set('big', entry(300));
    expect(small.get('big')).toBeUndefined();
  });
});

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The engine on one library served by a static adapter (its docs expire after `ttlHours`), behind the HTTP host. */
async function acmeHost(ttlHours: number, options: { stateless?: boolean } = {}) {
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
    ...options,
  });
  cleanups.push(async () => {
    await handle.close();
    rmSync(cacheDir, { recursive: true, force: true });
  });
  const { key, record } = await createApiKey(kernel.resolve(keyStoreToken), 'memo');
  const url = new URL(`${handle.url}/mcp`);
  const auth = { Authorization: `Bearer ${key}` };
  let session: Record<string, string> = {};
  if (!options.stateless) {
    const init = await post(url, initialize, auth);
    session = { 'Mcp-Session-Id': init.headers.get('mcp-session-id') as string };
    await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { ...auth, ...session });
  }
  let id = 10;
  const getDocs = async (headers: Record<string, string> = {}) => {
    id += 1;
    const res = await post(
      url,
      {
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'get-docs', arguments: { libraryId: 'acme', topic: 'widgets', maxTokens: 2000 } },
      },
      { ...auth, ...session, ...headers },
    );
    const body =
      res.status === 200 ? (res.json() as { id: number; result: { content: { text: string }[] } }) : undefined;
    return { status: res.status, headers: res.headers, id: body?.id, text: body?.result.content[0]?.text ?? res.text };
  };
  const memoHits = async () => {
    const text = await (await fetch(`${handle.url}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith('pro_context_answer_memo_hits_total{tool="get-docs"}'));
    return line ? Number(line.split(' ').pop()) : 0;
  };
  return { kernel, handle, docs, key, record, getDocs, memoHits, engine: kernel.resolve(docsEngineToken) };
}

describe('the HTTP host answer memo', () => {
  it("serves a repeated get-docs again, and a refreshed library's next answer is the new content", async () => {
    // the docs expire after 3.6 s: long enough for the first calls, short enough to refresh within the test
    const host = await acmeHost(0.001);
    const first = await host.getDocs();
    expect(first.text).toContain('ALPHA-ONE');
    // the second call is answered from the engine's stored answer and kept; the third is the memo's
    await host.getDocs();
    expect(await host.memoHits()).toBe(0);
    const third = await host.getDocs();
    expect(third.status).toBe(200);
    expect(third.id).toBe(13);
    expect(third.text).toBe(first.text);
    expect(third.headers.get('x-ratelimit-limit')).not.toBeNull();
    expect(third.headers.get('access-control-allow-origin')).toBe('*');
    expect(await host.memoHits()).toBe(1);

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
    const hits = await host.memoHits();
    expect((await host.getDocs()).text).toContain('BETA-TWO');
    expect(await host.memoHits()).toBe(hits + 1);

    // a memo hit counts as a tool call of its key
    await host.handle.flushUsage();
    const [usage] = await host.kernel.resolve(usageStoreToken).summary(host.record.id);
    expect(usage?.toolCalls['get-docs']).toBe(6);
  });

  it('still checks the key first: a revoked key gets AUTH_INVALID for an answer the memo holds', async () => {
    const host = await acmeHost(1);
    await host.getDocs();
    await host.getDocs();
    expect((await host.getDocs()).status).toBe(200);
    expect(await host.memoHits()).toBe(1);
    await host.kernel.resolve(keyStoreToken).revoke(host.record.id, Date.now());
    const refused = await host.getDocs();
    expect(refused.status).toBe(401);
    expect(refused.text).toContain('AUTH_INVALID');
    expect(await host.memoHits()).toBe(1);
  });

  it('serves repeats in stateless mode too, each with its own JSON-RPC id', async () => {
    const host = await acmeHost(1, { stateless: true });
    await host.getDocs();
    await host.getDocs();
    const a = await host.getDocs();
    const b = await host.getDocs();
    expect([a.id, b.id]).toEqual([13, 14]);
    expect(b.text).toBe(a.text);
    expect(b.text).toContain('ALPHA-ONE');
    expect(await host.memoHits()).toBe(2);
  });
});

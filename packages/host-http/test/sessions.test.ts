import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { createTestKernel } from '@pro-context/testing';
import { corpusSites, type FakeWeb, startFakeWeb } from '@pro-context/testing/fake-web';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { serveHttp } from '../src/index.js';
import { connectClient, corpusRoot, initialize, post, skipReason, startTestHost, type TestHost } from './helpers.js';

const generous = { rateLimit: { maxRequestsPerMinute: 6000, burstSize: 1000 } };

describe.skipIf(skipReason)(`sessions, modes and shutdown${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  let web: FakeWeb;
  const hosts: TestHost[] = [];
  beforeAll(async () => {
    web = await startFakeWeb({ sites: corpusSites(corpusRoot as string) });
  });
  afterEach(async () => {
    web.clearFaults?.();
    await Promise.all(hosts.splice(0).map((h) => h.close()));
  });
  afterAll(async () => {
    await web?.close();
  });
  const start = async (options: Parameters<typeof startTestHost>[0]) => {
    const host = await startTestHost({ ...generous, ...options }, { web });
    hosts.push(host);
    return host;
  };

  it('two clients asking for the same uncached library at once cause one fetch and one indexing', async () => {
    const host = await start({});
    const indexings: string[] = [];
    const off = host.kernel.logger.onSpan((span) => {
      if (span.name === 'engine.index') indexings.push(String(span.fields.libraryId));
    });
    const [a, b] = await Promise.all([
      connectClient(host.mcpUrl, await host.newKey('dev-a')),
      connectClient(host.mcpUrl, await host.newKey('dev-b')),
    ]);
    const before = web.requests.length;
    const ask = { libraryId: 'pydantic', topic: 'field validators', maxTokens: 1500 };
    const [x, y] = await Promise.all([
      a.client.callTool({ name: 'get-docs', arguments: ask }, CallToolResultSchema),
      b.client.callTool({ name: 'get-docs', arguments: ask }, CallToolResultSchema),
    ]);
    off();
    expect(x.isError).toBeFalsy();
    expect(y.isError).toBeFalsy();
    expect((x.structuredContent as { content: string }).content).toBe(
      (y.structuredContent as { content: string }).content,
    );
    const paths = web.requests
      .slice(before)
      .filter((r) => r.site === 'pydantic')
      .map((r) => r.path);
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.filter((p) => p.endsWith('llms.txt'))).toHaveLength(1);
    expect(new Set(paths).size).toBe(paths.length); // no page was fetched twice
    expect(indexings).toEqual(['pydantic']);
    // a third developer is served from the shared cache without a request upstream
    const c = await connectClient(host.mcpUrl, await host.newKey('dev-c'));
    const after = web.requests.length;
    const z = await c.client.callTool({ name: 'get-docs', arguments: ask }, CallToolResultSchema);
    expect((z.structuredContent as { cached: boolean }).cached).toBe(true);
    expect(web.requests.length).toBe(after);
    await Promise.all([a, b, c].map(({ client }) => client.close()));
  });

  it('stateless mode answers a POST without initialize, and has no sessions or GET stream', async () => {
    const host = await start({ stateless: true });
    const key = await host.newKey('ci');
    const auth = { Authorization: `Bearer ${key}` };
    const list = await post(host.mcpUrl, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, auth);
    expect(list.status).toBe(200);
    expect((list.json() as { result: { tools: unknown[] } }).result.tools).toHaveLength(5);
    expect(list.headers.get('mcp-session-id')).toBeNull();
    expect(list.headers.get('x-ratelimit-limit')).toBe('1000');
    const get = await fetch(host.mcpUrl, { headers: { ...auth, Accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    // the SDK client works against it too, and the kernel's tools answer
    const { client } = await connectClient(host.mcpUrl, key);
    const result = await client.callTool({ name: 'list-libraries', arguments: {} }, CallToolResultSchema);
    expect(result.isError).toBeFalsy();
    expect(host.handle.sessionCount()).toBe(0);
    await client.close();
    expect((await post(host.mcpUrl, initialize)).status).toBe(401);
  });

  it('answers a plain request with one JSON body, a request with a progress token with an SSE stream', async () => {
    const host = await start({});
    const key = await host.newKey('raw');
    const auth = { Authorization: `Bearer ${key}` };
    const init = await post(host.mcpUrl, initialize, auth);
    const sessionId = init.headers.get('mcp-session-id') as string;
    expect(sessionId).toBeTruthy();
    const session = { ...auth, 'Mcp-Session-Id': sessionId, 'Mcp-Protocol-Version': '2025-06-18' };
    expect((await post(host.mcpUrl, { jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status).toBe(
      202,
    );
    const call = (id: number, meta?: Record<string, unknown>) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'list-libraries', arguments: {}, ...(meta ? { _meta: meta } : {}) },
    });
    const plain = await post(host.mcpUrl, call(2), session);
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toBe('application/json');
    expect(plain.headers.get('mcp-session-id')).toBe(sessionId);
    expect(plain.headers.get('x-ratelimit-limit')).toBe('1000');
    expect(plain.json()).toMatchObject({ jsonrpc: '2.0', id: 2, result: { structuredContent: {} } });
    // a progress token: the SDK's SSE stream, which can carry the progress notifications
    const streamed = await post(host.mcpUrl, call(3, { progressToken: 'p1' }), session);
    expect(streamed.headers.get('content-type')).toBe('text/event-stream');
    expect(streamed.text).toMatch(/^data: \{"result".*"id":3\}$/m);
    // the SDK's checks hold on the direct path too
    const badVersion = await post(host.mcpUrl, call(4), { ...session, 'Mcp-Protocol-Version': '1999-01-01' });
    expect(badVersion.status).toBe(400);
    const jsonOnly = await post(host.mcpUrl, call(5), { ...session, Accept: 'application/json' });
    expect(jsonOnly.status).toBe(406);
    const batch = await post(host.mcpUrl, [call(6), call(7)], session);
    expect(batch.status).toBe(200);
    expect(batch.text).toMatch(/"id":6/);
    expect(batch.text).toMatch(/"id":7/);
  });

  it("stateless mode keeps concurrent clients' equal JSON-RPC ids apart", async () => {
    const host = await start({ stateless: true });
    const auth = { Authorization: `Bearer ${await host.newKey('many')}` };
    const [list, call] = await Promise.all([
      post(host.mcpUrl, { jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} }, auth),
      post(
        host.mcpUrl,
        { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'list-libraries', arguments: {} } },
        auth,
      ),
    ]);
    expect(list.headers.get('content-type')).toBe('application/json');
    expect(list.json()).toMatchObject({ id: 7, result: { tools: expect.any(Array) } });
    expect(call.json()).toMatchObject({ id: 7, result: { structuredContent: {} } });
  });

  it('limits open sessions (503 beyond maxSessions), reaps idle ones, and a session belongs to its key', async () => {
    const host = await start({ maxSessions: 1, sessionIdleMs: 1500 });
    const key = await host.newKey('one');
    const first = await connectClient(host.mcpUrl, key);
    expect(host.handle.sessionCount()).toBe(1);
    const second = await post(host.mcpUrl, initialize, { Authorization: `Bearer ${key}` });
    expect(second.status).toBe(503);
    // another key cannot use (or end) the session
    const other = await host.newKey('two');
    const hijack = await post(
      host.mcpUrl,
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
      { Authorization: `Bearer ${other}`, 'Mcp-Session-Id': first.transport.sessionId as string },
    );
    expect(hijack.status).toBe(404);
    // idle past sessionIdleMs: closed by the reaper
    await expect.poll(() => host.handle.sessionCount(), { timeout: 6000, interval: 200 }).toBe(0);
    await expect(first.client.listTools()).rejects.toThrow(/404|Session not found/);
    await first.client.close().catch(() => undefined);
    expect((await post(host.mcpUrl, initialize, { Authorization: `Bearer ${key}` })).status).toBe(200);
  });

  it('SIGTERM-style close finishes the call in flight, then refuses connections', async () => {
    const host = await start({});
    const { client } = await connectClient(host.mcpUrl, await host.newKey('slow'));
    web.setFault({ site: 'httpx', path: 'llms.txt' }, { delayMs: 800, times: 1 });
    const call = client.callTool(
      { name: 'get-docs', arguments: { libraryId: 'httpx', topic: 'timeouts', maxTokens: 1000 } },
      CallToolResultSchema,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const closing = hosts.pop()?.close();
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { content: string }).content.length).toBeGreaterThan(50);
    await closing;
    await expect(fetch(`${host.handle.url}/health`)).rejects.toThrow();
  });

  it("refuses server.auth 'none' on a non-loopback bind, and serves without keys on loopback", async () => {
    const kernel = await createTestKernel({});
    await expect(serveHttp(kernel, { version: '0', host: '0.0.0.0', port: 0, auth: 'none' })).rejects.toThrow(
      /loopback/,
    );
    const handle = await serveHttp(kernel, { version: '0', port: 0, auth: 'none' });
    const res = await post(new URL(`${handle.url}/mcp`), initialize);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    await handle.close();
  });

  it('serves /metrics on a port of its own when configured, and not on the MCP port', async () => {
    const host = await start({ metrics: { port: 0 } });
    expect(host.handle.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(`${host.handle.metricsUrl}/metrics`);
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/pro_context_active_sessions 0/);
    expect((await fetch(`${host.handle.url}/metrics`)).status).toBe(404);
  });
});

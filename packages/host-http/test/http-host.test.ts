import { CallToolResultSchema, ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { usageStoreToken } from '@pro-context/access';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../src/index.js';
import { connectClient, initialize, post, rawRequest, skipReason, startTestHost, type TestHost } from './helpers.js';

interface RpcError {
  error: {
    code: number;
    message: string;
    data: { code: string; message: string; suggestion: string; retryAfter?: number };
  };
}

describe.skipIf(skipReason)(`the HTTP host with API keys${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startTestHost({ rateLimit: { maxRequestsPerMinute: 6000, burstSize: 1000 } });
  });
  afterAll(async () => {
    await host?.close();
  });

  it('a client with a valid key uses every tool, resource and prompt, with progress and list_changed', async () => {
    const key = await host.newKey('alice');
    const { client, transport } = await connectClient(host.mcpUrl, key);
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    let listChanged = 0;
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      listChanged += 1;
    });

    const tools = (await client.listTools()).tools.map((t) => t.name).sort();
    expect(tools).toEqual(['get-docs', 'list-libraries', 'read-page', 'resolve-library', 'search-docs']);

    const call = async (name: string, args: Record<string, unknown>, onprogress?: (p: unknown) => void) => {
      const result = await client.callTool({ name, arguments: args }, CallToolResultSchema, {
        ...(onprogress ? { onprogress } : {}),
      });
      expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
      return result.structuredContent as Record<string, unknown>;
    };
    // the first get-docs of a library indexes it, reporting progress to this session
    const seen: unknown[] = [];
    const first = await call(
      'get-docs',
      { libraryId: 'httpx', topic: 'timeouts', maxTokens: 2000 },
      (p) => void seen.push(p),
    );
    expect(String(first.content)).toMatch(/timeout/i);
    expect(seen.length).toBeGreaterThan(0);
    const resolved = await call('resolve-library', { query: 'fastapi' });
    expect(resolved.libraryId).toBe('fastapi');
    const docs = await call('get-docs', { libraryId: 'fastapi', topic: 'dependencies with yield', maxTokens: 2000 });
    expect(String(docs.content)).toMatch(/yield/);
    const found = await call('search-docs', { libraryId: 'fastapi', query: 'background tasks' });
    const results = found.results as { url: string }[];
    expect(results.length).toBeGreaterThan(0);
    const page = await call('read-page', { url: results[0]?.url });
    expect(String(page.content).length).toBeGreaterThan(100);
    const libraries = await call('list-libraries', {});
    expect((libraries.libraries as { id: string }[]).map((l) => l.id)).toContain('httpx');

    const resources = (await client.listResources()).resources.map((r) => r.uri);
    expect(resources).toEqual(expect.arrayContaining(['pro-context://health', 'pro-context://libraries']));
    for (const uri of ['pro-context://health', 'pro-context://libraries', 'library://fastapi/toc']) {
      const read = await client.readResource({ uri });
      expect((read.contents[0] as { text: string }).text.length).toBeGreaterThan(10);
    }
    expect(listChanged).toBeGreaterThan(0); // resolving fastapi registered its TOC resource
    const prompts = (await client.listPrompts()).prompts.map((p) => p.name).sort();
    expect(prompts).toEqual(['debug-with-docs', 'explain-api', 'migrate-code']);
    const args = {
      'migrate-code': { libraryId: 'fastapi', fromVersion: '0.100', toVersion: '0.115' },
      'debug-with-docs': { libraryId: 'fastapi', errorMessage: 'TypeError' },
      'explain-api': { libraryId: 'fastapi', apiName: 'Depends' },
    };
    for (const [name, a] of Object.entries(args)) {
      const prompt = await client.getPrompt({ name, arguments: a });
      expect(JSON.stringify(prompt.messages)).toContain('fastapi');
    }
    await transport.terminateSession();
    await client.close();

    // usage: requests and tool calls by name, for this key only
    await host.handle.flushUsage();
    const record = await host.keys.find('alice');
    const [usage] = await host.kernel.resolve(usageStoreToken).summary(record?.id);
    expect(usage?.toolCalls).toMatchObject({
      'resolve-library': 1,
      'get-docs': 2,
      'search-docs': 1,
      'read-page': 1,
      'list-libraries': 1,
    });
    expect(usage?.requests).toBeGreaterThan(10);
    expect((await host.keys.find('alice'))?.lastUsedAt).toBeGreaterThan(0);
  });

  it('without a key: 401 AUTH_REQUIRED with the catalog suggestion and WWW-Authenticate', async () => {
    const res = await post(host.mcpUrl, initialize);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const body = res.json() as RpcError;
    expect(body.error.data.code).toBe('AUTH_REQUIRED');
    expect(body.error.data.suggestion).toBe('Provide API key via Authorization header.');
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    // the SDK client sees the code in its error
    await expect(connectClient(host.mcpUrl)).rejects.toThrow(/401|AUTH_REQUIRED/);
  });

  it('with a wrong key: 401 AUTH_INVALID ("Check your API key.")', async () => {
    for (const wrong of [`pc_${'A'.repeat(40)}`, 'not-a-key', 'pc_short']) {
      const res = await post(host.mcpUrl, initialize, { Authorization: `Bearer ${wrong}` });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
      const body = res.json() as RpcError;
      expect(body.error.data.code).toBe('AUTH_INVALID');
      expect(body.error.data.suggestion).toBe('Check your API key.');
    }
    await expect(connectClient(host.mcpUrl, `pc_${'B'.repeat(40)}`)).rejects.toThrow(/401|AUTH_INVALID/);
  });

  it('a revoked key fails on its next request, inside an open session too', async () => {
    const key = await host.newKey('bob');
    const { client } = await connectClient(host.mcpUrl, key);
    expect((await client.listTools()).tools.length).toBe(5);
    await host.keys.revoke('bob', Date.now());
    await expect(client.listTools()).rejects.toThrow(/401|AUTH_INVALID/);
    const res = await post(host.mcpUrl, initialize, { Authorization: `Bearer ${key}` });
    expect(res.status).toBe(401);
    expect((res.json() as RpcError).error.data.code).toBe('AUTH_INVALID');
    await client.close().catch(() => undefined);
  });

  it('keys are stored as SHA-256 hashes only', async () => {
    const key = await host.newKey('carol');
    expect(key).toMatch(/^pc_[A-Za-z0-9_-]{40}$/);
    const stored = await host.keys.findByHash(hashApiKey(key));
    expect(stored?.name).toBe('carol');
    expect(JSON.stringify(await host.keys.list())).not.toContain(key);
    const { readFileSync } = await import('node:fs');
    const file = readFileSync(`${host.cacheDir}/access.db`);
    expect(file.includes(key.slice(3))).toBe(false);
  });

  it('past its rate limit a key gets 429 RATE_LIMITED with retryAfter, Retry-After and X-RateLimit-*', async () => {
    const key = await host.newKey('dave');
    await host.keys.setRateLimit('dave', { maxRequestsPerMinute: 2, burstSize: 3 });
    const auth = { Authorization: `Bearer ${key}` };
    const answers = [];
    for (let i = 0; i < 4; i += 1) answers.push(await post(host.mcpUrl, initialize, auth));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    expect(answers.map((a) => a.headers.get('x-ratelimit-remaining'))).toEqual(['2', '1', '0', '0']);
    for (const a of answers) expect(a.headers.get('x-ratelimit-limit')).toBe('3');
    const reset = Number(answers[3]?.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThan(Date.now() / 1000);
    const limited = answers[3] as (typeof answers)[number];
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const body = limited.json() as RpcError;
    expect(body.error.data.code).toBe('RATE_LIMITED');
    expect(body.error.data.retryAfter).toBe(Number(limited.headers.get('retry-after')));
    expect(body.error.data.suggestion).toBe(`Try again after ${body.error.data.retryAfter} seconds.`);
    // another key is not affected
    const other = await host.newKey('erin');
    expect((await post(host.mcpUrl, initialize, { Authorization: `Bearer ${other}` })).status).toBe(200);
  });

  it('refuses a foreign Host (DNS rebinding) and a foreign Origin before anything else', async () => {
    const key = await host.newKey('frank');
    const body = JSON.stringify(initialize);
    const headers = {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      Authorization: `Bearer ${key}`,
    };
    const evil = await rawRequest(host.mcpUrl, { headers: { ...headers, Host: 'evil.example' }, body });
    expect(evil.status).toBe(403);
    expect(evil.body).toMatch(/Invalid Host/);
    const local = await rawRequest(host.mcpUrl, {
      headers: { ...headers, Host: `localhost:${host.handle.port}` },
      body,
    });
    expect(local.status).toBe(200);
    const health = await rawRequest(new URL(`${host.handle.url}/health`), {
      method: 'GET',
      headers: { Host: 'attacker.test' },
    });
    expect(health.status).toBe(403);
  });

  it('caps the request body (413) and answers a non-JSON body with a parse error', async () => {
    const key = await host.newKey('grace');
    const big = { ...initialize, params: { ...initialize.params, padding: 'x'.repeat(1_200_000) } };
    const res = await post(host.mcpUrl, big, { Authorization: `Bearer ${key}` });
    expect(res.status).toBe(413);
    const bad = await post(host.mcpUrl, '{not json', { Authorization: `Bearer ${key}` });
    expect(bad.status).toBe(400);
  });

  it('GET /health answers without a key, with the facts of pro-context://health and no secrets', async () => {
    const res = await fetch(`${host.handle.url}/health`);
    expect(res.status).toBe(200);
    const health = (await res.json()) as Record<string, unknown>;
    expect(health.status).toBe('healthy');
    expect(health).toHaveProperty('cache');
    expect(health).toHaveProperty('version');
    expect(health.server).toMatchObject({ transport: 'http', stateless: false });
    expect(JSON.stringify(health)).not.toMatch(/pc_|hash|Bearer/);
  });

  it('GET /metrics needs a key and speaks Prometheus text', async () => {
    expect((await fetch(`${host.handle.url}/metrics`)).status).toBe(401);
    const key = await host.newKey('prometheus');
    const res = await fetch(`${host.handle.url}/metrics`, { headers: { Authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/plain/);
    const text = await res.text();
    expect(text).toMatch(/pro_context_tool_calls_total\{tool="get-docs",outcome="ok"\} 2/);
    expect(text).toMatch(/pro_context_tool_duration_seconds_bucket\{le="[0-9.]+",tool="get-docs"\}/);
    expect(text).toMatch(/pro_context_rate_limited_total\{key="key_[0-9a-f]+"\} 1/);
    expect(text).toMatch(/pro_context_auth_failures_total\{code="AUTH_INVALID"\} \d+/);
    expect(text).toMatch(
      /pro_context_upstream_fetches_total\{source="llms-txt",operation="fetchDocs",outcome="ok"\} 2/,
    );
    expect(text).toMatch(/pro_context_indexing_seconds_count 2/);
    expect(text).toMatch(/pro_context_active_sessions \d+/);
    expect(text).toMatch(/pro_context_cache_hits \d+/);
    // by tier: the first get-docs missed (then fetched), the second was answered from memory
    expect(text).toMatch(/pro_context_cache_reads\{namespace="[a-z]+",tier="miss"\} [1-9]/);
    expect(text).toMatch(/pro_context_cache_reads\{namespace="[a-z]+",tier="memory"\} [1-9]/);
    expect(text).toMatch(/pro_context_cache_reads\{namespace="[a-z]+",tier="sqlite"\} \d+/);
    expect(text).not.toMatch(/pc_[A-Za-z0-9_-]{40}/);
  });
});

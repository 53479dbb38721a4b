import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { FakeWeb } from '@pro-context/testing/fake-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin, type Replica, startReplica, stopReplica } from '../src/loopback.js';
import { adminPath, cliPath, skipReason, startCorpusWeb, waitForStoreQuiet, writeClusterProject } from './helpers.js';

/**
 * Two `pro-context serve --http` processes (the built CLI) on one PostgreSQL: a library asked of both at once is
 * fetched and indexed by one (the engine takes the store's indexing lease) and loaded from the store by the other, a key
 * revoked through `pro-context-admin` is refused by both at the next request, usage adds up over both, and
 * rate limits are one bucket per key.
 */
describe.skipIf(skipReason)(`two replicas on one PostgreSQL${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  let web: FakeWeb;
  let project: ReturnType<typeof writeClusterProject>;
  const replicas: Replica[] = [];

  beforeAll(async () => {
    web = await startCorpusWeb();
    project = writeClusterProject(web);
  });
  afterAll(async () => {
    for (const r of replicas) if (r.process.exitCode === null) r.process.kill('SIGKILL');
    await project?.cleanup();
    await web?.close();
  });

  const connect = async (replica: Replica, key: string) => {
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${replica.port}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    });
    const client = new Client({ name: 'agent', version: '1' });
    await client.connect(transport);
    return client;
  };

  it('indexes once, revokes everywhere, adds usage up', async () => {
    const created = await admin(adminPath, project.env, 'keys', 'create', '--name', 'alice');
    expect(created.code, created.stderr).toBe(0);
    const key = created.stdout.trim();

    replicas.push(await startReplica({ cliPath, name: 'a', env: project.env }));
    replicas.push(await startReplica({ cliPath, name: 'b', env: project.env }));
    const [a, b] = replicas as [Replica, Replica];

    // both replicas asked at once, before either stored anything: one takes the indexing lease, fetches and
    // indexes fastapi; the other waits for it and loads what it stored
    const [onA, onB] = await Promise.all([connect(a, key), connect(b, key)]);
    const call = (client: Client, name: string, args: Record<string, unknown>) =>
      client.callTool({ name, arguments: args }, CallToolResultSchema, { timeout: 120_000 });
    const ask = { libraryId: 'fastapi', topic: 'dependencies with yield', maxTokens: 2000 };
    const [docsA, docsB] = await Promise.all([call(onA, 'get-docs', ask), call(onB, 'get-docs', ask)]);
    expect(docsA.isError).toBeFalsy();
    expect(docsB.isError).toBeFalsy();
    for (const docs of [docsA, docsB]) expect((docs.structuredContent as { content: string }).content).toMatch(/yield/);
    const fetched = web.requests.filter((r) => r.site === 'fastapi');
    expect(fetched.length).toBeGreaterThan(0);
    // the docs site saw one fetch of each page
    const perPath = new Map<string, number>();
    for (const r of fetched) perPath.set(r.path, (perPath.get(r.path) ?? 0) + 1);
    expect([...perPath].filter(([, n]) => n > 1)).toEqual([]);
    const fetchedOnce = fetched.length;
    const stored = await waitForStoreQuiet(project.schema);
    expect(stored).toMatch(/"index"|"chunks"/);

    const searchB = await call(onB, 'search-docs', { libraryId: 'fastapi', query: 'background tasks' });
    expect(searchB.isError).toBeFalsy();
    expect(web.requests.filter((r) => r.site === 'fastapi').length).toBe(fetchedOnce);

    // revoked through the admin CLI: both replicas refuse the key at the next request
    expect((await admin(adminPath, project.env, 'keys', 'revoke', 'alice')).code).toBe(0);
    await expect(onA.listTools()).rejects.toThrow(/AUTH_INVALID/);
    await expect(onB.listTools()).rejects.toThrow(/AUTH_INVALID/);

    // SIGTERM flushes usage; the totals are over both replicas
    await Promise.all(replicas.map((r) => stopReplica(r)));
    expect(replicas.map((r) => r.process.exitCode)).toEqual([0, 0]);
    const usage = await admin(adminPath, project.env, 'usage', '--key', 'alice', '--json');
    const [row] = JSON.parse(usage.stdout) as { toolCalls: Record<string, number>; requests: number }[];
    expect(row?.toolCalls).toEqual({ 'get-docs': 2, 'search-docs': 1 });
    expect(row?.requests).toBeGreaterThanOrEqual(8);
    for (const r of replicas)
      expect(r.stderr()).not.toContain(new URL(process.env.PRO_CONTEXT_TEST_DATABASE_URL as string).password);
  });

  it('one rate-limit bucket per key across replicas', async () => {
    const bob = (
      await admin(adminPath, project.env, 'keys', 'create', '--name', 'bob', '--per-minute', '1', '--burst', '3')
    ).stdout.trim();
    const a = await startReplica({ cliPath, name: 'c', env: project.env });
    const b = await startReplica({ cliPath, name: 'd', env: project.env });
    replicas.push(a, b);
    // bob's 3-request burst is shared: requests through A and B draw from one bucket
    const bodyFor = (id: number) =>
      JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'list-libraries', arguments: {} } });
    const post = (replica: Replica, id: number) =>
      fetch(`http://127.0.0.1:${replica.port}/mcp`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${bob}`,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'Mcp-Protocol-Version': '2025-06-18',
        },
        body: bodyFor(id),
      }).then(async (r) => {
        await r.arrayBuffer();
        return r.status;
      });
    const statuses = [await post(a, 1), await post(b, 2), await post(a, 3), await post(b, 4), await post(a, 5)];
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(2);
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);

    await Promise.all([stopReplica(a), stopReplica(b)]);
  });
});

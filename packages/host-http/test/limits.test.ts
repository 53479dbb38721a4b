import { connect, type Socket } from 'node:net';
import { corpusSites, type FakeWeb, startFakeWeb } from '@pro-context/testing/fake-web';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, corpusRoot, initialize, post, skipReason, startTestHost, type TestHost } from './helpers.js';

// issue #25 deliverable 4: the team server's abuse limits, through the real host on loopback
// (no test asks for docs: the corpus sites are there because the test host configures its libraries on them)

/** A raw TCP client: what a slow or idle client does, byte by byte. */
function socketTo(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Resolves with the ms it took the server to close `socket`, or `undefined` when it held it past `withinMs`. */
function closedWithin(socket: Socket, withinMs: number): Promise<{ ms?: number; received: string }> {
  const started = Date.now();
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    received += chunk;
  });
  socket.on('error', () => undefined);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ received });
    }, withinMs);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve({ ms: Date.now() - started, received });
    });
  });
}

const listTools = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list', params: {} });

describe.skipIf(skipReason)(`team-server limits (issue #25.4)${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  let web: FakeWeb;
  const hosts: TestHost[] = [];
  beforeAll(async () => {
    web = await startFakeWeb({ sites: corpusSites(corpusRoot as string) });
  });
  afterEach(async () => {
    web.clearFaults();
    await Promise.all(hosts.splice(0).map((h) => h.close()));
  });
  afterAll(async () => {
    await web?.close();
  });
  const start = async (options: Parameters<typeof startTestHost>[0]) => {
    const host = await startTestHost(options, { web });
    hosts.push(host);
    return host;
  };

  /** A session opened by a raw initialize; returns the headers every later request of it sends. */
  async function openSession(host: TestHost, key: string): Promise<Record<string, string>> {
    const auth = { Authorization: `Bearer ${key}` };
    const res = await post(host.mcpUrl, initialize, auth);
    expect(res.status).toBe(200);
    const id = res.headers.get('mcp-session-id') as string;
    return { ...auth, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' };
  }

  it('charges every message of a batch to the key: a batch the bucket cannot pay runs nothing', async () => {
    // burst 10, slow refill: the numbers below are the bucket's, not the clock's
    const host = await start({ rateLimit: { maxRequestsPerMinute: 1, burstSize: 10 } });
    const key = await host.newKey('batcher');
    const session = await openSession(host, key); // 1 token

    const four = await post(host.mcpUrl, [listTools(10), listTools(11), listTools(12), listTools(13)], session);
    expect(four.status).toBe(200);
    expect(four.text).toContain('"id":13');
    expect(Number(four.headers.get('x-ratelimit-remaining'))).toBe(5); // 10 - 1 - 4

    // 6 messages with 5 tokens left: refused whole, before any runs
    const six = await post(host.mcpUrl, [20, 21, 22, 23, 24, 25].map(listTools), session);
    expect(six.status).toBe(429);
    expect(six.headers.get('retry-after')).toBeTruthy();
    const refusal = six.json() as { error: { data: { code: string; message: string; retryAfter: number } } };
    expect(refusal.error.data.code).toBe('RATE_LIMITED');
    expect(refusal.error.data.message).toContain('a batch of 6 messages counts as 6 requests');
    expect(refusal.error.data.retryAfter).toBeGreaterThan(0);
    expect(six.text).not.toContain('"tools"');

    // a batch of 100 (the issue's measurement: all 100 ran on a key with burst 10) can never pass, and says why
    const hundred = await post(
      host.mcpUrl,
      Array.from({ length: 100 }, (_, i) => listTools(100 + i)),
      session,
    );
    expect(hundred.status).toBe(429);
    const over = hundred.json() as { error: { data: { code: string; message: string; suggestion: string } } };
    expect(over.error.data.code).toBe('RATE_LIMITED');
    expect(over.error.data.message).toContain('A batch of 100 JSON-RPC messages');
    expect(over.error.data.suggestion).toContain('at most 10 messages per request');
    expect(hundred.text).not.toContain('"tools"');
  });

  it('charges a batch on a stateless server too', async () => {
    const host = await start({ stateless: true, rateLimit: { maxRequestsPerMinute: 1, burstSize: 5 } });
    const auth = {
      Authorization: `Bearer ${await host.newKey('stateless-batcher')}`,
      'mcp-protocol-version': '2025-06-18',
    };
    const three = await post(host.mcpUrl, [listTools(1), listTools(2), listTools(3)], auth);
    expect(three.status).toBe(200);
    expect(Number(three.headers.get('x-ratelimit-remaining'))).toBe(2);
    const again = await post(host.mcpUrl, [listTools(4), listTools(5), listTools(6)], auth);
    expect(again.status).toBe(429);
    expect(again.text).not.toContain('"tools"');
  });

  it('caps sessions per key: one key cannot take every slot, another key still gets in', async () => {
    const host = await start({
      maxSessions: 6,
      maxSessionsPerKey: 3,
      rateLimit: { maxRequestsPerMinute: 6000, burstSize: 100 },
    });
    const greedy = await host.newKey('greedy');
    const statuses: number[] = [];
    let refusal: { error: { data: { code: string; message: string; suggestion: string } } } | undefined;
    for (let i = 0; i < 6; i += 1) {
      const res = await post(host.mcpUrl, initialize, { Authorization: `Bearer ${greedy}` });
      statuses.push(res.status);
      if (res.status !== 200) refusal = res.json() as typeof refusal;
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429]);
    expect(refusal?.error.data.code).toBe('RATE_LIMITED');
    expect(refusal?.error.data.message).toContain('server.maxSessionsPerKey: 3');
    expect(refusal?.error.data.suggestion).toContain('DELETE /mcp');
    expect(host.handle.sessionCount()).toBe(3);

    // another developer's agent connects through the SDK's client and works
    const other = await connectClient(host.mcpUrl, await host.newKey('other'));
    expect((await other.client.listTools()).tools.length).toBeGreaterThan(0);
    await other.client.close();
  });

  it('closes slow-header, slow-body and idle keep-alive connections after the configured timeouts', async () => {
    const host = await start({ headersTimeoutMs: 400, requestTimeoutMs: 800, keepAliveTimeoutMs: 300 });
    const port = host.handle.port;
    const bound = 4000; // Node's defaults (60 s headers, 300 s request, checked every 30 s) hold all of these

    // 20 clients that never finish their headers, 20 that never finish their body (bounded: 40 sockets)
    const slowHeaders = await Promise.all(Array.from({ length: 20 }, () => socketTo(port)));
    for (const s of slowHeaders) s.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: 1');
    const slowBodies = await Promise.all(Array.from({ length: 20 }, () => socketTo(port)));
    for (const s of slowBodies)
      s.write(
        'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"jsonrpc"',
      );
    const results = await Promise.all([...slowHeaders, ...slowBodies].map((s) => closedWithin(s, bound)));
    expect(results.filter((r) => r.ms === undefined)).toHaveLength(0);
    // Node answers 408 to a request that timed out
    expect(results.filter((r) => r.received.startsWith('HTTP/1.1 408')).length).toBeGreaterThan(0);

    // an idle keep-alive connection after a finished request
    const idle = await socketTo(port);
    const closing = closedWithin(idle, bound);
    idle.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n');
    const kept = await closing;
    expect(kept.received).toContain('HTTP/1.1 200');
    expect(kept.ms).toBeDefined();

    // the server still answers
    const health = await fetch(`${host.handle.url}/health`);
    expect(health.status).toBe(200);
    // the timeouts bound receiving a request, not answering it: a get-docs slower than requestTimeout (its
    // upstream answers after 1.5 s) is answered
    web.setFault({ site: 'httpx', path: 'llms.txt' }, { delayMs: 1500, times: 1 });
    const agent = await connectClient(host.mcpUrl, await host.newKey('patient'));
    const started = Date.now();
    const docs = await agent.client.callTool({
      name: 'get-docs',
      arguments: { libraryId: 'httpx', topic: 'timeouts', maxTokens: 1000 },
    });
    expect(Date.now() - started).toBeGreaterThan(1500);
    expect(docs.isError).toBeFalsy();
    await agent.client.close();
  });

  it('answers tools/call with arguments that are no object with INVALID_INPUT, on every path (issue #25.6)', async () => {
    const host = await start({ rateLimit: { maxRequestsPerMinute: 6000, burstSize: 100 } });
    const key = await host.newKey('sloppy');
    const session = await openSession(host, key);
    const call = (id: number, args: unknown) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'resolve-library', arguments: args },
    });
    const errorIn = (message: unknown) => {
      const m = message as { result?: { isError?: boolean; content: { text: string }[] }; error?: unknown };
      expect(m.error).toBeUndefined(); // on main: a -32603 error carrying a zod dump
      expect(m.result?.isError).toBe(true);
      return JSON.parse(m.result?.content[0]?.text as string) as { code: string; message: string };
    };
    // the direct JSON path (one request), then the SDK's path (a batch)
    const direct = await post(host.mcpUrl, call(2, ['fastapi']), session);
    expect(direct.status).toBe(200);
    const first = errorIn(direct.json());
    expect(first.code).toBe('INVALID_INPUT');
    expect(first.message).toBe(
      'Invalid arguments for resolve-library: arguments must be an object of named arguments, not an array.',
    );
    const batch = await post(host.mcpUrl, [call(3, 'fastapi'), call(4, 7), call(5, null)], session);
    expect(batch.status).toBe(200);
    const answers = batch.text
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .flatMap((line) => JSON.parse(line.slice(6)) as unknown[] | unknown);
    const parsed = (answers.length > 0 ? answers : (batch.json() as unknown[])) as unknown[];
    expect(parsed.map((m) => errorIn(m).message.split(', not ')[1])).toEqual(['a string.', 'a number.', 'null.']);
  });

  it('decides on the key first: a revoked or wrong key gets 401 whatever its session or bucket state', async () => {
    const host = await start({ rateLimit: { maxRequestsPerMinute: 1, burstSize: 2 } });
    const key = await host.newKey('leaver');
    const session = await openSession(host, key); // 1 token
    expect((await post(host.mcpUrl, listTools(2), session)).status).toBe(200); // 0 left
    expect((await post(host.mcpUrl, listTools(3), session)).status).toBe(429); // bucket empty
    await host.keys.revoke('leaver', Date.now());
    const bearer = { Authorization: `Bearer ${key}` };
    // with its session, without one, with initialize, with a batch, with an empty bucket: 401 every time
    const asks = [
      await post(host.mcpUrl, listTools(4), session),
      await post(host.mcpUrl, listTools(5), bearer),
      await post(host.mcpUrl, initialize, bearer),
      await post(host.mcpUrl, [listTools(6), listTools(7)], bearer),
      await post(host.mcpUrl, 'not json', bearer),
    ];
    expect(asks.map((a) => a.status)).toEqual([401, 401, 401, 401, 401]);
    for (const a of asks)
      expect((a.json() as { error: { data: { code: string } } }).error.data.code).toBe('AUTH_INVALID');
    // a wrong key presenting another key's live session id
    const other = await host.newKey('stayer');
    const live = await openSession(host, other);
    const wrong = `pc_${'A'.repeat(40)}`;
    const forged = await post(host.mcpUrl, listTools(8), { ...live, Authorization: `Bearer ${wrong}` });
    expect(forged.status).toBe(401);
    const none = await post(host.mcpUrl, listTools(9), { 'mcp-session-id': live['mcp-session-id'] as string });
    expect(none.status).toBe(401);
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FakeWeb } from '@pro-context/testing/fake-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  admin,
  type Nginx,
  nginxPath,
  type Replica,
  runLoad,
  startNginx,
  startReplica,
  stopReplica,
} from '../src/loopback.js';
import { adminPath, cliPath, skipReason, startCorpusWeb, waitForStoreQuiet, writeClusterProject } from './helpers.js';

const nginx = await nginxPath();
const skip = skipReason ?? (nginx ? undefined : 'nginx is not installed (.ci/run installs it with apt-get)');

/**
 * The recipe's topology on loopback: three replicas on one PostgreSQL behind nginx, 200 connections for 10
 * seconds; a key revoked 3 s in, one replica SIGKILLed 5 s in. Every request gets an answer (nginx passes a
 * request the dead replica could not take to another one; clients retry a 502/503/504), and the only non-2xx
 * answers are the intended ones: 401 for the revoked key after its revocation, 429 for the key with a small
 * rate limit.
 */
describe.skipIf(skip)(`the loopback cluster under load${skip ? ` (skipped: ${skip})` : ''}`, () => {
  let web: FakeWeb;
  let project: ReturnType<typeof writeClusterProject>;
  const replicas: Replica[] = [];
  let balancer: Nginx | undefined;
  let dir: string;

  beforeAll(async () => {
    web = await startCorpusWeb();
    project = writeClusterProject(web);
    dir = mkdtempSync(join(tmpdir(), 'pc-nginx-'));
  });
  afterAll(async () => {
    await balancer?.stop();
    await Promise.all(replicas.map((r) => stopReplica(r, 5000)));
    await project?.cleanup();
    await web?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('200 connections, a revoke and a SIGKILL: no request lost, no unintended non-2xx', async () => {
    const key = async (name: string, ...limit: string[]) => {
      const created = await admin(adminPath, project.env, 'keys', 'create', '--name', name, ...limit);
      expect(created.code, created.stderr).toBe(0);
      return created.stdout.trim();
    };
    const team = await key('team', '--per-minute', '100000000', '--burst', '10000000');
    const leaver = await key('leaver', '--per-minute', '100000000', '--burst', '10000000');
    const limited = await key('limited', '--per-minute', '60', '--burst', '5');

    for (const name of ['a', 'b', 'c']) replicas.push(await startReplica({ cliPath, name, env: project.env }));
    balancer = await startNginx({ binary: nginx as string, dir, upstreams: replicas.map((r) => r.port) });
    const url = `http://127.0.0.1:${balancer.port}/mcp`;

    // index the library once through the balancer; the other replicas load it from the store
    const warm = await fetch(url, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${team}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'Mcp-Protocol-Version': '2025-06-18',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'tools/call',
        params: { name: 'get-docs', arguments: { libraryId: 'fastapi', topic: 'dependencies', maxTokens: 2000 } },
      }),
    });
    expect(warm.status).toBe(200);
    expect(await warm.text()).toMatch(/yield|Depends/);
    await waitForStoreQuiet(project.schema);
    // each replica loads the stored library once (no fetching) before the load starts: the first calls of a
    // replica read its blocks from the store
    const topics = ['dependencies with yield', 'background tasks', 'path parameters', 'request body', 'security'];
    for (const r of replicas) {
      for (const topic of topics) {
        const res = await fetch(`http://127.0.0.1:${r.port}/mcp`, {
          method: 'POST',
          headers: {
            Authorization: `Bearer ${team}`,
            'Content-Type': 'application/json',
            Accept: 'application/json, text/event-stream',
            'Mcp-Protocol-Version': '2025-06-18',
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 0,
            method: 'tools/call',
            params: { name: 'get-docs', arguments: { libraryId: 'fastapi', topic, maxTokens: 2000 } },
          }),
        });
        expect(res.status).toBe(200);
        await res.arrayBuffer();
      }
    }
    const fetched = web.requests.length;

    let revokedAt = 0;
    let revokeDoneAt = Number.POSITIVE_INFINITY;
    let killedAt = 0;
    const killed = replicas[2] as Replica;
    const report = await runLoad({
      url,
      connections: 200,
      seconds: 10,
      keyFor: (client) => (client % 20 === 0 ? leaver : client % 20 === 1 ? limited : team),
      body: (n) => ({
        name: 'get-docs',
        arguments: { libraryId: 'fastapi', topic: topics[n % topics.length], maxTokens: 2000 },
      }),
      onTick: (_done, elapsed) => {
        if (!revokedAt && elapsed >= 3000) {
          revokedAt = Date.now();
          void admin(adminPath, project.env, 'keys', 'revoke', 'leaver').then((r) => {
            if (r.code !== 0) throw new Error(r.stderr);
            revokeDoneAt = Date.now();
          });
        }
        if (!killedAt && elapsed >= 5000) {
          killedAt = Date.now();
          killed.process.kill('SIGKILL');
        }
      },
    });
    const byKey = (k: string) => report.outcomes.filter((o) => o.key === k);
    console.log(
      `loopback cluster: ${report.requests} requests in ${report.seconds.toFixed(1)} s (${report.requestsPerSecond.toFixed(0)}/s), p50 ${report.p50Ms} ms, p99 ${report.p99Ms} ms, statuses ${JSON.stringify(report.statuses)}, client retries ${report.retried}, failed ${report.failed}`,
    );

    expect(killedAt).toBeGreaterThan(0);
    expect(await killed.exited).toBeNull();
    // nothing lost: every request got an HTTP answer, and only 200, 401 and 429 at that
    expect(report.failed).toBe(0);
    expect(Object.keys(report.statuses).map(Number).sort()).toEqual(expect.arrayContaining([200]));
    for (const status of Object.keys(report.statuses).map(Number)) expect([200, 401, 429]).toContain(status);
    // 401 only for the revoked key, and only for requests answered once the revocation was underway
    expect(revokeDoneAt).toBeLessThan(Number.POSITIVE_INFINITY);
    for (const o of report.outcomes.filter((x) => x.status === 401)) {
      expect(o.key).toBe(leaver);
      expect(o.at + o.ms).toBeGreaterThanOrEqual(revokedAt);
    }
    // the revoked key is refused by every replica at its next request: none sent after the revocation got a 200
    expect(byKey(leaver).filter((o) => o.status === 200 && o.at > revokeDoneAt)).toEqual([]);
    expect(byKey(leaver).filter((o) => o.status === 401).length).toBeGreaterThan(0);
    // 429 only for the limited key
    for (const o of report.outcomes.filter((x) => x.status === 429)) expect(o.key).toBe(limited);
    // the replicas never fetched the docs again
    expect(web.requests.length).toBe(fetched);
    // the team key kept being answered after the kill, by the two replicas left
    expect(byKey(team).filter((o) => o.status === 200 && o.at > killedAt + 500).length).toBeGreaterThan(100);
    expect(byKey(team).every((o) => o.status === 200)).toBe(true);
  }, 240_000);
});

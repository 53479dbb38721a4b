/**
 * The replicas section: the team cluster of `examples/team-cluster` on loopback, 1 replica and then 3, each behind
 * Debian's nginx on one PostgreSQL (`PRO_CONTEXT_TEST_DATABASE_URL`, or one started here from
 * plugins/postgres-store/scripts/test-server.sh). The libraries are indexed once through the first replica, every
 * replica warms from the store, then the same bounded load of cached get-docs runs through nginx. Measured:
 * requests/s, p50/p99, the replicas' CPU per request, PostgreSQL's CPU per request and its statements
 * (transactions) per request.
 */
import { execFileSync, execSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  admin,
  nginxPath,
  type Replica,
  replicaConfig,
  runLoad,
  startNginx,
  startReplica,
  stopReplica,
} from '@pro-context/example-team-cluster';
import type { FakeWeb } from '@pro-context/testing/fake-web';
import pg from 'pg';
import { cpuMsOf } from './latency.js';
import { cliPath } from './setup.js';

const adminPath = join(dirname(cliPath), 'pro-context-admin.js');
const pgScript = join(
  dirname(fileURLToPath(import.meta.url)),
  '../../../plugins/postgres-store/scripts/test-server.sh',
);

/** One load run through nginx. */
export interface ReplicasRun {
  replicas: number;
  connections: number;
  seconds: number;
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  /** CPU (user + system) of all replicas together per request, ms. */
  serverCpuMsPerRequest: number;
  /** CPU of PostgreSQL's processes per request, ms. */
  postgresCpuMsPerRequest: number | null;
  /** nginx's CPU per request, ms. */
  nginxCpuMsPerRequest: number | null;
  /** PostgreSQL transactions (one per statement here: each runs on its own) per request. */
  postgresQueriesPerRequest: number;
}

export interface ReplicasReport {
  runs: ReplicasRun[];
  skipped?: string;
}

/** CPU ms of every process whose parent is `ppid` plus `ppid` itself (PostgreSQL's backends, nginx's workers). */
function treeCpuMs(ppid: number): number {
  let total = cpuMsOf(ppid) ?? 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === ppid) total += cpuMsOf(Number(entry)) ?? 0;
    } catch {
      // gone
    }
  }
  return total;
}

export async function measureReplicas(
  web: FakeWeb,
  queries: { libraryId: string; topic: string }[],
  options: { seconds: number; counts: number[]; connections: number[]; log: (line: string) => void },
): Promise<ReplicasReport> {
  const nginx = await nginxPath();
  if (!nginx) return { runs: [], skipped: 'nginx is not installed (apt-get install nginx)' };
  let url = process.env.PRO_CONTEXT_TEST_DATABASE_URL;
  let pgDir = process.env.PRO_CONTEXT_TEST_PG_DIR;
  const state = join(tmpdir(), `pro-context-bench-pg.${process.pid}`);
  let started = false;
  if (!url) {
    try {
      const out = execFileSync(pgScript, ['start'], { env: { ...process.env, PRO_CONTEXT_TEST_PG_STATE: state } });
      const vars = Object.fromEntries(
        out
          .toString()
          .split('\n')
          .map((l) => /^export (\w+)=(.*)$/.exec(l))
          .filter((m): m is RegExpExecArray => m !== null)
          .map((m) => [m[1], m[2]]),
      );
      url = vars.PRO_CONTEXT_TEST_DATABASE_URL;
      pgDir = vars.PRO_CONTEXT_TEST_PG_DIR;
      started = true;
    } catch (error) {
      return { runs: [], skipped: `no PostgreSQL (${String((error as Error).message).split('\n')[0]})` };
    }
  }
  const postmaster = (() => {
    try {
      return Number(readFileSync(join(pgDir as string, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    } catch {
      return undefined;
    }
  })();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const xacts = async () =>
    Number(
      (
        await client.query(
          'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()',
        )
      ).rows[0].n,
    );
  const runs: ReplicasRun[] = [];
  try {
    for (const count of options.counts) {
      const dir = mkdtempSync(join(tmpdir(), 'pc-bench-replicas-'));
      const schema = `bench_${randomBytes(4).toString('hex')}`;
      const libraries = [...new Set(queries.map((q) => q.libraryId))].map((id) => ({
        id,
        name: id,
        language: 'python',
        llmsTxtUrl: web.llmsTxtUrl(id),
      }));
      const configFile = join(dir, 'pro-context.config.yaml');
      writeFileSync(configFile, JSON.stringify(replicaConfig({ schema, libraries }), null, 2));
      const env = {
        PATH: process.env.PATH ?? '',
        HOME: dir,
        PRO_CONTEXT_CONFIG: configFile,
        PRO_CONTEXT_DATABASE_URL: url as string,
      };
      const replicas: Replica[] = [];
      let balancer: Awaited<ReturnType<typeof startNginx>> | undefined;
      try {
        const key = (await admin(adminPath, env, 'keys', 'create', '--name', 'bench')).stdout.trim();
        for (let i = 0; i < count; i += 1) replicas.push(await startReplica({ cliPath, name: `r${i}`, env }));
        balancer = await startNginx({ binary: nginx, dir, upstreams: replicas.map((r) => r.port) });
        const body = (n: number) => ({
          name: 'get-docs',
          arguments: { ...(queries[n % queries.length] as { libraryId: string; topic: string }), maxTokens: 5000 },
        });
        // index through the first replica, then every replica answers each question once (from the store)
        for (const r of replicas)
          await runLoad({
            url: `http://127.0.0.1:${r.port}/mcp`,
            connections: 1,
            seconds: 0.001,
            keyFor: () => key,
            body,
          });
        for (const r of replicas)
          for (let n = 0; n < queries.length; n += 1)
            await runLoad({
              url: `http://127.0.0.1:${r.port}/mcp`,
              connections: 1,
              seconds: 0.001,
              keyFor: () => key,
              body: () => body(n),
            });
        const nginxPid = Number(readFileSync(join(dir, 'nginx.pid'), 'utf8').trim());
        for (const connections of options.connections) {
          const cpu0 = replicas.map((r) => cpuMsOf(r.process.pid as number) ?? 0);
          const pg0 = postmaster ? treeCpuMs(postmaster) : undefined;
          const ng0 = treeCpuMs(nginxPid);
          const x0 = await xacts();
          const report = await runLoad({
            url: `http://127.0.0.1:${balancer.port}/mcp`,
            connections,
            seconds: options.seconds,
            keyFor: () => key,
            body,
          });
          const x1 = await xacts();
          const cpu = replicas.reduce(
            (sum, r, i) => sum + ((cpuMsOf(r.process.pid as number) ?? 0) - (cpu0[i] ?? 0)),
            0,
          );
          const pgCpu = postmaster && pg0 !== undefined ? treeCpuMs(postmaster) - pg0 : null;
          const ngCpu = treeCpuMs(nginxPid) - ng0;
          const n = Math.max(1, report.requests);
          const ok = report.statuses[200] ?? 0;
          const run: ReplicasRun = {
            replicas: count,
            connections,
            seconds: report.seconds,
            requests: report.requests,
            requestsPerSecond: report.requestsPerSecond,
            p50Ms: report.p50Ms,
            p99Ms: report.p99Ms,
            non2xx: report.requests - ok,
            serverCpuMsPerRequest: cpu / n,
            postgresCpuMsPerRequest: pgCpu === null ? null : pgCpu / n,
            nginxCpuMsPerRequest: ngCpu / n,
            // the measuring connection's own statement (one) is not the servers'
            postgresQueriesPerRequest: (x1 - x0 - 1) / n,
          };
          options.log(
            `  replicas ×${count}, ${connections} connections: ${run.requestsPerSecond.toFixed(0)} req/s, p50 ${run.p50Ms} ms, p99 ${run.p99Ms} ms, non-2xx ${run.non2xx}, replicas' CPU ${run.serverCpuMsPerRequest.toFixed(2)} ms/req, PostgreSQL CPU ${run.postgresCpuMsPerRequest?.toFixed(2) ?? 'n/a'} ms/req, ${run.postgresQueriesPerRequest.toFixed(2)} queries/req`,
          );
          runs.push(run);
        }
      } finally {
        await balancer?.stop();
        await Promise.all(replicas.map((r) => stopReplica(r, 5000)));
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
        rmSync(dir, { recursive: true, force: true });
      }
    }
  } finally {
    await client.end();
    if (started) execSync(`"${pgScript}" stop`, { env: { ...process.env, PRO_CONTEXT_TEST_PG_STATE: state } });
  }
  return { runs };
}

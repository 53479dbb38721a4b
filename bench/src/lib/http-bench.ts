/**
 * The HTTP host under load: `pro-context serve --http` spawned from dist/, one API key (its rate limit set
 * out of the way), the corpora indexed once, then autocannon on loopback (each run bounded in time) for
 * cached get-docs and search-docs at 1, 10 and 50 connections, and the server's memory before and after.
 */

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { FakeWeb } from '@pro-context/testing/fake-web';
import { freePort } from '@pro-context/testing/fake-web';
import autocannon from 'autocannon';
import { cpuMsOf, memoryOf } from './latency.js';
import { cliPath, makeProject } from './setup.js';

const run = promisify(execFile);
const adminPath = join(
  dirname(createRequire(import.meta.url).resolve('pro-context/package.json')),
  'dist',
  'bin',
  'pro-context-admin.js',
);

/** One autocannon run. */
export interface HttpLoadRun {
  tool: 'get-docs' | 'search-docs';
  connections: number;
  seconds: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** Responses other than 2xx, and socket errors/timeouts: should all be 0 (no rate limit was hit). */
  non2xx: number;
  errors: number;
  /** Mean response size (headers and body), bytes. */
  bytesPerResponse: number;
  /**
   * The server's CPU time (user + system) per request during the run, ms: what a request costs whatever else
   * runs on the machine; 1000 / this is the most one core can answer per second.
   */
  serverCpuMsPerRequest?: number;
}

/** What {@link measureHttp} returns. */
export interface HttpReport {
  runs: HttpLoadRun[];
  memoryBeforeMb?: number;
  memoryAfterMb?: number;
  peakMb?: number;
}

function cannon(options: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

export async function measureHttp(
  web: FakeWeb,
  queries: { getDocs: { libraryId: string; topic: string }[]; search: { libraryId: string; query: string }[] },
  options: { seconds: number; connections: number[]; log: (line: string) => void },
): Promise<HttpReport> {
  const project = makeProject(web);
  const port = await freePort();
  const env = { PATH: process.env.PATH ?? '', HOME: project.dir, PRO_CONTEXT_CONFIG: project.configFile };
  const { stdout } = await run(
    process.execPath,
    [adminPath, 'keys', 'create', '--name', 'bench', '--per-minute', '100000000', '--burst', '10000000'],
    { env },
  );
  const key = stdout.trim();
  let server: ChildProcess | undefined;
  try {
    // BENCH_HTTP_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`): node flags for the server only
    const nodeArgs = process.env.BENCH_HTTP_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
    server = spawn(process.execPath, [...nodeArgs, cliPath, 'serve', '--http'], {
      env: { ...env, PRO_CONTEXT_PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const stderr: string[] = [];
    server.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
    const started = Date.now();
    // the bench config logs at warn: wait for /health to answer
    for (;;) {
      if (server.exitCode !== null || Date.now() - started > 60_000) throw new Error(`no server:\n${stderr.join('')}`);
      const up = await fetch(`http://127.0.0.1:${port}/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (up) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const url = new URL(`http://127.0.0.1:${port}/mcp`);
    const transport = new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    });
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(transport);
    // index every library asked about, and warm each question once (the runs then measure cached answers)
    for (const q of queries.getDocs)
      await client.callTool({ name: 'get-docs', arguments: { ...q, maxTokens: 5000 } }, CallToolResultSchema, {
        timeout: 120_000,
      });
    for (const q of queries.search)
      await client.callTool({ name: 'search-docs', arguments: q }, CallToolResultSchema, { timeout: 120_000 });
    const pid = server.pid as number;
    const memoryBeforeMb = memoryOf(pid)?.rssMb;
    const sessionId = transport.sessionId as string;
    const headers = {
      Authorization: `Bearer ${key}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'Mcp-Session-Id': sessionId,
      'Mcp-Protocol-Version': '2025-06-18',
    };
    const runs: HttpLoadRun[] = [];
    // BENCH_HTTP_TOOLS (e.g. `get-docs`) narrows the runs, for profiling and A/B runs
    const tools = (['get-docs', 'search-docs'] as const).filter(
      (t) => !process.env.BENCH_HTTP_TOOLS || process.env.BENCH_HTTP_TOOLS.split(',').includes(t),
    );
    for (const tool of tools) {
      const bodies =
        tool === 'get-docs'
          ? queries.getDocs.map((q) => ({ ...q, maxTokens: 5000 }))
          : queries.search.map((q) => ({ ...q }));
      // BENCH_HTTP_CONNECTIONS (e.g. `10`) likewise
      const only = process.env.BENCH_HTTP_CONNECTIONS?.split(',').map(Number);
      for (const connections of options.connections.filter((c) => !only || only.includes(c))) {
        let n = 0;
        const cpuBefore = cpuMsOf(pid);
        const result = await cannon({
          url: url.href,
          method: 'POST',
          headers,
          connections,
          duration: options.seconds,
          requests: [
            {
              setupRequest: (req) => ({
                ...req,
                body: JSON.stringify({
                  jsonrpc: '2.0',
                  id: ++n,
                  method: 'tools/call',
                  params: { name: tool, arguments: bodies[n % bodies.length] },
                }),
              }),
            },
          ],
        });
        const run: HttpLoadRun = {
          tool,
          connections,
          seconds: options.seconds,
          requestsPerSecond: result.requests.average,
          p50Ms: result.latency.p50,
          p99Ms: result.latency.p99,
          requests: result.requests.total,
          non2xx: result.non2xx,
          errors: result.errors + result.timeouts,
          bytesPerResponse: Math.round(result.throughput.total / Math.max(1, result.requests.total)),
        };
        const cpuAfter = cpuMsOf(pid);
        if (cpuBefore !== undefined && cpuAfter !== undefined && result.requests.total > 0)
          run.serverCpuMsPerRequest = (cpuAfter - cpuBefore) / result.requests.total;
        options.log(
          `  http ${tool} ×${connections}: ${run.requestsPerSecond.toFixed(0)} req/s, p50 ${run.p50Ms} ms, p99 ${run.p99Ms} ms, non-2xx ${run.non2xx}, ${(run.bytesPerResponse / 1024).toFixed(1)} KiB/response, server CPU ${run.serverCpuMsPerRequest?.toFixed(2) ?? 'n/a'} ms/request`,
        );
        runs.push(run);
      }
    }
    const after = memoryOf(pid);
    await client.close();
    return {
      runs,
      ...(memoryBeforeMb === undefined ? {} : { memoryBeforeMb }),
      ...(after ? { memoryAfterMb: after.rssMb, peakMb: after.peakRssMb } : {}),
    };
  } finally {
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server?.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    project.cleanup();
  }
}

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { freePort } from '@pro-context/testing/fake-web';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, offlineRegistries } from './helpers.js';

// issue #29 deliverable 3: seed 004's HTTP server conventions (`MCP_PORT`, a stateless server, `GET /metrics`),
// through the built `pro-context serve --http` and the SDK's Streamable HTTP client
const run = promisify(execFile);
const adminPath = fileURLToPath(new URL('../dist/bin/pro-context-admin.js', import.meta.url));
const built = existsSync(cliPath) && existsSync(adminPath);

describe.skipIf(!built)("seed 004's HTTP server conventions", () => {
  let dir: string;
  let baseEnv: Record<string, string>;
  let key: string;
  const servers: ChildProcess[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pc-seed004-'));
    const configFile = join(dir, 'pro-context.config.yaml');
    writeFileSync(
      configFile,
      JSON.stringify({
        cache: { directory: join(dir, 'cache') },
        project: { autoDetect: false },
        ...offlineRegistries,
      }),
    );
    baseEnv = {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      PRO_CONTEXT_CONFIG: configFile,
      PRO_CONTEXT_CACHE_DIR: join(dir, 'cache'),
    };
    const created = await run(process.execPath, [adminPath, 'keys', 'create', '--name', 'agent'], {
      env: baseEnv,
      timeout: 60_000,
    });
    key = created.stdout.trim();
  });
  afterEach(() => {
    for (const server of servers.splice(0)) if (server.exitCode === null) server.kill('SIGKILL');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** `pro-context serve --http` with `env`; resolves once it says it is ready (its stderr so far). */
  async function serve(env: Record<string, string>): Promise<string[]> {
    const stderr: string[] = [];
    const server = spawn(process.execPath, [cliPath, 'serve', '--http'], {
      env: { ...baseEnv, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    servers.push(server);
    server.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
    const started = Date.now();
    while (!/pro-context HTTP server ready/.test(stderr.join(''))) {
      if (server.exitCode !== null || Date.now() - started > 30_000)
        throw new Error(`the server did not start:\n${stderr.join('')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return stderr;
  }

  it('listens on MCP_PORT, serves statelessly with PRO_CONTEXT_STATELESS, and opens /metrics with PRO_CONTEXT_METRICS_AUTH=none', async () => {
    const port = await freePort();
    await serve({ MCP_PORT: String(port), PRO_CONTEXT_STATELESS: 'true', PRO_CONTEXT_METRICS_AUTH: 'none' });
    const base = `http://127.0.0.1:${port}`;
    const health = (await (await fetch(`${base}/health`)).json()) as { server: { stateless: boolean } };
    expect(health.server.stateless).toBe(true);
    // the seed's monitoring: GET /metrics without a key
    const metrics = await fetch(`${base}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('pro_context_tool_calls_total');
    // an agent through the SDK's client: stateless (no session id), tools listed
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    });
    const client = new Client({ name: 'seed-004', version: '1' });
    await client.connect(transport);
    expect(transport.sessionId).toBeUndefined();
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('get-docs');
    await client.close();
    // a stateless server has no GET stream
    const get = await fetch(`${base}/mcp`, {
      headers: { Authorization: `Bearer ${key}`, Accept: 'text/event-stream' },
    });
    expect(get.status).toBe(405);
  });

  it('keeps /metrics behind a key by default; PRO_CONTEXT_PORT wins over MCP_PORT', async () => {
    const [port, ignored] = [await freePort(), await freePort()];
    const stderr = await serve({ PRO_CONTEXT_PORT: String(port), MCP_PORT: String(ignored) });
    expect(stderr.join('')).toContain(`http://127.0.0.1:${port}/mcp`);
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/metrics`)).status).toBe(401);
    const keyed = await fetch(`${base}/metrics`, { headers: { Authorization: `Bearer ${key}` } });
    expect(keyed.status).toBe(200);
    const health = (await (await fetch(`${base}/health`)).json()) as { server: { stateless: boolean } };
    expect(health.server.stateless).toBe(false);
  });
});

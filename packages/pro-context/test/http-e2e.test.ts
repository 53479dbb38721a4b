import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { freePort } from '@pro-context/testing/fake-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, skipReason, useCorpusProject } from './helpers.js';

const run = promisify(execFile);
const adminPath = fileURLToPath(new URL('../dist/bin/pro-context-admin.js', import.meta.url));

/**
 * A team lead's day, with the built binaries: `pro-context-admin keys create`, `pro-context serve --http`,
 * developers' agents (the SDK's client over Streamable HTTP), a revocation, usage, SIGTERM.
 */
describe.skipIf(skipReason)(`the team server over HTTP${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  const corpus = useCorpusProject();
  let server: ChildProcess;
  let url: URL;
  const stderr: string[] = [];
  let env: Record<string, string>;

  const admin = async (...args: string[]) => {
    try {
      const { stdout, stderr: err } = await run(process.execPath, [adminPath, ...args], { env, timeout: 60_000 });
      return { code: 0, stdout, stderr: err };
    } catch (error) {
      const e = error as { code?: number; stdout?: string; stderr?: string };
      return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
    }
  };
  const connect = async (key: string) => {
    const transport = new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    });
    const client = new Client({ name: 'agent', version: '1' });
    await client.connect(transport);
    return client;
  };

  beforeAll(async () => {
    const port = await freePort();
    env = {
      PATH: process.env.PATH ?? '',
      HOME: corpus.project.dir,
      PRO_CONTEXT_CONFIG: corpus.project.configFile,
      PRO_CONTEXT_PORT: String(port),
    };
    server = spawn(process.execPath, [cliPath, 'serve', '--http'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    server.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
    url = new URL(`http://127.0.0.1:${port}/mcp`);
    const started = Date.now();
    while (!/pro-context HTTP server ready/.test(stderr.join(''))) {
      if (server.exitCode !== null || Date.now() - started > 30_000)
        throw new Error(`the server did not start:\n${stderr.join('')}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
  afterAll(() => {
    if (server.exitCode === null) server.kill('SIGKILL');
  });

  it('serves a keyed agent every tool; refuses no key, a wrong key and a revoked one; counts usage; stops on SIGTERM', async () => {
    const created = await admin('keys', 'create', '--name', 'alice');
    expect(created.code).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(/^pc_[A-Za-z0-9_-]{40}$/);
    expect(created.stderr).toMatch(/cannot be shown again/);
    const list = await admin('keys', 'list', '--json');
    expect(list.stdout).not.toContain(key);
    const [alice] = JSON.parse(list.stdout) as { id: string; name: string }[];
    expect(alice?.name).toBe('alice');

    const client = await connect(key);
    const call = (name: string, args: Record<string, unknown>) =>
      client.callTool({ name, arguments: args }, CallToolResultSchema, { timeout: 60_000 });
    const docs = await call('get-docs', { libraryId: 'fastapi', topic: 'dependencies with yield', maxTokens: 2000 });
    expect(docs.isError).toBeFalsy();
    expect((docs.structuredContent as { content: string }).content).toMatch(/yield/);
    expect((await call('list-libraries', {})).isError).toBeFalsy();

    await expect(connect(`pc_${'x'.repeat(40)}`)).rejects.toThrow(/AUTH_INVALID/);
    const anonymous = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { data: { code: string } } }).error.data.code).toBe('AUTH_REQUIRED');

    // revoked by the admin CLI (another process) while the agent's session is open: its next request fails
    expect((await admin('keys', 'revoke', 'alice')).code).toBe(0);
    await expect(client.listTools()).rejects.toThrow(/AUTH_INVALID/);

    // SIGTERM: the server flushes usage and exits 0
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    server.kill('SIGTERM');
    expect(await exited).toBe(0);
    const usage = await admin('usage', '--key', 'alice', '--json');
    const [row] = JSON.parse(usage.stdout) as { requests: number; errors: number; toolCalls: Record<string, number> }[];
    expect(row?.toolCalls).toEqual({ 'get-docs': 1, 'list-libraries': 1 });
    expect(row?.requests).toBeGreaterThanOrEqual(4);
    expect(row?.errors).toBeGreaterThanOrEqual(0);
    const text = await admin('usage');
    expect(text.stdout).toMatch(/alice .*get-docs=1 list-libraries=1/);
    expect(stderr.join('')).not.toContain(key);
  });
});

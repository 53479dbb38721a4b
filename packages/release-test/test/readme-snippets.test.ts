// Every agent set-up snippet of the root README, parsed as its agent reads it and started: the stdio ones are
// `npx -y --allow-scripts=better-sqlite3 pro-context` run here as the built CLI (publish.test.ts runs them with
// npx against the published packages), the HTTP ones connect with their URL and key header to the built team
// server on loopback.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { freePort } from '@pro-context/testing/fake-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agents, expandVariables, httpServer, readmeSnippets, shellWords, stdioServer } from '../src/readme.js';
import { builtAdmin, builtCli, startHttpServer } from '../src/servers.js';
import { npxArgs } from '../src/user.js';

const execFileAsync = promisify(execFile);
const snippets = readmeSnippets();
const teamUrl = 'https://docs.internal.example.com/mcp';

describe('the README gives every agent a stdio and an HTTP set-up', () => {
  it.each(agents.map((a) => [a]))('%s', (agent) => {
    const mine = snippets.filter((s) => s.agents.includes(agent));
    expect(mine.map((s) => s.transport).sort()).toEqual(['http', 'stdio']);
  });

  it('parses a `claude mcp add` line as a shell does', () => {
    expect(shellWords(`claude mcp add --header "Authorization: Bearer $K" x 'a b' -- npx -y`)).toEqual([
      'claude',
      'mcp',
      'add',
      '--header',
      'Authorization: Bearer $K',
      'x',
      'a b',
      '--',
      'npx',
      '-y',
    ]);
  });

  it("expands each agent's variable syntax in a header, and refuses an unknown variable", () => {
    const values = { K: 'pc_1', 'pro-context-key': 'pc_2' };
    expect(expandVariables('Bearer $K', values)).toBe('Bearer pc_1');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: an agent's variable syntax
    expect(expandVariables('Bearer ${env:K}', values)).toBe('Bearer pc_1');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: an agent's variable syntax
    expect(expandVariables('Bearer ${input:pro-context-key}', values)).toBe('Bearer pc_2');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: an agent's variable syntax
    expect(() => expandVariables('Bearer ${OTHER}', values)).toThrow(/OTHER/);
  });
});

const skipReason = existsSync(builtCli) ? undefined : 'packages/pro-context is not built (npm test builds first)';

describe.skipIf(skipReason)(
  `the README's snippets start a server that answers${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let dir: string;
    let env: NodeJS.ProcessEnv;

    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'pc-readme-'));
      mkdirSync(join(dir, 'home'));
      // no package registry is asked: nothing leaves the machine
      writeFileSync(
        join(dir, 'pro-context.config.yaml'),
        `registry: { enabled: false }\nregistries: { pypi: { enabled: false }, npm: { enabled: false } }\ncache: { directory: ${JSON.stringify(join(dir, 'cache'))} }\n`,
      );
      env = { PATH: process.env.PATH, HOME: join(dir, 'home') };
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it.each(snippets.filter((s) => s.transport === 'stdio').map((s) => [s.agents.join(', '), s]))(
      'stdio, %s: the command answers initialize',
      async (_, snippet) => {
        const server = stdioServer(snippet);
        // the published CLI, run with npx: here the workspace's build of it
        expect([server.command, ...server.args]).toEqual(['npx', ...npxArgs]);
        const transport = new StdioClientTransport({
          command: process.execPath,
          args: [builtCli],
          cwd: dir,
          env: { ...(env as Record<string, string>), ...server.env },
          stderr: 'pipe',
        });
        const client = new Client({ name: 'readme', version: '1' });
        await client.connect(transport);
        expect(client.getServerVersion()?.name).toBe('pro-context');
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toContain('get-docs');
        await client.close();
      },
    );

    describe('http', () => {
      let server: Awaited<ReturnType<typeof startHttpServer>>;
      let url: string;
      let key: string;

      beforeAll(async () => {
        const port = await freePort();
        const serverEnv = { ...env, PRO_CONTEXT_PORT: String(port) };
        const created = await execFileAsync(
          process.execPath,
          [builtAdmin, 'keys', 'create', '--name', 'readme', '--per-minute', '600', '--burst', '100'],
          {
            cwd: dir,
            env: serverEnv,
          },
        );
        key = created.stdout.trim();
        server = await startHttpServer(process.execPath, [builtCli, 'serve', '--http'], { cwd: dir, env: serverEnv });
        url = `http://127.0.0.1:${port}/mcp`;
      }, 90_000);
      afterAll(() => server?.stop());

      it.each(snippets.filter((s) => s.transport === 'http').map((s) => [s.agents.join(', '), s]))(
        'http, %s: its URL with its key header reaches the team server',
        async (_, snippet) => {
          const remote = httpServer(snippet);
          expect(remote.url).toBe(teamUrl);
          // the values the developer's environment (or the agent's prompt, or the config's env) gives
          const values: Record<string, string> = {
            PRO_CONTEXT_KEY: key,
            'pro-context-key': key,
            ...remote.bridge?.env,
          };
          if (remote.bridge) {
            expect(remote.bridge.command).toBe('npx');
            expect(remote.bridge.args.slice(0, 3)).toEqual(['-y', 'mcp-remote', teamUrl]);
            values.PRO_CONTEXT_AUTH = (values.PRO_CONTEXT_AUTH as string).replace(/pc_\w+/, key);
          }
          const headers = Object.fromEntries(
            Object.entries(remote.headers).map(([name, value]) => [name, expandVariables(value, values)]),
          );
          expect(headers.Authorization).toBe(`Bearer ${key}`);
          const client = new Client({ name: 'readme', version: '1' });
          await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
          const { tools } = await client.listTools();
          expect(tools.map((t) => t.name)).toContain('get-docs');
          await client.close();
        },
      );
    });
  },
);

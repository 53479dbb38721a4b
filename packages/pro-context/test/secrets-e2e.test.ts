import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type CallToolResult,
  CallToolResultSchema,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { type FakeContext7, startFakeContext7 } from '@pro-context/testing';
import type { FakeWeb } from '@pro-context/testing/fake-web';
import { freePort } from '@pro-context/testing/fake-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, connectStdio, skipReason, startCorpusWeb, writeProject } from './helpers.js';

const run = promisify(execFile);
const adminPath = fileURLToPath(new URL('../dist/bin/pro-context-admin.js', import.meta.url));

/**
 * Planted secrets. None has the shape of a known key (`ghp_…`, `sk-…`, `ctx7sk-…`): only the server knowing them
 * (configured secrets) or where they sit (a URL's user-info, a secret query parameter) keeps them out.
 */
const PLANTED = {
  queryToken: 'qtok6a1f93c2e8b7d405',
  password: 'pw3c9e1b7a5d2f8064',
  userToken: 'utok5e0c8a2f6d4b1937aa',
  redirectSig: 'sig8d2b6f1e4a9c7035',
  context7: 'c7planted2e5a9d1b7c3f8046',
  github: 'ghplanted9f3c1a7e5b2d8064',
  exa: 'exaplanted4b8e2c6a1f9d7035',
  gemini: 'gemplanted7d1f5b9e3a2c8046',
} as const;

const secretEnv = {
  CONTEXT7_API_KEY: PLANTED.context7,
  PRO_CONTEXT_GITHUB_TOKEN: PLANTED.github,
  EXA_API_KEY: PLANTED.exa,
  GEMINI_API_KEY: PLANTED.gemini,
};

/** The planted secrets found in `text` (empty: none leaked). */
function leaks(text: string): string[] {
  return Object.entries(PLANTED)
    .filter(([, secret]) => text.includes(secret) || text.includes(encodeURIComponent(secret)))
    .map(([name]) => name);
}

const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

/**
 * Secrets never leave (issue #25.5): secrets planted in the configuration (a token in an `llmsTxtUrl`'s query, a
 * password in another's user-info), in the environment (API keys of Context7, GitHub, Exa, Gemini), in a redirect's
 * `Location` and in an upstream's error body are driven through the built server, over stdio and as the team
 * server over HTTP, and everything it wrote is searched for them: every answer, error, resource, log
 * notification, stderr line and `/metrics`.
 */
describe.skipIf(skipReason)(`secrets never leave${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  let web: FakeWeb;
  let context7: FakeContext7;
  let project: ReturnType<typeof writeProject>;
  let env: Record<string, string>;

  beforeAll(async () => {
    web = await startCorpusWeb();
    context7 = await startFakeContext7({ apiKey: PLANTED.context7 });
    project = writeProject(web, {
      context7: { timeoutMs: 2000 },
      rateLimit: { maxRequestsPerMinute: 6000, burstSize: 1000 },
    });
    const config = JSON.parse(readFileSync(project.configFile, 'utf8'));
    const host = new URL(web.url).host;
    config.libraries = [
      {
        id: 'tokened',
        name: 'Tokened Docs',
        language: 'python',
        llmsTxtUrl: `${web.llmsTxtUrl('pydantic')}?token=${PLANTED.queryToken}`,
      },
      {
        id: 'credentialed',
        name: 'Credentialed Docs',
        language: 'python',
        llmsTxtUrl: `http://alice:${PLANTED.password}@${host}/fastapi/llms.txt`,
      },
      {
        id: 'user-token',
        name: 'User Token Docs',
        language: 'python',
        llmsTxtUrl: `http://${PLANTED.userToken}@${host}/httpx/llms.txt`,
      },
      {
        id: 'tokened-missing',
        name: 'Missing Docs',
        language: 'python',
        llmsTxtUrl: `${web.siteUrl('pydantic')}missing/llms.txt?api_key=${PLANTED.queryToken}`,
      },
      { id: 'httpx', name: 'HTTPX', language: 'python', llmsTxtUrl: web.llmsTxtUrl('httpx') },
    ];
    writeFileSync(project.configFile, JSON.stringify(config));
    // an allowlisted page that redirects off the allowlist, with a signature in the target (never contacted)
    web.setFault(
      { site: 'httpx', path: '/moved/' },
      { redirectTo: `http://203.0.113.7/steal?sig=${PLANTED.redirectSig}` },
    );
    env = {
      ...secretEnv,
      PRO_CONTEXT_PLUGINS: 'context7',
      PRO_CONTEXT_CONTEXT7_URL: context7.url,
      PRO_CONTEXT_LOG_LEVEL: 'debug',
      PRO_CONTEXT_LOG_FORMAT: 'json',
    };
  });

  afterAll(async () => {
    await context7?.close();
    await web?.close();
    project?.cleanup();
  });

  /** Every call a user could make that touches a planted secret; returns everything answered. */
  async function exercise(call: (name: string, args: Record<string, unknown>) => Promise<CallToolResult>) {
    const answers: Record<string, CallToolResult> = {};
    answers.resolveTokened = await call('resolve-library', { query: 'tokened' });
    answers.getDocsTokened = await call('get-docs', { libraryId: 'tokened', topic: 'validators' });
    answers.searchTokened = await call('search-docs', { libraryId: 'tokened', query: 'field validator' });
    answers.readLlmsTxt = await call('read-page', { url: `${web.llmsTxtUrl('pydantic')}?token=${PLANTED.queryToken}` });
    answers.resolveMissing = await call('resolve-library', { query: 'tokened-missing' });
    answers.getDocsMissing = await call('get-docs', { libraryId: 'tokened-missing', topic: 'install' });
    answers.resolveCredentialed = await call('resolve-library', { query: 'credentialed' });
    answers.getDocsCredentialed = await call('get-docs', { libraryId: 'credentialed', topic: 'routing' });
    answers.readCredentialed = await call('read-page', {
      url: `http://alice:${PLANTED.password}@${new URL(web.url).host}/fastapi/llms.txt`,
    });
    answers.resolveUserToken = await call('resolve-library', { query: 'user-token' });
    answers.redirect = await call('read-page', { url: `${web.siteUrl('httpx')}moved/` });
    // an upstream that echoes the key it was sent in its error body (some APIs do)
    context7.fault({
      status: 401,
      body: { error: 'invalid_api_key', message: `API key ${PLANTED.context7} is not valid for this project.` },
    });
    answers.context7 = await call('context7.search', { query: 'react' });
    context7.fault();
    return answers;
  }

  it('over stdio: no answer, error, resource, log notification or stderr line holds a planted secret', async () => {
    const server = await connectStdio(project.configFile, env);
    const notifications: string[] = [];
    server.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      notifications.push(JSON.stringify(n.params));
    });
    await server.client.setLoggingLevel('debug');
    try {
      const answers = await exercise((name, args) => server.call(name, args));
      const health = await server.client.readResource({ uri: 'pro-context://health' });

      // the secrets did their job: the tokened llms.txt was fetched with its token, and answered
      expect(web.requests.some((r) => r.path.includes(`token=${PLANTED.queryToken}`))).toBe(true);
      expect(answers.getDocsTokened?.isError).toBeFalsy();
      expect(
        (answers.getDocsTokened?.structuredContent as { content: string } | undefined)?.content.length ?? 0,
      ).toBeGreaterThan(200);
      // …and were masked where they showed: the URL stays readable, the value does not
      const missing = JSON.stringify(answers.resolveMissing);
      expect(missing).toMatch(/missing\/llms\.txt\?api_key=\[REDACTED\]/);
      expect(JSON.stringify(answers.readLlmsTxt?.structuredContent)).toContain('llms.txt?token=[REDACTED]');
      expect(answers.redirect?.isError).toBe(true);
      expect(textOf(answers.redirect as CallToolResult)).toMatch(/URL_NOT_ALLOWED/);
      expect(textOf(answers.redirect as CallToolResult)).toContain('sig=[REDACTED]');
      expect(textOf(answers.context7 as CallToolResult)).toMatch(
        /^\[Context7 error 401: invalid_api_key: API key \[REDACTED\]/,
      );

      const written = {
        answers: JSON.stringify(answers),
        health: JSON.stringify(health),
        notifications: notifications.join('\n'),
        stderr: server.stderr.join(''),
      };
      // the logs saw the URLs (debug level), masked
      expect(written.stderr).toContain('[REDACTED]');
      for (const [where, text] of Object.entries(written))
        expect({ where, leaked: leaks(text) }).toEqual({ where, leaked: [] });
    } finally {
      await server.close();
    }
  }, 120_000);

  it('as the team server over HTTP: no answer, error, /health, /metrics or stderr line holds a planted secret', async () => {
    const port = await freePort();
    const httpEnv = {
      ...env,
      PATH: process.env.PATH ?? '',
      HOME: project.dir,
      PRO_CONTEXT_CONFIG: project.configFile,
      PRO_CONTEXT_PORT: String(port),
    };
    const created = await run(process.execPath, [adminPath, 'keys', 'create', '--name', 'dev'], {
      env: httpEnv,
      timeout: 60_000,
    });
    const key = created.stdout.trim();
    const stderr: string[] = [];
    const server: ChildProcess = spawn(process.execPath, [cliPath, 'serve', '--http'], {
      env: httpEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stdout: string[] = [];
    server.stdout?.on('data', (d: Buffer) => stdout.push(d.toString()));
    server.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
    try {
      const started = Date.now();
      while (!/pro-context HTTP server ready/.test(stderr.join(''))) {
        if (server.exitCode !== null || Date.now() - started > 30_000)
          throw new Error(`the server did not start:\n${stderr.join('')}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const base = `http://127.0.0.1:${port}`;
      const client = new Client({ name: 'agent', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
          requestInit: { headers: { Authorization: `Bearer ${key}` } },
        }),
      );
      const answers = await exercise(
        async (name, args) =>
          (await client.callTool({ name, arguments: args }, CallToolResultSchema, {
            timeout: 60_000,
          })) as CallToolResult,
      );
      const auth = { headers: { Authorization: `Bearer ${key}` } };
      const metrics = await (await fetch(`${base}/metrics`, auth)).text();
      const health = await (await fetch(`${base}/health`, auth)).text();
      await client.close();
      expect(metrics).toContain('pro_context_tool_calls_total');
      const written = {
        answers: JSON.stringify(answers),
        metrics,
        health,
        stdout: stdout.join(''),
        stderr: stderr.join(''),
      };
      for (const [where, text] of Object.entries(written))
        expect({ where, leaked: leaks(text) }).toEqual({ where, leaked: [] });
    } finally {
      if (server.exitCode === null) server.kill('SIGKILL');
    }
  }, 120_000);
});

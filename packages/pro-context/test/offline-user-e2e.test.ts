import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type CallToolResult, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { type FakeContext7, startFakeContext7, unreachableUpstreams } from '@pro-context/testing';
import type { FakeWeb } from '@pro-context/testing/fake-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, errorOf, skipReason, startCorpusWeb } from './helpers.js';

/**
 * Issue #26 "Done when", as an offline user lives it: an empty home, no network (the package registries refused by
 * policy, as a DNS sinkhole makes them, and separately unreachable), an intranet library configured on a loopback
 * site (`security.allowPrivateNetwork: true`, as an intranet user sets it) and a project folder whose
 * `node_modules` holds hono 4.8.3 with its docs and a private package. Both the one-shot CLI, run in the project
 * folder, and the stdio server, spawned there and driven by the SDK's client, answer with notes, not errors, and
 * nothing they serve is "stale". The registries are named by PRO_CONTEXT_PYPI_URL / PRO_CONTEXT_NPM_URL, as a user
 * would; the curated registry is off so that no curated source names a public host (no packet leaves the machine).
 */

const dirs: string[] = [];
function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** package-lock.json + node_modules: hono 4.8.3 with its docs, and a private package nobody publishes. */
const NPM_PROJECT: Record<string, string> = {
  'package.json': JSON.stringify({
    name: 'app',
    version: '1.0.0',
    dependencies: { hono: '^4.8.0', 'tiny-internal-lib': '^1.0.0' },
  }),
  'package-lock.json': JSON.stringify({
    name: 'app',
    version: '1.0.0',
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: 'app', version: '1.0.0', dependencies: { hono: '^4.8.0', 'tiny-internal-lib': '^1.0.0' } },
      'node_modules/hono': { version: '4.8.3' },
      'node_modules/tiny-internal-lib': { version: '1.2.0' },
    },
  }),
  'node_modules/hono/package.json': JSON.stringify({ name: 'hono', version: '4.8.3' }),
  'node_modules/hono/README.md':
    '# Hono\n\nUltrafast web framework.\n\n## Routing\n\nDefine routes with app.get(path, handler) and app.post(path, handler).\n',
  'node_modules/hono/docs/middleware.md':
    '# Middleware\n\nAdd middleware with app.use(middleware): cors, logger, basicAuth.\n',
  'node_modules/tiny-internal-lib/package.json': JSON.stringify({ name: 'tiny-internal-lib', version: '1.2.0' }),
  'node_modules/tiny-internal-lib/README.md': '# tiny-internal-lib\n\nInternal helpers: frobnicate(x) frobnicates x.\n',
};

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

interface Docs {
  libraryId: string;
  version: string;
  content: string;
  stale: boolean;
  notes?: string[];
}

const cases = [
  { name: 'refused by policy', registry: (u: { refusedByPolicy: string }) => u.refusedByPolicy },
  { name: 'unreachable (connection refused)', registry: (u: { connectionRefused: string }) => u.connectionRefused },
];

describe.skipIf(skipReason)(
  `the offline user's path (#26 done when)${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    afterAll(() => {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    });

    describe.each(cases)('registries $name', ({ registry }) => {
      let web: FakeWeb;
      let project: string;
      let home: string;
      let config: string;
      let env: Record<string, string>;

      beforeAll(async () => {
        web = await startCorpusWeb();
        const url = registry(await unreachableUpstreams());
        project = tempDir('pc-offline-project-');
        for (const [path, text] of Object.entries(NPM_PROJECT)) {
          mkdirSync(dirname(join(project, path)), { recursive: true });
          writeFileSync(join(project, path), text);
        }
        home = tempDir('pc-offline-home-');
        config = join(tempDir('pc-offline-config-'), 'pro-context.config.yaml');
        // JSON is YAML. No cache directory: the default one, under the empty home.
        writeFileSync(
          config,
          JSON.stringify({
            security: { allowPrivateNetwork: true },
            http: { retryDelaysMs: [10, 20] },
            registry: { enabled: false },
            libraries: [
              {
                // the intranet library: its docs on a loopback site, its versions asked of PyPI
                id: 'httpx',
                name: 'HTTPX',
                language: 'python',
                packages: { pypi: 'httpx' },
                versions: ['0.28.1', '0.27.2'],
                sources: { llmsTxt: { llmsTxtUrl: web.llmsTxtUrl('httpx') } },
              },
            ],
          }),
        );
        env = { HOME: home, PRO_CONTEXT_CONFIG: config, PRO_CONTEXT_PYPI_URL: url, PRO_CONTEXT_NPM_URL: url };
      });

      afterAll(async () => {
        await web?.close();
      });

      function cli(args: string[]): Promise<Run> {
        return new Promise((done) => {
          execFile(
            process.execPath,
            [cliPath, ...args],
            { cwd: project, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 90_000 },
            (error, stdout, stderr) =>
              done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
          );
        });
      }

      async function cliJson<T>(args: string[]): Promise<{ run: Run; value: T }> {
        const run = await cli([...args, '--json']);
        expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
        return { run, value: JSON.parse(run.stdout) as T };
      }

      it('the CLI: the intranet library and the installed packages answer with notes, not errors, not stale', async () => {
        const intranet = await cliJson<Docs>(['docs', 'httpx', 'timeouts']);
        expect(intranet.value.content.length).toBeGreaterThan(100);
        expect(intranet.value.content).toMatch(/timeout/i);
        // fetched just now from the intranet site: not stale because PyPI cannot be asked
        expect(intranet.value.stale).toBe(false);

        const hono = await cliJson<Docs>(['docs', 'hono', 'routing']);
        expect(hono.value.version).toBe('4.8.3');
        expect(hono.value.content).toContain('app.get(path, handler)');
        expect(hono.value.stale).toBe(false);

        const resolved = await cli(['resolve', 'tiny-internal-lib']);
        expect(resolved.code, resolved.stderr).toBe(0);
        expect(resolved.stdout).toMatch(/Version 1\.2\.0/);
        expect(resolved.stdout).toMatch(/npm registry could not be reached/);
        expect(resolved.stdout).toContain('tiny-internal-lib 1.2.0 is the version installed in this project');

        const resolvedIntranet = await cli(['resolve', 'httpx']);
        expect(resolvedIntranet.code, resolvedIntranet.stderr).toBe(0);
        expect(resolvedIntranet.stdout).toMatch(/PyPI could not be reached|registry could not be reached/);

        for (const run of [intranet.run, hono.run, resolved, resolvedIntranet]) {
          expect(run.stdout + run.stderr).not.toMatch(/URL_NOT_ALLOWED|STALE|REGISTRY_TIMEOUT|LIBRARY_NOT_FOUND/);
          // quiet: no raw JSON on stderr, at most one line per distinct problem
          expect(run.stderr).not.toMatch(/^\s*[{[]/m);
          const lines = run.stderr.split('\n').filter(Boolean);
          expect(new Set(lines).size).toBe(lines.length);
        }
      });

      it('the CLI: a version the known list lacks is VERSION_NOT_FOUND, one that is not a version INVALID_INPUT', async () => {
        const missing = await cli(['docs', 'httpx', 'timeouts', '-V', '99.0']);
        expect(missing.code).toBe(1);
        expect(missing.stderr).toMatch(/^error VERSION_NOT_FOUND: .*could not be refreshed/m);
        expect(missing.stderr).toContain('0.28.1, 0.27.2');
        const banana = await cli(['docs', 'httpx', 'timeouts', '-V', 'banana']);
        expect(banana.code).toBe(1);
        expect(banana.stderr).toMatch(/^error INVALID_INPUT: .*'banana' is not a version/m);
      });

      it('the CLI: a version hint that cannot be checked is a note; a library nobody knows says which registry could not be asked', async () => {
        // the README's `resolve "pydantic v2"`, offline: the hint cannot be checked, which is not a failure
        const hinted = await cli(['resolve', 'httpx v2']);
        expect(hinted.code, hinted.stderr).toBe(0);
        expect(hinted.stdout).toMatch(/'2' could not be checked/);
        // a name only a registry could know: the error says the registry could not be reached, not "timed out"
        const unknown = await cli(['resolve', 'no-such-lib-anywhere']);
        expect(unknown.code).toBe(1);
        expect(unknown.stderr).not.toMatch(/timed out|REGISTRY_TIMEOUT|URL_NOT_ALLOWED/);
        expect(unknown.stderr).toMatch(
          /^error LIBRARY_NOT_FOUND: No library matches 'no-such-lib-anywhere'\. It could not be looked up: PyPI \(.*\) could not be reached: /m,
        );
      });

      it('the stdio server in the same folder, same home: the same answers, with notes, not stale', async () => {
        const transport = new StdioClientTransport({
          command: process.execPath,
          args: [cliPath],
          cwd: project,
          env: { ...getDefaultEnvironment(), ...env },
          stderr: 'pipe',
        });
        const client = new Client({ name: 'e2e', version: '0.0.1' }, { capabilities: {} });
        await client.connect(transport);
        const call = async (name: string, args: Record<string, unknown>) =>
          (await client.callTool({ name, arguments: args }, CallToolResultSchema, {
            timeout: 60_000,
          })) as CallToolResult;
        try {
          // the server scans the project after it is ready: wait, bounded, for the installed packages
          const deadline = Date.now() + 20_000;
          for (;;) {
            const listed = (await call('list-libraries', {})).structuredContent as {
              libraries: { id: string; projectDetected: boolean }[];
            };
            if (listed.libraries.filter((l) => l.projectDetected).length >= 2 || Date.now() > deadline) break;
            await new Promise((r) => setTimeout(r, 100));
          }

          for (const [args, expected] of [
            [{ libraryId: 'httpx', topic: 'timeouts' }, /timeout/i],
            [{ libraryId: 'hono', topic: 'routing' }, /app\.get\(path, handler\)/],
            [{ libraryId: 'tiny-internal-lib', topic: 'frobnicate' }, /frobnicate/],
          ] as const) {
            const result = await call('get-docs', args);
            expect(result.isError, JSON.stringify(result.content).slice(0, 400)).toBeFalsy();
            const docs = result.structuredContent as unknown as Docs;
            expect(docs.stale, args.libraryId).toBe(false);
            expect(`${docs.content} ${(docs.notes ?? []).join(' ')}`).toMatch(expected);
            expect((result.content[0] as { text: string }).text).not.toContain('STALE');
          }

          for (const [query, expected] of [
            ['tiny-internal-lib', /npm registry could not be reached.*installed in this project/],
            ['httpx', /registry could not be reached/],
          ] as const) {
            const resolved = await call('resolve-library', { query });
            expect(resolved.isError, JSON.stringify(resolved.content).slice(0, 400)).toBeFalsy();
            expect((resolved.structuredContent as { notes: string[] }).notes.join(' ')).toMatch(expected);
          }

          const missing = errorOf(await call('get-docs', { libraryId: 'httpx', topic: 'x', version: '99.0' }));
          expect(missing.code).toBe('VERSION_NOT_FOUND');
        } finally {
          await client.close();
        }
      });
    });

    describe.each(cases)('Context7 as the fallback, registries $name', ({ registry }) => {
      const KEY = 'fake-offline-context7-key-5c2e91';
      let context7: FakeContext7;
      let env: Record<string, string>;
      let cwd: string;

      beforeAll(async () => {
        context7 = await startFakeContext7({ apiKey: KEY });
        const url = registry(await unreachableUpstreams());
        cwd = tempDir('pc-offline-c7-');
        const config = join(cwd, 'pro-context.config.yaml');
        writeFileSync(
          config,
          JSON.stringify({
            security: { allowPrivateNetwork: true },
            http: { retryDelaysMs: [10, 20] },
            registry: { enabled: false },
            plugins: ['context7', 'codex7'],
            project: { autoDetect: false },
          }),
        );
        env = {
          HOME: tempDir('pc-offline-home-'),
          PRO_CONTEXT_CONFIG: config,
          PRO_CONTEXT_PYPI_URL: url,
          PRO_CONTEXT_NPM_URL: url,
          PRO_CONTEXT_CONTEXT7_URL: context7.url,
          CONTEXT7_API_KEY: KEY,
        };
      });

      afterAll(async () => {
        await context7?.close();
      });

      it("codex7's resolve-library-id and the engine's resolve-library answer next.js from Context7, not URL_NOT_ALLOWED", async () => {
        const transport = new StdioClientTransport({
          command: process.execPath,
          args: [cliPath],
          cwd,
          env: { ...getDefaultEnvironment(), ...env },
          stderr: 'pipe',
        });
        const client = new Client({ name: 'e2e', version: '0.0.1' }, { capabilities: {} });
        await client.connect(transport);
        const call = async (name: string, args: Record<string, unknown>) =>
          (await client.callTool({ name, arguments: args }, CallToolResultSchema, {
            timeout: 60_000,
          })) as CallToolResult;
        const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
        try {
          const codex7 = await call('resolve-library-id', { libraryName: 'next.js' });
          expect(codex7.isError, text(codex7)).toBeFalsy();
          expect(text(codex7)).toContain('/vercel/next.js');
          const engine = await call('resolve-library', { query: 'next.js' });
          expect(engine.isError, text(engine)).toBeFalsy();
          expect(engine.structuredContent).toMatchObject({ sources: ['context7'] });
          expect(text(engine)).toContain('Found on Context7');
          const docs = await call('get-docs', { libraryId: 'vercel/next.js', topic: 'middleware' });
          expect(docs.isError, text(docs)).toBeFalsy();
          expect(text(docs)).toContain('Source: Context7 /vercel/next.js');
        } finally {
          await client.close();
        }
        expect(context7.count('/v2/context')).toBeGreaterThan(0);
      });
    });
  },
);

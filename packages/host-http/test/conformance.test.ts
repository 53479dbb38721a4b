import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { conformanceFixturesPlugin, createTestKernel } from '@pro-context/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpServerHandle, serveHttp } from '../src/index.js';

// the pinned devDependency (0.1.13: the last release that runs on Node 20), never a download at test time
const conformanceBin = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')),
  'dist',
  'index.js',
);
const expectedFailures = fileURLToPath(new URL('./conformance-expected-failures.yml', import.meta.url));

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO';
  errorMessage?: string;
}

/**
 * The official MCP conformance suite (server scenarios) against the real HTTP host, stateful, with the
 * conformance fixtures composed in. The suite speaks Streamable HTTP without credentials, so the host runs
 * with `auth: 'none'` on loopback; every other part (transport, sessions, Host checks) is the production one.
 */
describe('the MCP conformance suite against the HTTP host', () => {
  let handle: HttpServerHandle;
  let results: string;
  beforeAll(async () => {
    const kernel = await createTestKernel({ plugins: [conformanceFixturesPlugin] });
    handle = await serveHttp(kernel, { version: '0.0.0-conformance', port: 0, auth: 'none' });
    results = mkdtempSync(join(tmpdir(), 'pc-conformance-'));
  });
  afterAll(async () => {
    await handle?.close();
    rmSync(results, { recursive: true, force: true });
  });

  it('passes every scenario except the listed expected failures (and none of those passes)', async () => {
    const outcome = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [
          conformanceBin,
          'server',
          '--url',
          `${handle.url}/mcp`,
          '--expected-failures',
          expectedFailures,
          '-o',
          results,
        ],
        { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
        (error, stdout, stderr) =>
          resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
    const checks: (Check & { scenario: string })[] = readdirSync(results).flatMap((dir) => {
      const scenario = dir.replace(/^server-/, '').replace(/-\d{4}-.*$/, '');
      try {
        return (JSON.parse(readFileSync(join(results, dir, 'checks.json'), 'utf8')) as Check[]).map((c) => ({
          ...c,
          scenario,
        }));
      } catch {
        return [];
      }
    });
    const failed = checks.filter((c) => c.status === 'FAILURE');
    const summary = `${checks.length - failed.length} passed, ${failed.length} failed:\n${failed
      .map((c) => `  ${c.scenario} / ${c.id}: ${c.errorMessage ?? ''}`)
      .join('\n')}`;
    if (process.env.PRO_CONTEXT_CONFORMANCE_REPORT) process.stderr.write(`${summary}\n${outcome.stdout}\n`);
    expect(checks.length).toBeGreaterThan(20);
    expect(outcome.code, `${summary}\n${outcome.stdout}\n${outcome.stderr}`).toBe(0);
  }, 150_000);
});

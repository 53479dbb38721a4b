import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { type CorpusProject, cliPath, skipReason, useCorpusProject } from './helpers.js';

const run = promisify(execFile);

/** Runs the built CLI the way a person does in a terminal; never throws, returns what they would see. */
async function cli(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, [cliPath, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe.skipIf(skipReason)(`the pro-context CLI in a terminal${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  const corpus = useCorpusProject();
  let project: CorpusProject['project'];
  let env: Record<string, string>;

  beforeAll(() => {
    project = corpus.project;
    env = { HOME: project.dir };
  });

  it('answers docs and resolve like the tools: markdown by default, the structured result with --json', async () => {
    const docs = await cli(['-c', project.configFile, 'docs', 'pydantic', 'field validators', '-t', '1500'], env);
    expect(docs.code).toBe(0);
    expect(docs.stdout).toMatch(/validator/i);
    const json = await cli(['-c', project.configFile, '--json', 'resolve', 'pydantc'], env);
    expect(json.code).toBe(0);
    const resolved = JSON.parse(json.stdout) as { libraryId: string; toc: unknown[] };
    expect(resolved.libraryId).toBe('pydantic');
    expect(resolved.toc.length).toBeGreaterThan(10);
  });

  it('answers out-of-range arguments with the same coded error as the MCP tools, not a stack trace', async () => {
    for (const args of [
      ['docs', 'pydantic', 'x', '--max-tokens', '100'],
      ['search', 'fastapi', 'x', '-n', '0'],
      ['resolve', 'x', '-l', 'rust'],
    ]) {
      const result = await cli(['-c', project.configFile, ...args], env);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr).toMatch(/^error INVALID_INPUT: Invalid arguments for [a-z-]+: /m);
      expect(result.stderr).not.toMatch(/TypeError|at .*\.js:\d+/);
      expect(result.stdout).toBe('');
    }
  });

  it('reads --version after docs/search as the library version, and elsewhere as the program version', async () => {
    const docs = await cli(['-c', project.configFile, 'docs', 'pydantic', 'validators', '--version', '1.0.0'], env);
    expect(docs.code).toBe(1);
    expect(docs.stderr).toMatch(/error VERSION_NOT_FOUND: .*'1\.0\.0'/);
    expect(docs.stdout).toBe('');
    const program = await cli(['--version'], env);
    expect(program.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('says a malformed URL is invalid instead of an internal error', async () => {
    const result = await cli(['-c', project.configFile, 'read', 'not a url'], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/error INVALID_INPUT: 'not a url' is not a valid URL/);
  });

  it("refuses server.auth 'none' with server.transport http on a non-loopback address", async () => {
    const open = { ...env, PRO_CONTEXT_TRANSPORT: 'http', PRO_CONTEXT_HOST: '0.0.0.0' };
    const config = join(project.dir, 'open.config.yaml');
    await writeFile(config, JSON.stringify({ server: { auth: 'none' }, cache: { directory: project.cacheDir } }));
    const serve = await cli(['-c', config], open);
    expect(serve.code).toBe(1);
    expect(serve.stderr).toMatch(/error CONFIG_INVALID: server\.auth is 'none' but server\.host is 0\.0\.0\.0/);
    expect(serve.stdout).toBe('');
    const check = await cli(['-c', config, 'config', 'check'], open);
    expect(check.code).toBe(1);
    expect(check.stderr).toMatch(/CONFIG_INVALID/);
    const fine = await cli(['-c', project.configFile, 'config', 'check'], { ...env, PRO_CONTEXT_TRANSPORT: 'http' });
    expect(fine.code).toBe(0);
  });

  it('config check names the keys the environment set, and prints each warning once', async () => {
    const result = await cli(['-c', project.configFile, 'config', 'check'], {
      ...env,
      PRO_CONTEXT_CACHE_DIR: project.cacheDir,
      PRO_CONTEXT_GITHUB_TOKEN: 'ghp_not_a_real_token_0000000000000000',
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^configuration OK \(.*pro-context\.config\.yaml\)$/m);
    expect(result.stdout).toMatch(/cache\.directory from PRO_CONTEXT_CACHE_DIR/);
    expect(result.stdout).toMatch(/sources\.github\.token from PRO_CONTEXT_GITHUB_TOKEN/);
    expect(result.stdout).not.toContain('ghp_not_a_real_token');
    const warnings = result.stdout.split('\n').filter((l) => l.startsWith('warning: '));
    expect(warnings.length).toBeGreaterThan(0);
    expect(result.stderr).toBe('');
  });

  it("config check refuses the file's bad logging values as the server does (the terminal's defaults hid them)", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pc-cli-logging-'));
    try {
      const configFile = join(dir, 'pro-context.config.yaml');
      await writeFile(configFile, 'logging:\n  level: loud\n  format: xml\n', 'utf8');
      const quiet = { HOME: dir, PRO_CONTEXT_CACHE_DIR: join(dir, 'cache') };
      const serve = await cli(['-c', configFile], quiet);
      const check = await cli(['-c', configFile, 'config', 'check'], quiet);
      for (const result of [serve, check]) {
        expect(result.code).toBe(1);
        expect(result.stderr).toContain(`error CONFIG_INVALID: Invalid configuration in ${configFile}:`);
        expect(result.stderr).toMatch(/logging\.level \(line 2\): Invalid option/);
        expect(result.stderr).toMatch(/logging\.format \(line 3\): Invalid option/);
        expect(result.stdout).toBe('');
      }
      // a good file still checks quietly: the warnings on stdout, nothing on stderr
      await writeFile(configFile, 'logging:\n  level: debug\n', 'utf8');
      const fine = await cli(['-c', configFile, 'config', 'check'], quiet);
      expect(fine.code).toBe(0);
      expect(fine.stdout).toMatch(/^configuration OK/);
      expect(fine.stderr).toBe('');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('config check shows the deprecated library keys it moved, naming their new place', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pc-cli-deprecated-'));
    try {
      const configFile = join(dir, 'pro-context.config.yaml');
      await writeFile(
        configFile,
        'libraries:\n  - id: zod\n    name: Zod\n    llmsTxtUrl: https://zod.dev/llms.txt\n',
        'utf8',
      );
      const result = await cli(['-c', configFile, 'config', 'check'], {
        HOME: dir,
        PRO_CONTEXT_CACHE_DIR: join(dir, 'cache'),
      });
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(
        /^warning: libraries\.0\.llmsTxtUrl is deprecated: write it as libraries\.0\.sources\.llmsTxt\.llmsTxtUrl\.$/m,
      );
      expect(result.stderr).toBe('');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('config check --json gives the outcome as data: warnings when fine, each bad key with its line when not', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pc-cli-json-'));
    try {
      const configFile = join(dir, 'pro-context.config.yaml');
      const quiet = { HOME: dir, PRO_CONTEXT_CACHE_DIR: join(dir, 'cache'), PRO_CONTEXT_LOG_LEVEL: 'warn' };
      await writeFile(configFile, 'libraries:\n  - id: zod\n    name: Zod\n    llmsTxtUrl: https://zod.dev/llms.txt\n');
      const fine = await cli(['--json', '-c', configFile, 'config', 'check'], quiet);
      expect(fine.code).toBe(0);
      const ok = JSON.parse(fine.stdout) as { ok: boolean; file: string; environment: unknown[]; warnings: string[] };
      expect(ok.ok).toBe(true);
      expect(ok.file).toBe(configFile);
      expect(ok.environment).toContainEqual({ variable: 'PRO_CONTEXT_LOG_LEVEL', key: 'logging.level' });
      expect(ok.warnings.some((w) => w.startsWith('libraries.0.llmsTxtUrl is deprecated'))).toBe(true);

      await writeFile(configFile, 'loging:\n  level: debug\n');
      const bad = await cli(['--json', '-c', configFile, 'config', 'check'], quiet);
      expect(bad.code).toBe(1);
      const failed = JSON.parse(bad.stdout) as {
        ok: boolean;
        error: { code: string; details: { issues: { path: string; line?: number; message: string }[] } };
      };
      expect(failed.ok).toBe(false);
      expect(failed.error.code).toBe('CONFIG_INVALID');
      expect(failed.error.details.issues).toEqual([
        expect.objectContaining({
          path: 'loging',
          line: 1,
          message: expect.stringContaining("did you mean 'logging'?"),
        }),
      ]);
      expect(bad.stderr).toContain('error CONFIG_INVALID');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("config check names the line of a bad key in a library's sources settings", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pc-cli-sources-'));
    try {
      const configFile = join(dir, 'pro-context.config.yaml');
      await writeFile(
        configFile,
        'libraries:\n  - id: zod\n    name: Zod\n    sources:\n      llmsTxt:\n        llmsTxtURL: https://zod.dev/llms.txt\n',
        'utf8',
      );
      const result = await cli(['-c', configFile, 'config', 'check'], {
        HOME: dir,
        PRO_CONTEXT_CACHE_DIR: join(dir, 'cache'),
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`error CONFIG_INVALID: Invalid configuration in ${configFile}:`);
      expect(result.stderr).toMatch(/libraries\.0\.sources\.llmsTxt\.llmsTxtURL \(line 6\): Unrecognized key/);
      expect(result.stdout).toBe('');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('cache stats lists what is cached; cache clear removes one library, which the next call fetches again', async () => {
    const first = await cli(['-c', project.configFile, 'docs', 'httpx', 'timeouts', '-t', '1000'], env);
    expect(first.code).toBe(0);
    const before = await cli(['-c', project.configFile, '--json', 'cache', 'stats'], env);
    expect(before.code).toBe(0);
    const stats = JSON.parse(before.stdout) as { durableEntries: number; libraryVersions: string[] };
    expect(stats.libraryVersions.some((v) => v.startsWith('httpx@'))).toBe(true);

    // a name as a person types it; the library's every entry goes (TOC, manifest, blocks, snapshot, answers)
    const cleared = await cli(['-c', project.configFile, 'cache', 'clear', 'HTTPX'], env);
    expect(cleared.code).toBe(0);
    expect(cleared.stdout).toMatch(/^httpx: removed \d+ cache entries$/m);
    const after = JSON.parse((await cli(['-c', project.configFile, '--json', 'cache', 'stats'], env)).stdout) as {
      durableEntries: number;
      libraryVersions: string[];
    };
    expect(after.libraryVersions.some((v) => v.startsWith('httpx@'))).toBe(false);
    expect(after.libraryVersions.length).toBe(stats.libraryVersions.length - 1);
    expect(after.durableEntries).toBeLessThan(stats.durableEntries);
    expect((await cli(['-c', project.configFile, 'cache', 'clear', 'httpx'], env)).stdout).toBe(
      'httpx: nothing cached\n',
    );

    // fetched and indexed again on the next call
    const again = await cli(['-c', project.configFile, 'docs', 'httpx', 'timeouts', '-t', '1000'], env);
    expect(again.code).toBe(0);
    const fetched = (out: string) => /fetched (\S+Z)/.exec(out)?.[1];
    expect(fetched(again.stdout)).not.toBe(fetched(first.stdout)); // fetched anew: a later date
    expect(again.stdout.replace(/fetched \S+Z/, '')).toBe(first.stdout.replace(/fetched \S+Z/, ''));

    const neither = await cli(['-c', project.configFile, 'cache', 'clear'], env);
    expect(neither.code).toBe(1);
    expect(neither.stderr).toMatch(/^error INVALID_INPUT: Name the libraries to clear, or give --all\./m);
  });

  it('cache clear --all gives the space back to the disk, and cache stats says what the files take', async () => {
    expect((await cli(['-c', project.configFile, 'docs', 'fastapi', 'dependencies', '-t', '1000'], env)).code).toBe(0);
    type Stats = { durableEntries: number; durableBytes: number; fileBytes: number; freeBytes: number };
    const statsOf = async () =>
      JSON.parse((await cli(['-c', project.configFile, '--json', 'cache', 'stats'], env)).stdout) as Stats;
    const before = await statsOf();
    expect(before.fileBytes).toBeGreaterThan(2 ** 20);
    const text = (await cli(['-c', project.configFile, 'cache', 'stats'], env)).stdout;
    expect(text).toMatch(/^\d+ entries holding [\d.]+ MB; its files take [\d.]+ MB on disk/);

    const cleared = await cli(['-c', project.configFile, 'cache', 'clear', '--all'], env);
    expect(cleared.code).toBe(0);
    const line = /^cache files on disk: ([\d.]+) MB -> ([\d.]+) MB$/m.exec(cleared.stdout);
    expect(line).not.toBeNull();
    expect(Number(line?.[2])).toBeLessThan(Number(line?.[1]) / 2);
    const after = await statsOf();
    expect(after.durableEntries).toBe(0);
    expect(after.fileBytes).toBeLessThan(before.fileBytes / 2);
    expect(after.freeBytes).toBeLessThan(2 ** 20);
  });
});

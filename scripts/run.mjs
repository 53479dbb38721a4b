#!/usr/bin/env node
// The one entry point a newcomer needs. It works on a machine that has only Node and npm:
//   npm start -- <pro-context args>   set up, build (the CLI and @pro-context/embed), run the `pro-context` CLI
//   npm test                          set up, lint, typecheck, build, run every test; prints `N passed, N failed`
//   npm run demo [-- <args>]          the CLI against ../shared/corpora served on loopback
//   npm run eval | npm run bench      set up, build, run the retrieval eval or the benchmark
// "Set up" means: obtain the pinned pnpm with npm (corepack is not used: its signature check fails on
// Node 20 here), then `pnpm install --frozen-lockfile`. Every step is idempotent and fast the second time, and
// says on stderr what it does and how long it has taken.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const rootPkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const pnpmVersion = rootPkg.packageManager.replace(/^pnpm@/, '');
const toolsDir = join(root, '.tools');
const env = {
  ...process.env,
  PATH: [join(toolsDir, 'node_modules', '.bin'), join(root, 'node_modules', '.bin'), process.env.PATH].join(delimiter),
  TURBO_TELEMETRY_DISABLED: '1',
  TURBO_NO_UPDATE_NOTIFIER: '1',
  DO_NOT_TRACK: '1',
};

const startedAt = Date.now();
const elapsed = (since = startedAt) => {
  const s = Math.round((Date.now() - since) / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
};

function say(message) {
  process.stderr.write(`\n> ${message} [${elapsed()}]\n`);
}

// Set-up and build output goes to stderr, so that stdout carries only what the CLI prints (MCP messages
// when `npm start` runs the stdio server) and the test totals line.
function run(command, args, { allowFailure = false, quiet = false } = {}) {
  const result = spawnSync(command, args, {
    cwd: root,
    env,
    stdio: quiet ? 'pipe' : ['inherit', process.stderr, 'inherit'],
    encoding: 'utf8',
  });
  if (result.error) throw result.error;
  if (result.status !== 0 && !allowFailure) {
    if (quiet) process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
    process.stderr.write(`\n${command} ${args.join(' ')} failed with exit code ${result.status}\n`);
    process.exit(result.status ?? 1);
  }
  return result;
}

function pnpmWorks() {
  const r = spawnSync('pnpm', ['--version'], { cwd: root, env, encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() === pnpmVersion;
}

function setup() {
  if (!pnpmWorks()) {
    say(`installing pnpm ${pnpmVersion} into .tools/ with npm`);
    run('npm', ['install', '--prefix', toolsDir, '--no-audit', '--no-fund', '--loglevel=error', `pnpm@${pnpmVersion}`]);
    if (!pnpmWorks()) {
      process.stderr.write(
        `pnpm ${pnpmVersion} is still not runnable from .tools/; see the README's troubleshooting.\n`,
      );
      process.exit(1);
    }
  }
  say('pnpm install --frozen-lockfile');
  run('pnpm', ['install', '--frozen-lockfile', '--reporter=append-only']);
}

// What `npm start` builds: the CLI and everything the README tells a user to import (the embed package).
const START_FILTERS = ['pro-context...', '@pro-context/embed...'];

/**
 * turbo builds the packages (dependencies first); each package it builds is announced as it starts, with a
 * count: `[5/28] @pro-context/engine: building` (the ones turbo's cache has are counted, not listed). The
 * tasks' own output is shown only when it says something (errors, warnings), not pnpm's script echo.
 */
async function build(filters = []) {
  const filterArgs = filters.flatMap((f) => ['--filter', f]);
  say(
    `building ${filters.length ? filters.join(' ') : 'every package'} (turbo; only what changed since the last build)`,
  );
  const since = Date.now();
  const child = spawn('pnpm', ['exec', 'turbo', 'run', 'build', '--output-logs=new-only', ...filterArgs], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let total = '?';
  let count = 0;
  let cached = 0;
  const onLine = (line) => {
    const inScope = /Running build in (\d+) packages/.exec(line);
    if (inScope) {
      total = inScope[1];
      return;
    }
    const started = /^(\S+):build: cache (hit|miss)/.exec(line);
    if (started) {
      count += 1;
      if (started[2] === 'hit') cached += 1;
      else process.stderr.write(`  [${count}/${total}] ${started[1]}: building (${elapsed(since)})\n`);
      return;
    }
    const task = /^(\S+):build: (.*)$/.exec(line);
    if (task) {
      const text = task[2].trim();
      // pnpm's echo of the script it runs (`> pkg@0.1.0 build /path`, `> tsc -p …`) and blank lines
      if (text === '' || text.startsWith('> ')) return;
      process.stderr.write(`  ${task[1]}: ${text}\n`);
      return;
    }
    // turbo's own lines: its summary (Tasks, Cached, Time) and errors
    if (/^\s*(•|Remote caching|Tasks:|Cached:|Time:)/.test(line) || line.trim() === '') return;
    process.stderr.write(`${line}\n`);
  };
  createInterface({ input: child.stdout }).on('line', onLine);
  createInterface({ input: child.stderr }).on('line', onLine);
  const code = await new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  if (code !== 0) {
    process.stderr.write(`\nturbo run build failed with exit code ${code}\n`);
    process.exit(code ?? 1);
  }
  process.stderr.write(`  ${count - cached} built, ${cached} up to date, in ${elapsed(since)}\n`);
}

async function test() {
  const failures = [];
  say('lint (biome check)');
  if (run('pnpm', ['exec', 'biome', 'check', '.'], { allowFailure: true }).status !== 0) failures.push('lint');
  say('typecheck');
  if (
    run('pnpm', ['exec', 'turbo', 'run', 'typecheck', '--output-logs=errors-only'], { allowFailure: true }).status !== 0
  )
    failures.push('typecheck');
  await build();
  say('tests (vitest)');
  const resultsFile = join(root, 'node_modules', '.vitest-results.json');
  rmSync(resultsFile, { force: true });
  const vitest = run(
    'pnpm',
    ['exec', 'vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${resultsFile}`],
    { allowFailure: true },
  );
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  if (existsSync(resultsFile)) {
    const r = JSON.parse(readFileSync(resultsFile, 'utf8'));
    passed = r.numPassedTests;
    failed = r.numFailedTests;
    skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
    // a test file that fails to load has no tests to count: count it as one failure
    for (const file of r.testResults ?? []) {
      if (file.status === 'failed' && (file.assertionResults ?? []).every((a) => a.status !== 'failed')) failed += 1;
    }
  } else {
    failed += 1;
  }
  if (vitest.status !== 0 && failed === 0) failed += 1;
  if (failures.length > 0) process.stderr.write(`\nfailed checks: ${failures.join(', ')}\n`);
  failed += failures.length;
  process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
  process.exit(failed > 0 ? 1 : 0);
}

const [command = 'test', ...rest] = process.argv.slice(2);
switch (command) {
  case 'setup':
    setup();
    await build();
    break;
  case 'start': {
    setup();
    await build(START_FILTERS);
    const cli = join(root, 'packages', 'pro-context', 'dist', 'bin', 'pro-context.js');
    const r = spawnSync(process.execPath, [cli, ...rest], { cwd: process.env.INIT_CWD ?? root, env, stdio: 'inherit' });
    process.exit(r.status ?? 1);
    break;
  }
  case 'test':
    setup();
    await test();
    break;
  case 'demo': {
    setup();
    await build([...START_FILTERS, '@pro-context/testing']);
    const r = spawnSync(process.execPath, [join(root, 'scripts', 'demo.mjs'), ...rest], {
      cwd: root,
      env,
      stdio: 'inherit',
    });
    process.exit(r.status ?? 1);
    break;
  }
  case 'eval':
  case 'bench': {
    setup();
    await build();
    const r = spawnSync('pnpm', ['--filter', '@pro-context/bench', 'run', command, '--', ...rest], {
      cwd: root,
      env,
      stdio: 'inherit',
    });
    process.exit(r.status ?? 1);
    break;
  }
  default:
    process.stderr.write(`unknown command '${command}'. Use: setup | start | test | demo | eval | bench\n`);
    process.exit(2);
}

/**
 * Start-up side by side (issue #27, deliverable 8): the whole `pro-context` process with its client against a bare
 * MCP SDK server with one tool (`src/startup/bare-server.ts`), each started by the same small client
 * (`src/startup/client.ts`: spawn, initialize, tools/list, close, exit), timed from outside as a whole process.
 * Two folders: an empty one, and a project whose `node_modules` holds `packages` packages (package.json files, a
 * lockfile), generated in a temp dir. Runs alternate A B A B after one warm-up of each, so a drift of the
 * machine's speed falls on both; the ratio is taken pair by pair.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FakeRegistry, startFakeNpm, startFakePypi } from '@pro-context/testing';
import { median } from './setup.js';

const here = dirname(fileURLToPath(import.meta.url));
const clientScript = join(here, '..', 'startup', 'client.js');
const bareServer = join(here, '..', 'startup', 'bare-server.js');

/** One whole-process run: the client's clock from outside, and what the client measured inside. */
export interface StartupRun {
  /** From just before spawning the client to its exit (it spawned the server, listed the tools, closed). */
  wallMs: number;
  /** What the client measured, from just before it spawned the server. */
  initializeMs: number;
  toolsListMs: number;
  /** The server's CPU time (user + system) when tools/list was answered (/proc; 10 ms ticks). */
  serverCpuMs?: number;
  tools: number;
}

/** One folder's runs of both servers. */
export interface StartupScenario {
  folder: 'empty' | 'project';
  /** Packages in the project's node_modules (0: the empty folder). */
  packages: number;
  proContext: StartupRun[];
  bare: StartupRun[];
  /** pro-context's wall time ÷ the bare server's, pair by pair (run i of each). */
  ratios: number[];
}

export interface StartupReport {
  cli: string;
  runs: number;
  scenarios: StartupScenario[];
}

/** Options of {@link measureStartup}. */
export interface StartupOptions {
  /** The built `pro-context` command (dist/bin/pro-context.js), e.g. another checkout's to compare. */
  cli: string;
  /** Counted runs of each server in each folder (after one warm-up each). */
  runs: number;
  /** Packages in the project folder's node_modules. */
  packages: number;
  log: (line: string) => void;
}

/**
 * A project as `npm install` leaves it: package.json naming `count` dependencies, a package-lock.json (v3) and
 * `node_modules/<name>/` with each package's package.json, README, code and types, one in five scoped. The
 * names are made up, so no curated library matches them (nothing is fetched for them but a registry lookup,
 * which the section's loopback registry answers with 404).
 */
export function writeProject(dir: string, count: number): void {
  const names = Array.from({ length: count }, (_, i) =>
    i % 5 === 4 ? `@benchorg/util-${String(i).padStart(3, '0')}` : `bench-pkg-${String(i).padStart(3, '0')}`,
  );
  const version = (i: number) => `${1 + (i % 7)}.${i % 13}.${i % 4}`;
  const dependencies = Object.fromEntries(names.map((name, i) => [name, `^${version(i)}`]));
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'bench-app', version: '1.0.0', private: true, dependencies }, null, 2)}\n`,
  );
  const lockPackages: Record<string, unknown> = {
    '': { name: 'bench-app', version: '1.0.0', dependencies },
  };
  names.forEach((name, i) => {
    const pkgDir = join(dir, 'node_modules', name);
    mkdirSync(pkgDir, { recursive: true });
    writeFileSync(
      join(pkgDir, 'package.json'),
      `${JSON.stringify(
        {
          name,
          version: version(i),
          description: `Benchmark package ${i}`,
          main: 'index.js',
          types: 'index.d.ts',
          license: 'MIT',
          repository: { type: 'git', url: `git+https://example.invalid/${name.replace('@', '')}.git` },
        },
        null,
        2,
      )}\n`,
    );
    writeFileSync(
      join(pkgDir, 'README.md'),
      `# ${name}\n\nA package of the start-up benchmark.\n\n## Usage\n\n\`\`\`js\nimport x from '${name}';\n\`\`\`\n`,
    );
    writeFileSync(join(pkgDir, 'index.js'), `export default function x() { return ${i}; }\n`);
    writeFileSync(join(pkgDir, 'index.d.ts'), `/** Returns ${i}. */\nexport default function x(): number;\n`);
    lockPackages[`node_modules/${name}`] = {
      version: version(i),
      resolved: `https://registry.example.invalid/${name}/-/${name.split('/').pop()}-${version(i)}.tgz`,
      integrity: `sha512-${Buffer.from(name).toString('base64')}`,
      license: 'MIT',
    };
  });
  writeFileSync(
    join(dir, 'package-lock.json'),
    `${JSON.stringify({ name: 'bench-app', version: '1.0.0', lockfileVersion: 3, requires: true, packages: lockPackages }, null, 2)}\n`,
  );
}

/** Runs the client once against `server` (a command line) in `cwd`; resolves with the whole process's time. */
function runClient(server: string[], cwd: string, env: Record<string, string>): Promise<StartupRun> {
  return new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn(process.execPath, [clientScript, '--', ...server], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString('utf8');
    });
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString('utf8');
    });
    child.on('error', fail);
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      if (code !== 0) return fail(new Error(`the start-up client exited with ${code}: ${err.trim().slice(-500)}`));
      try {
        const inside = JSON.parse(out.trim().split('\n').at(-1) ?? '') as Omit<StartupRun, 'wallMs'>;
        done({ wallMs, ...inside });
      } catch {
        fail(new Error(`the start-up client printed no result: ${out.slice(-300)} ${err.slice(-300)}`));
      }
    });
  });
}

/**
 * Measures start-up in the empty folder and in the project folder: one warm-up of each server, then `runs`
 * runs of each in turn (pro-context, bare, pro-context, bare…). pro-context runs with its defaults (no config
 * file, a fresh home whose cache the warm-up creates) and the registries on loopback (an npm and a PyPI
 * registry that know no package, answering 404 as the real ones do for an unknown name; reached with
 * `--allow-private-network`), so nothing leaves the machine.
 */
export async function measureStartup(options: StartupOptions): Promise<StartupReport> {
  const root = mkdtempSync(join(tmpdir(), 'pro-context-startup-'));
  const registries: FakeRegistry[] = [await startFakeNpm([]), await startFakePypi([])];
  const [npm, pypi] = registries as [FakeRegistry, FakeRegistry];
  try {
    const scenarios: StartupScenario[] = [];
    for (const folder of ['empty', 'project'] as const) {
      const dir = join(root, folder);
      const home = join(root, `${folder}-home`);
      mkdirSync(dir, { recursive: true });
      mkdirSync(home, { recursive: true });
      const packages = folder === 'project' ? options.packages : 0;
      if (packages > 0) writeProject(dir, packages);
      const env: Record<string, string> = {
        PATH: process.env.PATH ?? '',
        HOME: home,
        PRO_CONTEXT_NPM_URL: npm.url,
        PRO_CONTEXT_PYPI_URL: pypi.url,
      };
      // the registries are loopback fakes, which the SSRF guard refuses unless private addresses are allowed: refused,
      // every lookup of the project's packages would log warnings a real registry's 404 does not cause
      const proContext = [process.execPath, options.cli, '--allow-private-network'];
      const bare = [process.execPath, bareServer];
      options.log(
        `  start-up, ${folder} folder${packages ? ` (${packages} packages)` : ''}: ${options.runs} runs each…`,
      );
      await runClient(proContext, dir, env);
      await runClient(bare, dir, env);
      const scenario: StartupScenario = { folder, packages, proContext: [], bare: [], ratios: [] };
      for (let i = 0; i < options.runs; i += 1) {
        const a = await runClient(proContext, dir, env);
        const b = await runClient(bare, dir, env);
        scenario.proContext.push(a);
        scenario.bare.push(b);
        scenario.ratios.push(a.wallMs / b.wallMs);
      }
      scenarios.push(scenario);
    }
    return { cli: options.cli, runs: options.runs, scenarios };
  } finally {
    await Promise.all(registries.map((r) => r.close()));
    rmSync(root, { recursive: true, force: true });
  }
}

/** Medians of a scenario, for the table and the targets. */
export function startupMedians(s: StartupScenario) {
  const med = (runs: StartupRun[], pick: (r: StartupRun) => number | undefined) =>
    median(runs.map(pick).filter((x): x is number => x !== undefined));
  return {
    proContextWallMs: med(s.proContext, (r) => r.wallMs),
    bareWallMs: med(s.bare, (r) => r.wallMs),
    ratio: median(s.ratios),
    ratioMin: Math.min(...s.ratios),
    ratioMax: Math.max(...s.ratios),
    proContextToolsListMs: med(s.proContext, (r) => r.toolsListMs),
    bareToolsListMs: med(s.bare, (r) => r.toolsListMs),
    proContextCpuMs: med(s.proContext, (r) => r.serverCpuMs),
    bareCpuMs: med(s.bare, (r) => r.serverCpuMs),
  };
}

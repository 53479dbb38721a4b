// A package registry on loopback (verdaccio) that knows nothing but what this machine already has: the
// workspace's packages, published to it, and the third-party packages they depend on, written into its storage
// from the pnpm store. It has no uplink: a package it was not given is a 404, so nothing leaves the machine.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createGzip } from 'node:zlib';
import { pack } from 'tar-stream';
import { parse as parseYaml } from 'yaml';

/** The repository root (this file is packages/release-test/src/registry.ts). */
export const repoRoot = join(import.meta.dirname, '..', '..', '..');

interface Lockfile {
  importers: Record<
    string,
    { dependencies?: Record<string, { version: string }>; devDependencies?: Record<string, { version: string }> }
  >;
  packages: Record<string, { resolution: { integrity?: string } }>;
  snapshots: Record<string, { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> }>;
}

export interface WorkspacePackage {
  readonly name: string;
  readonly version: string;
  readonly dir: string;
  readonly private: boolean;
}

/** The workspace's packages (packages/*, plugins/*, examples/*, bench). */
export function workspacePackages(): WorkspacePackage[] {
  const lock = readLockfile();
  return Object.keys(lock.importers)
    .filter((dir) => dir !== '.')
    .map((dir) => {
      const pkg = JSON.parse(readFileSync(join(repoRoot, dir, 'package.json'), 'utf8'));
      return { name: pkg.name, version: pkg.version, dir, private: pkg.private === true };
    });
}

function readLockfile(): Lockfile {
  return parseYaml(readFileSync(join(repoRoot, 'pnpm-lock.yaml'), 'utf8')) as Lockfile;
}

/** `name@1.2.3(peer@4)` → `name@1.2.3`. */
function withoutPeers(key: string): string {
  const cut = key.indexOf('(');
  return cut === -1 ? key : key.slice(0, cut);
}

function splitKey(key: string): { name: string; version: string } {
  const at = key.lastIndexOf('@');
  return { name: key.slice(0, at), version: key.slice(at + 1) };
}

/**
 * The third-party packages (`name@version`) the public workspace packages need at run time: the production
 * dependencies of every public importer, and theirs, as the lockfile resolved them.
 */
export function thirdPartyClosure(
  /** third-party packages a user's snippet runs besides ours (e.g. `mcp-remote`), from release-test's devDependencies */
  extraRoots: readonly string[] = [],
): { key: string; optional: boolean }[] {
  const lock = readLockfile();
  const publicDirs = workspacePackages()
    .filter((p) => !p.private)
    .map((p) => p.dir);
  // key → whether only optional edges reach it (a platform's binary package: absent from other platforms' stores)
  const seen = new Map<string, boolean>();
  const queue: [string, boolean][] = [];
  for (const dir of publicDirs) {
    for (const [name, { version }] of Object.entries(lock.importers[dir]?.dependencies ?? {})) {
      if (!version.startsWith('link:')) queue.push([`${name}@${version}`, false]);
    }
  }
  const own = lock.importers['packages/release-test']?.devDependencies ?? {};
  for (const name of extraRoots) {
    const version = own[name]?.version;
    if (!version) throw new Error(`${name} is not a devDependency of @pro-context/release-test`);
    queue.push([`${name}@${version}`, false]);
  }
  while (queue.length > 0) {
    const [key, optional] = queue.pop() as [string, boolean];
    const before = seen.get(key);
    if (before !== undefined && (before === optional || !before)) continue;
    seen.set(key, optional);
    const snapshot = lock.snapshots[key] ?? {};
    for (const [name, version] of Object.entries(snapshot.dependencies ?? {}))
      queue.push([`${name}@${version}`, optional]);
    for (const [name, version] of Object.entries(snapshot.optionalDependencies ?? {}))
      queue.push([`${name}@${version}`, true]);
  }
  const closure = new Map<string, boolean>();
  for (const [key, optional] of seen) {
    const bare = withoutPeers(key);
    closure.set(bare, (closure.get(bare) ?? true) && optional);
  }
  return [...closure].map(([key, optional]) => ({ key, optional })).sort((a, b) => a.key.localeCompare(b.key));
}

interface StoreIndex {
  files: Record<string, { integrity: string; mode: number; size: number }>;
}

function hexOf(integrity: string): string {
  return Buffer.from(integrity.replace(/^sha512-/, ''), 'base64').toString('hex');
}

/** The pnpm store's record of a package's files (pnpm 10: `index/ab/cdef…-name@version.json`). */
function storeIndex(storeDir: string, key: string, integrity: string): StoreIndex | undefined {
  const hex = hexOf(integrity);
  const { name, version } = splitKey(key);
  const file = join(
    storeDir,
    'index',
    hex.slice(0, 2),
    `${hex.slice(2, 64)}-${name.replace('/', '+')}@${version}.json`,
  );
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as StoreIndex) : undefined;
}

function storeFile(storeDir: string, integrity: string, mode: number): string {
  const hex = hexOf(integrity);
  return join(storeDir, 'files', hex.slice(0, 2), `${hex.slice(2)}${mode & 0o111 ? '-exec' : ''}`);
}

/** A gzipped tar of `entries` (path → content and mode). */
export async function tgz(entries: Iterable<[string, { body: Buffer; mode: number }]>): Promise<Buffer> {
  const tar = pack();
  const gzip = createGzip();
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    gzip.on('data', (c: Buffer) => chunks.push(c));
    gzip.on('end', () => resolve(Buffer.concat(chunks)));
    gzip.on('error', reject);
  });
  tar.pipe(gzip);
  for (const [name, { body, mode }] of entries) {
    await new Promise<void>((resolve, reject) =>
      tar.entry({ name, mode: mode & 0o777, mtime: new Date(499162500000) }, body, (e) => (e ? reject(e) : resolve())),
    );
  }
  tar.finalize();
  return done;
}

/** A package's tarball rebuilt from the store: the files its published tarball had, under `package/`. */
function tarballFromStore(storeDir: string, index: StoreIndex): Promise<Buffer> {
  const files = Object.entries(index.files).sort(([a], [b]) => a.localeCompare(b));
  return tgz(
    files.map(([path, file]) => [
      `package/${path}`,
      { body: readFileSync(storeFile(storeDir, file.integrity, file.mode)), mode: file.mode },
    ]),
  );
}

/** The pnpm store this checkout installed from (`pnpm store path`). */
export async function pnpmStorePath(): Promise<string> {
  const { stdout } = await run('pnpm', ['store', 'path'], { cwd: repoRoot });
  return stdout.trim();
}

/**
 * Writes the third-party closure into verdaccio's storage (its local-storage layout: `{name}/package.json`, the
 * packument, beside `{name}/{file}.tgz`). Returns how many packages and bytes; throws naming what the store lacks.
 */
export async function seedThirdParty(
  storageDir: string,
  storeDir: string,
  extraRoots: readonly string[] = [],
): Promise<{ packages: number; bytes: number }> {
  const lock = readLockfile();
  const byName = new Map<string, { version: string; manifest: Record<string, unknown>; tgz: Buffer }[]>();
  const missing: string[] = [];
  let bytes = 0;
  for (const { key, optional } of thirdPartyClosure(extraRoots)) {
    const integrity = lock.packages[key]?.resolution.integrity;
    const index = integrity ? storeIndex(storeDir, key, integrity) : undefined;
    if (!integrity || !index?.files['package.json']) {
      // another platform's optional binary is not in this platform's store; npm skips it as pnpm did
      if (!optional) missing.push(key);
      continue;
    }
    const { name, version } = splitKey(key);
    const pj = index.files['package.json'];
    const manifest = JSON.parse(readFileSync(storeFile(storeDir, pj.integrity, pj.mode), 'utf8'));
    const tgz = await tarballFromStore(storeDir, index);
    bytes += tgz.length;
    byName.set(name, [...(byName.get(name) ?? []), { version, manifest, tgz }]);
  }
  if (missing.length > 0) {
    throw new Error(`the pnpm store (${storeDir}) lacks ${missing.join(', ')}: run pnpm install --frozen-lockfile`);
  }
  for (const [name, versions] of byName) {
    const dir = join(storageDir, name);
    mkdirSync(dir, { recursive: true });
    const base = name.split('/').pop();
    const packument = {
      name,
      versions: {} as Record<string, unknown>,
      'dist-tags': {
        latest: versions
          .map((v) => v.version)
          .sort(compareVersions)
          .at(-1),
      },
      time: {} as Record<string, string>,
      _attachments: {},
      _uplinks: {},
      _distfiles: {},
      _rev: '1-0000000000000000',
    };
    for (const { version, manifest, tgz } of versions) {
      const file = `${base}-${version}.tgz`;
      writeFileSync(join(dir, file), tgz);
      packument.versions[version] = {
        ...manifest,
        _id: `${name}@${version}`,
        dist: {
          tarball: `http://127.0.0.1/${name}/-/${file}`,
          shasum: createHash('sha1').update(tgz).digest('hex'),
          integrity: `sha512-${createHash('sha512').update(tgz).digest('base64')}`,
        },
      };
      packument.time[version] = new Date(499162500000).toISOString();
    }
    writeFileSync(join(dir, 'package.json'), JSON.stringify(packument));
  }
  return { packages: byName.size, bytes };
}

function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((x) => (/^\d+$/.test(x) ? Number(x) : x));
  const pb = b.split(/[.-]/).map((x) => (/^\d+$/.test(x) ? Number(x) : x));
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i];
    const y = pb[i];
    if (x === y) continue;
    if (x === undefined) return 1; // 1.0.0 > 1.0.0-rc
    if (y === undefined) return -1;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x).localeCompare(String(y));
  }
  return 0;
}

export interface LoopbackRegistry {
  /** `http://127.0.0.1:PORT/` */
  readonly url: string;
  /** the userconfig (`.npmrc`) that points npm at it, with a made-up token for publishing */
  readonly npmrc: string;
  close(): Promise<void>;
}

/** Starts verdaccio on 127.0.0.1 (a free port) over `dir/storage`, with no uplink. */
export async function startRegistry(dir: string): Promise<LoopbackRegistry> {
  const storage = join(dir, 'storage');
  mkdirSync(storage, { recursive: true });
  const htpasswd = join(dir, 'htpasswd');
  writeFileSync(htpasswd, '');
  const config = {
    self_path: dir,
    storage,
    uplinks: {},
    packages: {
      '@*/*': { access: '$all', publish: '$all', unpublish: '$all' },
      '**': { access: '$all', publish: '$all', unpublish: '$all' },
    },
    auth: { htpasswd: { file: htpasswd, max_users: -1 } },
    web: { enable: false },
    security: { api: { legacy: true } },
    max_body_size: '200mb',
    log: { type: 'stdout', format: 'json', level: 'fatal' },
    server: { keepAliveTimeout: 5 },
  };
  // verdaccio's programmatic entry: an express app for a parsed config
  const { runServer } = (await import('verdaccio')) as unknown as {
    runServer(
      config: unknown,
    ): Promise<{ listen(port: number, host: string, cb: () => void): import('node:http').Server }>;
  };
  const app = await runServer(config);
  const server = await new Promise<import('node:http').Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/`;
  const npmrc = join(dir, 'npmrc');
  writeFileSync(npmrc, `registry=${url}\n//127.0.0.1:${port}/:_authToken=fake-token-for-loopback\n`);
  return {
    url,
    npmrc,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface RunResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** Runs a command asynchronously (the registry answers on this process's event loop meanwhile). */
export function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; input?: string } = { cwd: repoRoot },
): Promise<RunResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 300_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
    child.stdin.end(options.input ?? '');
  });
}

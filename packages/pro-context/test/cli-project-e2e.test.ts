import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type CallToolResult, CallToolResultSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { cliPath } from './helpers.js';

/**
 * The CLI in a real project folder, as a user runs it there (#26.5-#26.8, #30.4-#30.5): the built CLI spawned in
 * the folder, and the stdio server spawned in the same folder with the SDK's client, compared. No package registry
 * is reachable: the curated registry, PyPI and npm are off (or, where a test says so, pointed at loopback).
 */

const skip = existsSync(cliPath) ? undefined : 'the CLI is not built';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A temp folder with these files (path → content). */
function folder(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'pc-cli-project-'));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** package-lock.json + node_modules: hono 4.8.3 with its docs, and a private package nobody publishes. */
const NPM_PROJECT = {
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

/** uv.lock pinning fastapi 0.110.0. */
const UV_PROJECT = {
  'pyproject.toml': '[project]\nname = "svc"\nversion = "0.1.0"\ndependencies = ["fastapi>=0.100"]\n',
  'uv.lock': `version = 1
requires-python = ">=3.11"

[[package]]
name = "svc"
version = "0.1.0"
source = { editable = "." }

[[package]]
name = "fastapi"
version = "0.110.0"
source = { registry = "https://example.invalid/simple" }
`,
};

/** Registries off: nothing leaves the machine. */
const OFFLINE = {
  registry: { enabled: false },
  registries: { pypi: { enabled: false }, npm: { enabled: false } },
};

/** A config file (JSON is YAML) in its own folder, with its own cache. */
function configFile(settings: Record<string, unknown> = {}): string {
  const dir = folder();
  const file = join(dir, 'pro-context.config.yaml');
  writeFileSync(file, JSON.stringify({ cache: { directory: join(dir, 'cache') }, ...OFFLINE, ...settings }));
  return file;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI in `cwd` with an empty home. */
function cli(
  cwd: string,
  args: string[],
  options: { config?: string; env?: Record<string, string>; uid?: number; gid?: number } = {},
): Promise<Run> {
  const home = options.env?.HOME ?? folder();
  return new Promise((done) => {
    execFile(
      process.execPath,
      [cliPath, ...args],
      {
        cwd,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: home,
          ...(options.config ? { PRO_CONTEXT_CONFIG: options.config } : {}),
          ...options.env,
        },
        timeout: 60_000,
        ...(options.uid !== undefined ? { uid: options.uid, gid: options.gid ?? options.uid } : {}),
      },
      (error, stdout, stderr) =>
        done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

async function json<T>(run: Promise<Run>): Promise<T> {
  const r = await run;
  if (r.code !== 0) throw new Error(`exit ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

interface Listed {
  id: string;
  defaultVersion: string;
  projectDetected: boolean;
  detectedFrom?: string;
}

/** The stdio server spawned in `cwd` (empty home), the SDK's client connected, with `roots` when given. */
async function stdioServer(cwd: string, config: string, roots?: { current: string[] }, home = folder()) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliPath],
    cwd,
    env: { ...getDefaultEnvironment(), HOME: home, PRO_CONTEXT_CONFIG: config },
    stderr: 'pipe',
  });
  const stderr: string[] = [];
  transport.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
  const client = new Client(
    { name: 'e2e', version: '0.0.1' },
    { capabilities: roots ? { roots: { listChanged: true } } : {} },
  );
  if (roots)
    client.setRequestHandler(ListRootsRequestSchema, async () => ({
      roots: roots.current.map((dir) => ({ uri: pathToFileURL(dir).href, name: dir })),
    }));
  await client.connect(transport);
  return {
    client,
    stderr,
    call: async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args }, CallToolResultSchema, { timeout: 60_000 })) as CallToolResult,
    close: () => client.close(),
  };
}
type Connection = Awaited<ReturnType<typeof stdioServer>>;

/** list-libraries over MCP, polled until `ready` holds (the server scans after it is ready). */
async function listedWhen(server: Connection, ready: (l: Listed[]) => boolean): Promise<Listed[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const result = await server.call('list-libraries', {});
    const libraries = (result.structuredContent as { libraries: Listed[] }).libraries;
    if (ready(libraries) || Date.now() > deadline) return libraries;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const detected = (libraries: Listed[]) =>
  libraries.filter((l) => l.projectDetected).map((l) => `${l.id}@${l.defaultVersion} (${l.detectedFrom})`);

describe.skipIf(skip)('the CLI sees the project (#26.5)', () => {
  it('an npm project: libraries, resolve and docs answer from the installed packages, as the MCP server does', async () => {
    const dir = folder(NPM_PROJECT);
    const config = configFile();
    const libraries = await json<{ libraries: Listed[] }>(cli(dir, ['libraries', '--json'], { config }));
    expect(detected(libraries.libraries)).toEqual([
      'hono@4.8.3 (package-lock.json)',
      'tiny-internal-lib@1.2.0 (package-lock.json)',
    ]);

    const resolved = await cli(dir, ['resolve', 'tiny-internal-lib'], { config });
    expect(resolved.stderr).toBe('');
    expect(resolved.code).toBe(0);
    expect(resolved.stdout).toMatch(/Version 1\.2\.0/);
    expect(resolved.stdout).toContain('tiny-internal-lib 1.2.0 is the version installed in this project');

    const docs = await json<{ version: string; source: string; content: string }>(
      cli(dir, ['docs', 'hono', 'routing', '--json'], { config }),
    );
    expect(docs.version).toBe('4.8.3');
    expect(docs.content).toContain('app.get(path, handler)');

    // the MCP server in the same folder gives the same
    const server = await stdioServer(dir, config);
    try {
      const overMcp = await listedWhen(server, (l) => detected(l).length >= 2);
      expect(detected(overMcp)).toEqual(detected(libraries.libraries));
      const mcpDocs = (await server.call('get-docs', { libraryId: 'hono', topic: 'routing' })).structuredContent as {
        version: string;
        source: string;
      };
      expect(mcpDocs).toMatchObject({ version: docs.version, source: docs.source });
    } finally {
      await server.close();
    }
  });

  it('a uv project: fastapi at the version uv.lock pins', async () => {
    const dir = folder(UV_PROJECT);
    const libraries = await json<{ libraries: Listed[] }>(cli(dir, ['libraries', '--json'], { config: configFile() }));
    expect(detected(libraries.libraries)).toEqual(['fastapi@0.110.0 (uv.lock)']);
  });
});

describe.skipIf(skip)('the project root (#26.6)', () => {
  it('walks up from a subfolder to the nearest project marker', async () => {
    const dir = folder({ ...NPM_PROJECT, 'src/routes/.keep': '' });
    const libraries = await json<{ libraries: Listed[] }>(
      cli(join(dir, 'src', 'routes'), ['libraries', '--json'], { config: configFile() }),
    );
    expect(detected(libraries.libraries)).toEqual([
      'hono@4.8.3 (package-lock.json)',
      'tiny-internal-lib@1.2.0 (package-lock.json)',
    ]);
  });

  it('never scans the home folder itself: started below a home holding a lockfile, no project', async () => {
    const home = folder({ ...UV_PROJECT, 'Desktop/.keep': '' });
    const run = await cli(join(home, 'Desktop'), ['libraries', '--json'], {
      config: configFile(),
      env: { HOME: home },
    });
    expect(run.code).toBe(0);
    expect(detected((JSON.parse(run.stdout) as { libraries: Listed[] }).libraries)).toEqual([]);
  });

  it('never scans the home folder itself: started in a home holding a stray lockfile, no project', async () => {
    // what a desktop client does when it starts the server in ~ (#26: an unrelated lockfile listed first)
    const home = folder({ ...UV_PROJECT, ...NPM_PROJECT });
    const config = configFile();
    const run = await cli(home, ['libraries', '--json'], { config, env: { HOME: home } });
    expect(run.code, run.stderr).toBe(0);
    expect(detected((JSON.parse(run.stdout) as { libraries: Listed[] }).libraries)).toEqual([]);
    // the MCP server started there (the CLI alone did not scan before #26; the server scanned its folder)
    const server = await stdioServer(home, config, undefined, home);
    try {
      const deadline = Date.now() + 5_000;
      let found: string[] = [];
      while (found.length === 0 && Date.now() < deadline) {
        const result = await server.call('list-libraries', {});
        found = detected((result.structuredContent as { libraries: Listed[] }).libraries);
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(found).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('never scans the file system root: started in /, no project', async () => {
    const run = await cli('/', ['libraries', '--json'], { config: configFile() });
    expect(run.code).toBe(0);
    expect(detected((JSON.parse(run.stdout) as { libraries: Listed[] }).libraries)).toEqual([]);
  });

  it('is named by --project and PRO_CONTEXT_PROJECT, wherever the command runs', async () => {
    const project = folder(UV_PROJECT);
    const elsewhere = folder();
    const config = configFile();
    const byFlag = await json<{ libraries: Listed[] }>(
      cli(elsewhere, ['libraries', '--json', '--project', project], { config }),
    );
    expect(detected(byFlag.libraries)).toEqual(['fastapi@0.110.0 (uv.lock)']);
    const byEnv = await json<{ libraries: Listed[] }>(
      cli(elsewhere, ['libraries', '--json'], { config, env: { PRO_CONTEXT_PROJECT: project } }),
    );
    expect(detected(byEnv.libraries)).toEqual(['fastapi@0.110.0 (uv.lock)']);
  });

  it("over MCP follows the client's roots, and roots/list_changed scans again", async () => {
    const uv = folder(UV_PROJECT);
    const npm = folder(NPM_PROJECT);
    const roots = { current: [uv] };
    // started in a folder that is no project (as desktop clients start servers)
    const server = await stdioServer(folder(), configFile(), roots);
    try {
      const first = await listedWhen(server, (l) => detected(l).includes('fastapi@0.110.0 (uv.lock)'));
      expect(detected(first)).toEqual(['fastapi@0.110.0 (uv.lock)']);
      roots.current = [npm];
      await server.client.sendRootsListChanged();
      // the re-scan's libraries arrive, and the last project's are no longer "in this project"
      const second = await listedWhen(
        server,
        (l) => detected(l).some((d) => d.startsWith('hono@')) && !detected(l).some((d) => d.startsWith('fastapi@')),
      );
      // (in any order: a project library whose docs were cached meanwhile is listed first)
      expect(detected(second).sort()).toEqual([
        'hono@4.8.3 (package-lock.json)',
        'tiny-internal-lib@1.2.0 (package-lock.json)',
      ]);
    } finally {
      await server.close();
    }
  });
});

describe.skipIf(skip)('a cache that cannot be written (#26.7)', () => {
  it('a cache directory that cannot be created (under a regular file) is served from memory with one warning', async () => {
    const dir = folder(NPM_PROJECT);
    const blocker = join(folder(), 'a-file');
    writeFileSync(blocker, 'not a folder');
    const config = configFile({ cache: { directory: join(blocker, 'cache') } });
    const run = await cli(dir, ['docs', 'hono', 'routing'], { config });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('app.get(path, handler)');
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^warning: The cache .* cannot be written .*served from memory/);
    expect(run.stderr).not.toContain('CONFIG_INVALID');

    // the MCP server starts and answers too
    const server = await stdioServer(dir, config);
    try {
      await listedWhen(server, (l) => detected(l).length >= 2);
      const docs = await server.call('get-docs', { libraryId: 'hono', topic: 'routing' });
      expect(docs.isError).toBeFalsy();
      expect(server.stderr.join('')).not.toContain('CONFIG_INVALID');
    } finally {
      await server.close();
    }
  });

  it.skipIf(process.getuid?.() !== 0)(
    "another user's cache, read-only to this one, is read from (a copy in memory), not failed",
    async () => {
      const dir = folder(NPM_PROJECT);
      chmodSync(dir, 0o755);
      const config = configFile();
      const cacheDir = join(dirname(config), 'cache');
      // filled by its owner (root here)
      expect((await cli(dir, ['docs', 'hono', 'routing'], { config })).code).toBe(0);
      for (const path of [dirname(config), config]) chmodSync(path, 0o755);
      chmodSync(cacheDir, 0o755);
      const home = folder();
      chownSync(home, 65534, 65534);
      const run = await cli(dir, ['cache', 'stats'], { config, uid: 65534, env: { HOME: home } });
      expect(run.stderr).not.toContain('readonly database');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('hono@4.8.3');
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(/^warning: The cache .* cannot be written/);
    },
  );
});

describe.skipIf(skip)('quiet by default (#26.8)', () => {
  let registry: Server;
  let requests = 0;
  let origin = '';
  afterAll(async () => {
    await new Promise((done) => registry?.close(done));
  });

  it('one human line per distinct problem, no JSON; --verbose says more; cache clear asks no registry', async () => {
    // a registry on loopback that fails every request (counted)
    registry = createServer((_req, res) => {
      requests += 1;
      res.writeHead(503).end('down');
    });
    await new Promise<void>((done) => registry.listen(0, '127.0.0.1', done));
    origin = `http://127.0.0.1:${(registry.address() as AddressInfo).port}`;
    const config = configFile({
      security: { allowPrivateNetwork: true },
      http: { retryDelaysMs: [10] },
      registry: { enabled: false },
      registries: { pypi: { url: origin }, npm: { url: origin } },
    });
    const dir = folder();
    const run = await cli(dir, ['resolve', 'nosuchlib-xyz'], { config });
    expect(run.code).toBe(1);
    const lines = run.stderr.trim().split('\n');
    expect(lines.some((l) => l.includes('{'))).toBe(false);
    expect(new Set(lines).size).toBe(lines.length);
    expect(lines.filter((l) => l.startsWith('warning:')).length).toBeLessThanOrEqual(2);
    expect(run.stderr).toMatch(/error LIBRARY_NOT_FOUND/);

    const verbose = await cli(dir, ['resolve', 'nosuchlib-xyz', '--verbose'], { config });
    expect(verbose.stderr.split('\n').length).toBeGreaterThan(lines.length);

    requests = 0;
    const clear = await cli(dir, ['cache', 'clear', 'nosuchlib-xyz'], { config });
    expect(clear.code).toBe(0);
    expect(clear.stdout).toContain('nosuchlib-xyz: nothing cached');
    expect(requests).toBe(0);
    // nor do the commands that read what is known or cached, in a project whose packages nobody described
    const project = folder(NPM_PROJECT);
    for (const args of [['libraries'], ['cache', 'stats']]) {
      const run = await cli(project, args, { config });
      expect(run.code).toBe(0);
      expect(run.stderr).toBe('');
    }
    expect(requests).toBe(0);
  });
});

describe.skipIf(skip)('CLI manners (#30.5)', () => {
  it('an unknown command suggests the nearest one, without the whole help', async () => {
    const run = await cli(folder(), ['serach', 'hono', 'routing']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/unknown command 'serach'/);
    expect(run.stderr).toMatch(/Did you mean search\?/);
    expect(run.stderr).not.toMatch(/Commands:/);
  });

  it('-v in a subcommand is refused with the library-version flag; --help says which is which', async () => {
    const run = await cli(folder(), ['docs', 'hono', 'routing', '-v', '4.8.3'], { config: configFile() });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/-V <version>/);
    const help = await cli(folder(), ['--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toMatch(
      /-v, --version print pro-context's own version \(a library's version is -V/,
    );
    const docsHelp = await cli(folder(), ['docs', '--help']);
    expect(docsHelp.stdout.replace(/\s+/g, ' ')).toMatch(/-V, --lib-version <version> the library's version/);
    // before a command, -v is still pro-context's version
    const version = await cli(folder(), ['-v']);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe.skipIf(skip)('a lean list-libraries (#30.4)', () => {
  it('answers within ~2,000 tokens: the project first, then a count and how to page or filter', async () => {
    const dir = folder(NPM_PROJECT);
    // the curated registry on (its list is local data): hundreds of libraries
    const server = await stdioServer(dir, configFile({ registry: { enabled: true } }));
    try {
      const libraries = await listedWhen(server, (l) => detected(l).length >= 2);
      expect(detected(libraries).slice(0, 2)).toEqual([
        'hono@4.8.3 (package-lock.json)',
        'tiny-internal-lib@1.2.0 (package-lock.json)',
      ]);
      const first = await server.call('list-libraries', {});
      // the whole answer as the agent gets it: text and structured content
      expect(JSON.stringify(first).length / 4).toBeLessThanOrEqual(2000);
      const page = first.structuredContent as { libraries: Listed[]; total: number; nextCursor?: string };
      expect(page.total).toBeGreaterThan(100);
      expect(page.libraries.length).toBeLessThan(page.total);
      expect(page.nextCursor).toBeTruthy();
      const text = (first.content[0] as { text: string }).text;
      expect(text).toMatch(new RegExp(`of ${page.total}`));
      expect(text).toContain(`cursor "${page.nextCursor}"`);
      expect(text).toMatch(/query/);

      const second = (await server.call('list-libraries', { cursor: page.nextCursor })).structuredContent as {
        libraries: Listed[];
      };
      const ids = new Set(page.libraries.map((l) => l.id));
      expect(second.libraries.length).toBeGreaterThan(0);
      expect(second.libraries.some((l) => ids.has(l.id))).toBe(false);

      const http = (await server.call('list-libraries', { query: 'http client', language: 'python' }))
        .structuredContent as { libraries: Listed[]; total: number; nextCursor?: string };
      expect(http.libraries.map((l) => l.id)).toContain('httpx');
      expect(http.total).toBe(http.libraries.length);
      expect(http.nextCursor).toBeUndefined();

      const bad = await server.call('list-libraries', { cursor: 'nonsense' });
      expect(bad.isError).toBe(true);
      expect(JSON.stringify(bad.content)).toContain('INVALID_INPUT');

      // errors point to resolve-library with a query, not to an unfiltered listing
      const missing = await server.call('get-docs', { libraryId: 'no-such-library-anywhere', topic: 'x' });
      expect(missing.isError).toBe(true);
      expect(JSON.stringify(missing.content)).toMatch(/resolve-library/);
      expect(JSON.stringify(missing.content)).not.toMatch(/list-libraries to see/);

      // the five tools' listing (12,824 characters before)
      const tools = await server.client.listTools();
      expect(JSON.stringify(tools).length).toBeLessThan(10_500);
    } finally {
      await server.close();
    }
  });
});

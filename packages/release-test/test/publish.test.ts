// The publish path, end to end: changesets publishes the workspace to a registry on loopback, and a user with
// Node and npm only runs `npx -y --allow-scripts=better-sqlite3 pro-context` in an empty directory with an
// empty home. Slow (it installs ~200 packages and compiles better-sqlite3): it runs in CI (CI=true) or when
// PRO_CONTEXT_RELEASE_TEST=1, and is skipped otherwise.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { type LoopbackSite, startLoopbackSite } from '@pro-context/testing';
import { freePort } from '@pro-context/testing/fake-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareInstall, readDockerfile, teamServerDir } from '../src/dockerfile.js';
import { httpServer, readmeSnippets, stdioServer } from '../src/readme.js';
import {
  type LoopbackRegistry,
  pnpmStorePath,
  repoRoot,
  run,
  seedThirdParty,
  startRegistry,
  workspacePackages,
} from '../src/registry.js';
import { startHttpServer } from '../src/servers.js';
import { npxArgs, sqliteBindingMode, startPrebuiltHost, userEnv } from '../src/user.js';

const enabled = process.env.CI === 'true' || process.env.PRO_CONTEXT_RELEASE_TEST === '1';
const built = existsSync(join(repoRoot, 'packages', 'pro-context', 'dist', 'bin', 'pro-context.js'));
const skipReason = !enabled
  ? 'set PRO_CONTEXT_RELEASE_TEST=1 (CI sets CI=true)'
  : !built
    ? 'the workspace is not built (npm test builds first)'
    : undefined;

/** A documentation site on loopback with an llms.txt and two pages. */
async function startDocsSite(): Promise<LoopbackSite> {
  const pages: Record<string, string> = {
    '/guide/widgets.md':
      '# Widgets\n\nCreate a widget with `acme.widget(name, size)`. A widget is frozen once built; call `thaw()` to edit it.\n',
    '/guide/install.md': '# Install\n\nRun `pip install acme`. Acme needs Python 3.10 or later.\n',
  };
  let origin = '';
  const site = await startLoopbackSite((path, res) => {
    if (path === '/llms.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(
        `# Acme\n\n> Acme builds widgets.\n\n## Docs\n\n- [Widgets](${origin}/guide/widgets.md): widgets\n- [Install](${origin}/guide/install.md): install\n`,
      );
    } else if (pages[path]) {
      res.writeHead(200, { 'content-type': 'text/markdown' });
      res.end(pages[path]);
    } else {
      res.writeHead(404).end('not found');
    }
  });
  origin = site.origin;
  return site;
}

describe.skipIf(skipReason)(`published packages run with npx${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  let work: string;
  let registry: LoopbackRegistry;
  let site: LoopbackSite;
  let prebuilt: LoopbackSite | undefined;
  let project: string;
  let env: NodeJS.ProcessEnv;
  const timings: Record<string, number> = {};

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'pc-release-'));
    registry = await startRegistry(join(work, 'registry'));
    let t = Date.now();
    // mcp-remote: Claude Desktop's bridge to the team server in the README
    const seeded = await seedThirdParty(join(work, 'registry', 'storage'), await pnpmStorePath(), ['mcp-remote']);
    timings.seedMs = Date.now() - t;
    timings.thirdPartyPackages = seeded.packages;
    t = Date.now();
    // exactly the release step (`pnpm release` = build + `changeset publish`), against the loopback registry
    const published = await run('pnpm', ['exec', 'changeset', 'publish', '--no-git-tag'], {
      cwd: repoRoot,
      env: { ...process.env, npm_config_registry: registry.url, npm_config_userconfig: registry.npmrc },
      timeoutMs: 600_000,
    });
    timings.publishMs = Date.now() - t;
    if (published.code !== 0) throw new Error(`changeset publish failed:\n${published.stdout}\n${published.stderr}`);
    site = await startDocsSite();
    project = join(work, 'project');
    const home = join(work, 'home');
    mkdirSync(project);
    mkdirSync(home);
    if (sqliteBindingMode() === 'prebuilt') prebuilt = await startPrebuiltHost();
    env = userEnv({ home, registryUrl: registry.url, prebuiltHost: prebuilt?.origin });
    // what a user writes to add a library of their own: here one on loopback
    writeFileSync(
      join(project, 'pro-context.config.yaml'),
      [
        'libraries:',
        '  - id: acme',
        '    name: Acme',
        '    language: python',
        `    docsUrl: ${site.origin}`,
        'registry: { enabled: false }',
        'registries: { pypi: { enabled: false }, npm: { enabled: false } }',
        'security: { allowPrivateNetwork: true }',
        '',
      ].join('\n'),
    );
  }, 900_000);

  afterAll(async () => {
    process.stderr.write(`release test (better-sqlite3: ${sqliteBindingMode()}) timings: ${JSON.stringify(timings)}\n`);
    await site?.close();
    await prebuilt?.close();
    await registry?.close();
    // two npm caches and installs, the registry's storage: thousands of files
    if (work) rmSync(work, { recursive: true, force: true });
  }, 300_000);

  it('publishes every public workspace package at its version', async () => {
    for (const pkg of workspacePackages().filter((p) => !p.private)) {
      const r = await fetch(`${registry.url}${pkg.name.replace('/', '%2f')}`);
      expect(r.status, pkg.name).toBe(200);
      const packument = (await r.json()) as { versions: Record<string, { dependencies?: Record<string, string> }> };
      const manifest = packument.versions[pkg.version];
      expect(manifest, `${pkg.name}@${pkg.version}`).toBeDefined();
      // workspace:* became real versions
      expect(JSON.stringify(manifest?.dependencies ?? {})).not.toContain('workspace:');
    }
  });

  it('`npx -y --allow-scripts=better-sqlite3 pro-context --help` from an empty directory and home', async () => {
    const r = await run('npx', [...npxArgs, '--help'], { cwd: project, env, timeoutMs: 600_000 });
    timings.firstAnswerMs = r.ms;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Usage: pro-context/);
    // the binding came the way a user's does: downloaded by better-sqlite3's install script (or compiled)
    if (prebuilt) expect(prebuilt.hits.filter((p) => p.endsWith('.tar.gz'))).toHaveLength(1);
  }, 620_000);

  it('a project install refuses --allow-scripts on npm 11 (EALLOWSCRIPTS), as the README says', async () => {
    const npmVersion = (await run('npm', ['--version'], { cwd: project, env })).stdout.trim();
    if (Number(npmVersion.split('.')[0]) < 11) return; // npm 10 has no allow-scripts policy: nothing to refuse
    const dir = join(work, 'own-project');
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), '{"name":"own-project","private":true}');
    const r = await run('npm', ['install', '--allow-scripts=better-sqlite3', 'pro-context'], {
      cwd: dir,
      env,
      timeoutMs: 120_000,
    });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('EALLOWSCRIPTS');
  }, 150_000);

  it('serves MCP over stdio through npx: list-libraries and get-docs from a loopback docs site', async () => {
    const started = Date.now();
    const [command, ...args] = ['npx', ...npxArgs];
    const transport = new StdioClientTransport({
      command: command as string,
      args,
      cwd: project,
      env: env as Record<string, string>,
      stderr: 'pipe',
    });
    const stderr: string[] = [];
    transport.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
    const client = new Client({ name: 'release-test', version: '1' });
    try {
      await client.connect(transport);
      timings.stdioInitializeMs = Date.now() - started;
      const list = await client.callTool({ name: 'list-libraries', arguments: {} }, CallToolResultSchema, {
        timeout: 60_000,
      });
      expect(list.isError, JSON.stringify(list.content)).toBeFalsy();
      expect(JSON.stringify(list.structuredContent)).toContain('"acme"');
      const docs = await client.callTool(
        { name: 'get-docs', arguments: { libraryId: 'acme', topic: 'thaw a frozen widget' } },
        CallToolResultSchema,
        { timeout: 60_000 },
      );
      expect(docs.isError, JSON.stringify(docs.content)).toBeFalsy();
      expect((docs.structuredContent as { content: string }).content).toContain('thaw()');
      expect(site.hits).toContain('/llms.txt');
    } catch (error) {
      throw new Error(`${error instanceof Error ? error.message : String(error)}\nserver stderr:\n${stderr.join('')}`);
    } finally {
      await client.close();
    }
  }, 120_000);

  it.each(
    readmeSnippets()
      .filter((s) => s.transport === 'stdio')
      .map((s) => [s.agents.join(', '), s]),
  )(
    "the README's stdio set-up for %s, run as written, answers initialize",
    async (_, snippet) => {
      const server = stdioServer(snippet);
      const transport = new StdioClientTransport({
        command: server.command,
        args: server.args,
        cwd: project,
        env: { ...(env as Record<string, string>), ...server.env },
        stderr: 'pipe',
      });
      const client = new Client({ name: 'readme', version: '1' });
      await client.connect(transport);
      expect(client.getServerVersion()?.name).toBe('pro-context');
      await client.close();
    },
    120_000,
  );

  it('serves the team server: a key from `pro-context-admin`, `pro-context serve --http`, an agent with the key', async () => {
    const port = await freePort();
    const serverEnv = { ...env, PRO_CONTEXT_PORT: String(port) };
    const created = await run(
      'npx',
      [
        ...npxArgs.slice(0, -1),
        '-p',
        'pro-context',
        'pro-context-admin',
        'keys',
        'create',
        '--name',
        'alice',
        '--per-minute',
        '600',
        '--burst',
        '100',
      ],
      {
        cwd: project,
        env: serverEnv,
        timeoutMs: 120_000,
      },
    );
    expect(created.code, created.stderr).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(/^pc_/);
    const server = await startHttpServer('npx', [...npxArgs, 'serve', '--http'], { cwd: project, env: serverEnv });
    try {
      const url = new URL(`http://127.0.0.1:${port}/mcp`);
      const anonymous = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(anonymous.status).toBe(401);
      const client = new Client({ name: 'agent', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(url, { requestInit: { headers: { Authorization: `Bearer ${key}` } } }),
      );
      const docs = await client.callTool(
        { name: 'get-docs', arguments: { libraryId: 'acme', topic: 'install python version' } },
        CallToolResultSchema,
        { timeout: 60_000 },
      );
      expect((docs.structuredContent as { content: string }).content).toContain('Python 3.10');
      await client.close();

      // the README's HTTP snippet that starts a command (Claude Desktop's mcp-remote bridge), run as written with
      // the team server's URL on loopback and the key in its env
      for (const snippet of readmeSnippets().filter((s) => s.transport === 'http')) {
        const bridge = httpServer(snippet).bridge;
        if (!bridge) continue;
        const bridgeEnv = Object.fromEntries(
          Object.entries(bridge.env).map(([name, value]) => [name, value.replace(/pc_\w+/, key)]),
        );
        const transport = new StdioClientTransport({
          command: bridge.command,
          args: bridge.args.map((a) => (a === 'https://docs.internal.example.com/mcp' ? url.href : a)),
          cwd: project,
          env: { ...(env as Record<string, string>), ...bridgeEnv },
          stderr: 'pipe',
        });
        const bridged = new Client({ name: 'claude-desktop', version: '1' });
        await bridged.connect(transport);
        const { tools } = await bridged.listTools();
        expect(tools.map((t) => t.name)).toContain('get-docs');
        await bridged.close();
        timings.bridged = (timings.bridged ?? 0) + 1;
      }
      expect(timings.bridged).toBe(1);
    } finally {
      server.stop();
    }
  }, 180_000);

  it("the team server image's install step, run as written, installs the published packages and serves /health", async () => {
    const build = readDockerfile()[0];
    if (!build) throw new Error('no build stage');
    const workdir = join(work, 'image');
    mkdirSync(workdir);
    const install = prepareInstall(build, workdir);
    // the build args as `docker build --build-arg NPM_CONFIG_REGISTRY=…` gives them; defaults for the others
    const buildArgs = Object.fromEntries(
      Object.entries({ ...install.args, NPM_CONFIG_REGISTRY: registry.url }).filter(([, v]) => v !== undefined),
    ) as Record<string, string>;
    const t = Date.now();
    const r = await run('sh', ['-c', install.command], {
      cwd: workdir,
      env: { ...env, npm_config_registry: undefined, ...buildArgs },
      timeoutMs: 600_000,
    });
    timings.imageInstallMs = Date.now() - t;
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    const cli = join(workdir, 'node_modules', 'pro-context', 'dist', 'bin', 'pro-context.js');
    expect(existsSync(cli)).toBe(true);
    // the image's configuration, with the port, bind address and cache directory of this machine
    const port = await freePort();
    const server = await startHttpServer(process.execPath, [cli, 'serve', '--http'], {
      cwd: workdir,
      env: {
        PATH: process.env.PATH,
        HOME: join(work, 'home'),
        PRO_CONTEXT_CONFIG: join(teamServerDir, 'pro-context.config.yaml'),
        PRO_CONTEXT_HOST: '127.0.0.1',
        PRO_CONTEXT_PORT: String(port),
        PRO_CONTEXT_CACHE_DIR: join(work, 'image-cache'),
        NODE_ENV: 'production',
      },
    });
    try {
      const health = await fetch(`http://127.0.0.1:${port}/health`);
      expect(health.status).toBe(200);
      expect(await health.text()).not.toMatch(/pc_/);
    } finally {
      server.stop();
    }
  }, 660_000);
});

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { corpusSites, type FakeWeb, startFakeWeb } from '@pro-context/testing/fake-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, corpusRoot, offlineRegistries, skipReason } from './helpers.js';

type Connection = Awaited<ReturnType<typeof connectStdio>>;
interface Listed {
  id: string;
  defaultVersion: string;
  projectDetected: boolean;
  detectedFrom?: string;
}

/** A folder with these files (path → content). */
function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'pc-detect-e2e-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const UV_PROJECT = {
  'pyproject.toml': '[project]\nname = "app"\nversion = "0.1.0"\ndependencies = ["pydantic>=2.9"]\n',
  'uv.lock': `version = 1
requires-python = ">=3.12"

[[package]]
name = "app"
version = "0.1.0"
source = { editable = "." }

[[package]]
name = "pydantic"
version = "2.10.6"
source = { registry = "https://example.invalid/simple" }

[[package]]
name = "pydantic-core"
version = "2.27.2"
source = { registry = "https://example.invalid/simple" }
`,
};

const PNPM_WORKSPACE = {
  'package.json': JSON.stringify({ name: 'root', private: true }),
  'pnpm-workspace.yaml': 'packages:\n  - apps/*\n',
  'apps/web/package.json': JSON.stringify({ name: 'web', dependencies: { zod: '^3.25.0' } }),
  'pnpm-lock.yaml': `lockfileVersion: '9.0'
importers:
  .: {}
  apps/web:
    dependencies:
      zod:
        specifier: ^3.25.0
        version: 3.25.76
packages:
  zod@3.25.76:
    resolution: {integrity: sha512-x}
`,
};

/**
 * Documentation per version: `{origin}/{library}/{version}/llms.txt` on a loopback front that reads it from the
 * fake web (whose site names allow no dots). Pydantic's corpus is served as 2.10.6 only (its "latest" does not
 * exist, so only the installed version can answer); Zod's corpus has the v4 docs as "latest" and the v3 docs
 * as 3.25.76.
 */
async function versionedWeb(): Promise<{ web: FakeWeb; origin: string; close(): Promise<void> }> {
  const names: Record<string, string> = { pydantic: 'pydantic-2-10-6', zod: 'zod-latest', 'zod-v3': 'zod-3-25-76' };
  const sites = corpusSites(corpusRoot as string)
    .filter((s) => names[s.name])
    .map((s) => ({ ...s, name: names[s.name] as string }));
  const web = await startFakeWeb({ sites });
  const front = createServer((req, res) => {
    const m = /^\/(pydantic|zod)\/([^/]+)\/llms\.txt$/.exec(req.url ?? '');
    const site = m ? `${m[1]}-${(m[2] ?? '').replace(/\./g, '-')}` : undefined;
    if (!site || !Object.values(names).includes(site)) {
      res.writeHead(404).end('not found');
      return;
    }
    fetch(web.llmsTxtUrl(site)).then(
      async (r) => res.writeHead(r.status, { 'content-type': 'text/markdown' }).end(await r.text()),
      () => res.writeHead(502).end(),
    );
  });
  await new Promise<void>((done) => front.listen(0, '127.0.0.1', done));
  const { port } = front.address() as AddressInfo;
  return {
    web,
    origin: `http://127.0.0.1:${port}/`,
    close: async () => {
      await new Promise((done) => front.close(done));
      await web.close();
    },
  };
}

function config(origin: string, dir: string, project: Record<string, unknown>): string {
  const file = join(dir, 'pro-context.config.yaml');
  const settings = {
    security: { allowPrivateNetwork: true },
    http: { retryDelaysMs: [10, 20], timeoutMs: 10000 },
    cache: { directory: join(dir, 'cache') },
    // the two corpus libraries only, on loopback: no curated registry, no package registry asked
    ...offlineRegistries,
    project,
    libraries: [
      { id: 'pydantic', name: 'Pydantic', language: 'python', llmsTxtUrl: `${origin}pydantic/{version}/llms.txt` },
      { id: 'zod', name: 'Zod', language: 'javascript', llmsTxtUrl: `${origin}zod/{version}/llms.txt` },
    ],
  };
  writeFileSync(file, JSON.stringify(settings, null, 2));
  return file;
}

async function listed(server: Connection): Promise<Listed[]> {
  const result = await server.call('list-libraries', {});
  return (result.structuredContent as { libraries: Listed[] }).libraries;
}

/** list-libraries, polled until `ready` holds (detection runs after the server is ready, in the background). */
async function listedWhen(server: Connection, ready: (l: Listed[]) => boolean): Promise<Listed[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const libraries = await listed(server);
    if (ready(libraries) || Date.now() > deadline) return libraries;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(skipReason)(`project detection over stdio${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  let web: Awaited<ReturnType<typeof versionedWeb>>;
  const dirs: string[] = [];
  const servers: Connection[] = [];
  const start = async (files: Record<string, string>, project: Record<string, unknown> = {}) => {
    const dir = folder(files);
    dirs.push(dir);
    const server = await connectStdio(config(web.origin, dir, { workingDirectory: dir, ...project }));
    servers.push(server);
    return server;
  };

  beforeAll(async () => {
    web = await versionedWeb();
  });
  afterAll(async () => {
    for (const server of servers) await server.close();
    await web?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('a uv project: pydantic at its uv.lock version, listed first, pre-resolved, served by get-docs', async () => {
    const server = await start(UV_PROJECT);
    let listChanged = 0;
    server.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      listChanged += 1;
    });
    const libraries = await listedWhen(server, (l) => l.some((x) => x.projectDetected));
    expect(libraries[0]).toMatchObject({
      id: 'pydantic',
      projectDetected: true,
      detectedFrom: 'uv.lock',
      defaultVersion: '2.10.6',
    });
    // a transitive package of the lockfile is not a dependency the project names
    expect(libraries.map((l) => l.id)).toEqual(['pydantic', 'zod']);
    expect(libraries[1]).toMatchObject({ id: 'zod', projectDetected: false });

    // pre-resolved in the background: its TOC is a resource, announced by list_changed
    const deadline = Date.now() + 20_000;
    let uris: string[] = [];
    while (Date.now() < deadline) {
      uris = (await server.client.listResources()).resources.map((r) => r.uri);
      if (uris.includes('library://pydantic/toc')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(uris).toContain('library://pydantic/toc');
    expect(listChanged).toBeGreaterThan(0);

    const docs = await server.call('get-docs', { libraryId: 'pydantic', topic: 'field validators' });
    expect(docs.isError).toBeFalsy();
    const answer = docs.structuredContent as { version: string; source: string };
    expect(answer.version).toBe('2.10.6');
    expect(answer.source).toContain('/pydantic-2-10-6/');

    const resolved = await server.call('resolve-library', { query: 'pydantic' });
    const r = resolved.structuredContent as { defaultVersion: string; notes: string[] };
    expect(r.defaultVersion).toBe('2.10.6');
    expect(r.notes.join(' ')).toMatch(/2\.10\.6 is the version installed in this project \(uv\.lock\)/);

    const resource = await server.client.readResource({ uri: 'pro-context://libraries' });
    const text = (resource.contents[0] as { text: string }).text;
    expect(JSON.parse(text)).toEqual({
      libraries: [{ id: 'pydantic', name: 'Pydantic', version: '2.10.6', detectedFrom: 'uv.lock' }],
      detectedFrom: ['uv.lock'],
    });
  });

  it('a pnpm workspace: zod at its pnpm-lock.yaml version; an explicit version still wins', async () => {
    const server = await start(PNPM_WORKSPACE);
    const libraries = await listedWhen(server, (l) => l.some((x) => x.projectDetected));
    expect(libraries[0]).toMatchObject({
      id: 'zod',
      projectDetected: true,
      detectedFrom: 'pnpm-lock.yaml',
      defaultVersion: '3.25.76',
    });
    const installed = await server.call('get-docs', { libraryId: 'zod', topic: 'refine' });
    expect(installed.isError).toBeFalsy();
    expect(installed.structuredContent).toMatchObject({ version: '3.25.76' });
    expect((installed.structuredContent as { source: string }).source).toContain('/zod-3-25-76/');

    const latest = await server.call('get-docs', { libraryId: 'zod', topic: 'refine', version: 'latest' });
    expect(latest.isError).toBeFalsy();
    expect((latest.structuredContent as { source: string }).source).toContain('/zod-latest/');
  });

  it('project.autoDetect: false detects nothing', async () => {
    const server = await start(PNPM_WORKSPACE, { autoDetect: false });
    // the same project detected within a second above; give it three
    await new Promise((r) => setTimeout(r, 3000));
    const libraries = await listed(server);
    expect(libraries.map((l) => [l.id, l.projectDetected])).toEqual([
      ['pydantic', false],
      ['zod', false],
    ]);
  });
});

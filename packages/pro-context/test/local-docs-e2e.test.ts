import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startFakeNpm } from '@pro-context/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { connectStdio, errorOf, offlineRegistries, skipReason } from './helpers.js';

type Connection = Awaited<ReturnType<typeof connectStdio>>;

const dirs: string[] = [];
const servers: Connection[] = [];

/** A temp folder with these files (path → content). */
function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'pc-local-e2e-'));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** Writes the config (JSON is YAML) into `dir` and starts the built stdio server on it. */
async function serve(dir: string, settings: Record<string, unknown>): Promise<Connection> {
  const configFile = join(dir, 'pro-context.config.yaml');
  writeFileSync(configFile, JSON.stringify({ cache: { directory: join(dir, '.cache') }, ...settings }, null, 2));
  const server = await connectStdio(configFile);
  servers.push(server);
  return server;
}

/** A loopback URL nothing listens on any more (a registry that went down). */
async function stoppedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return `http://127.0.0.1:${port}/pypi`;
}

const text = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

afterAll(async () => {
  for (const server of servers) await server.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(skipReason)(`local docs over stdio${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  it('a folder of internal markdown (sources.custom, type file) is resolved, searched, read, and re-read when edited', async () => {
    const dir = folder({
      'handbook/README.md': '# Acme handbook\n\nHow Acme services are built.\n',
      'handbook/guides/retries.md':
        '# Retry policies\n\nConfigure **retry budgets** with `RetryPolicy(maxAttempts=5)` in every Acme client.\n',
      'handbook/guides/tracing.md': '# Tracing\n\nSpans go to the collector through `acme.trace()`.\n',
    });
    const server = await serve(dir, {
      ...offlineRegistries,
      project: { autoDetect: false },
      sources: { custom: [{ name: 'Acme handbook', libraryId: 'acme/handbook', type: 'file', path: 'handbook' }] },
    });

    const resolved = await server.call('resolve-library', { query: 'acme/handbook' });
    expect(resolved.isError).toBeFalsy();
    const r = resolved.structuredContent as {
      libraryId: string;
      sources: string[];
      toc: { title: string; url: string }[];
    };
    expect(r.libraryId).toBe('acme/handbook');
    expect(r.sources).toEqual(['local-docs']);
    expect(r.toc.map((e) => e.title)).toEqual(['Acme handbook', 'Retry policies', 'Tracing']);

    const docs = await server.call('get-docs', { libraryId: 'acme/handbook', topic: 'retry budgets' });
    expect(docs.isError).toBeFalsy();
    expect((docs.structuredContent as { content: string }).content).toContain('RetryPolicy(maxAttempts=5)');

    const retries = r.toc.find((e) => e.title === 'Retry policies')?.url as string;
    const page = await server.call('read-page', { url: retries });
    expect(page.isError).toBeFalsy();
    expect((page.structuredContent as { content: string }).content).toContain('retry budgets');

    // the team edits the page: the next answers are the new text, without a restart or a TTL to wait for
    const file = join(dir, 'handbook/guides/retries.md');
    writeFileSync(
      file,
      '# Retry policies\n\nRetry budgets are gone: use a **circuit breaker** (`CircuitBreaker(threshold=3)`).\n',
    );
    utimesSync(file, new Date(), new Date(Date.now() + 10_000));
    const edited = await server.call('get-docs', {
      libraryId: 'acme/handbook',
      topic: 'retry budgets',
    });
    expect(edited.isError).toBeFalsy();
    const content = (edited.structuredContent as { content: string }).content;
    expect(content).toContain('CircuitBreaker(threshold=3)');
    expect(content).not.toContain('RetryPolicy(maxAttempts=5)');
    const reread = await server.call('read-page', { url: retries });
    expect((reread.structuredContent as { content: string }).content).toContain('circuit breaker');

    // a URL climbing out of the folder is refused with a coded error
    const outside = await server.call('read-page', {
      url: retries.replace('guides/retries.md', '..%2F..%2Fpro-context.config.yaml'),
    });
    expect(errorOf(outside).code).toBe('LOCAL_PATH_REFUSED');
  });

  it('an installed node_modules package is answered at its installed version with the network down', async () => {
    const pkg = {
      'package.json': JSON.stringify({ name: 'tiny-pkg', version: '1.4.2', types: 'index.d.ts' }),
      'README.md': '# tiny-pkg\n\nTiny helpers for greeting people.\n',
      'docs/advanced.md': '# Advanced greetings\n\nUse `greetAll` with a **separator** option to join many names.\n',
      'index.d.ts':
        '/**\n * Greets everyone, joined by the separator.\n * @param names - the people\n */\nexport declare function greetAll(names: string[], separator?: string): string;\n',
    };
    const dir = folder({
      'package.json': JSON.stringify({ name: 'app', private: true, dependencies: { 'tiny-pkg': '^1.0.0' } }),
      ...Object.fromEntries(Object.entries(pkg).map(([p, t]) => [`node_modules/tiny-pkg/${p}`, t])),
    });
    // the npm registry the server is configured with knows a newer tiny-pkg, and is stopped before it starts
    const npm = await startFakeNpm([
      { name: 'tiny-pkg', versions: [{ version: '1.4.2' }, { version: '2.0.0' }] } as never,
    ]);
    const npmUrl = npm.url;
    await npm.close();
    const server = await serve(dir, {
      security: { allowPrivateNetwork: true },
      http: { retryDelaysMs: [10], timeoutMs: 2000 },
      registry: { enabled: false },
      registries: { pypi: { enabled: false }, npm: { url: npmUrl } },
      project: { workingDirectory: dir },
    });

    // detection and the node_modules scan run in the background after start
    const deadline = Date.now() + 20_000;
    let listed: { id: string; defaultVersion: string }[] = [];
    while (Date.now() < deadline) {
      const result = await server.call('list-libraries', {});
      listed = (result.structuredContent as { libraries: typeof listed }).libraries;
      if (listed.some((l) => l.id === 'tiny-pkg' && l.defaultVersion === '1.4.2')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(listed).toContainEqual(expect.objectContaining({ id: 'tiny-pkg', defaultVersion: '1.4.2' }));

    const docs = await server.call('get-docs', { libraryId: 'tiny-pkg', topic: 'greetAll separator' });
    expect(docs.isError, text(docs)).toBeFalsy();
    const answer = docs.structuredContent as { version: string; content: string; source: string };
    expect(answer.version).toBe('1.4.2');
    expect(answer.content).toMatch(/greetAll/);
    expect(answer.source).toMatch(/^https:\/\/local-docs\.invalid\/npm\/tiny-pkg\//);

    const resolved = await server.call('resolve-library', { query: 'tiny-pkg' });
    const toc = (resolved.structuredContent as { toc: { title: string; url: string }[] }).toc;
    expect(toc.map((e) => e.title)).toEqual(['tiny-pkg', 'Advanced greetings', 'tiny-pkg API reference']);
    const api = await server.call('read-page', { url: toc[2]?.url as string });
    expect(api.isError, text(api)).toBeFalsy();
    const apiText = (api.structuredContent as { content: string }).content;
    expect(apiText).toContain('export declare function greetAll(names: string[], separator?: string): string;');
    expect(apiText).toContain('Greets everyone, joined by the separator.');

    // another version than the installed one is not labelled with the installed docs
    const other = await server.call('get-docs', { libraryId: 'tiny-pkg', topic: 'greetAll', version: '2.0.0' });
    expect(other.isError).toBe(true);
  });

  it('a Python dependency is answered from the virtual environment METADATA at its installed version, offline', async () => {
    const metadata = [
      'Metadata-Version: 2.1',
      'Name: acme-tool',
      'Version: 0.3.1',
      'Summary: Tools for Acme pipelines.',
      'Description-Content-Type: text/markdown',
      '',
      '# acme-tool',
      '',
      '## Pipelines',
      '',
      'Run a pipeline with `acme.run(pipeline, workers=4)`.',
      '',
    ].join('\n');
    const dir = folder({
      'requirements.txt': 'acme-tool>=0.3\n',
      '.venv/pyvenv.cfg': 'home = /usr/bin\n',
      '.venv/lib/python3.12/site-packages/acme_tool-0.3.1.dist-info/METADATA': metadata,
    });
    const server = await serve(dir, {
      security: { allowPrivateNetwork: true },
      http: { retryDelaysMs: [10], timeoutMs: 2000 },
      registry: { enabled: false },
      registries: { pypi: { url: await stoppedUrl() }, npm: { enabled: false } },
      project: { workingDirectory: dir },
    });
    const deadline = Date.now() + 20_000;
    let listed: { id: string; defaultVersion: string }[] = [];
    while (Date.now() < deadline) {
      const result = await server.call('list-libraries', {});
      listed = (result.structuredContent as { libraries: typeof listed }).libraries;
      if (listed.some((l) => l.id === 'acme-tool' && l.defaultVersion === '0.3.1')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(listed).toContainEqual(expect.objectContaining({ id: 'acme-tool', defaultVersion: '0.3.1' }));
    const docs = await server.call('get-docs', { libraryId: 'acme-tool', topic: 'run a pipeline workers' });
    expect(docs.isError, text(docs)).toBeFalsy();
    const answer = docs.structuredContent as { version: string; content: string };
    expect(answer.version).toBe('0.3.1');
    expect(answer.content).toContain('acme.run(pipeline, workers=4)');
  });
});

import {
  type DocVersions,
  definePlugin,
  KERNEL_VERSION,
  type LibraryDescriptor,
  type StartedKernel,
  sourceAdapterToken,
} from '@pro-context/kernel';
import { catalogErrorOf, createTestKernel, StaticRegistryResolver, StaticSourceAdapter } from '@pro-context/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { docsEngineToken, enginePlugin } from '../src/plugin.js';
import { resolveLibraryVersion } from '../src/versions/versions.js';

const zodDocs = {
  zod: {
    pages: [
      {
        url: 'https://zod.test/api',
        title: 'Defining schemas',
        markdown: '# Defining schemas\n\nZod 4 schemas: `z.object({ name: z.string() })`.',
      },
    ],
  },
};
const versions = ['4.1.0', '4.0.0', '3.25.0', '3.24.0'];
const kernels: StartedKernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((k) => k.stop()));
});

/** The engine over the static source, which serves zod's docs for `docVersions` (default: the latest only). */
async function start(zod: Record<string, unknown>, docVersions: DocVersions = { kind: 'latest' }) {
  const source = new StaticSourceAdapter('static', { zod: { ...zodDocs.zod, versions: docVersions } });
  const kernel = await createTestKernel({
    plugins: [
      enginePlugin,
      definePlugin({
        id: 'static-docs',
        kernel: `>=${KERNEL_VERSION}`,
        register: (ctx) => ctx.bindValue(sourceAdapterToken, source),
      }),
    ],
    config: { libraries: [{ id: 'zod', name: 'Zod', language: 'javascript', source: 'static', versions, ...zod }] },
  });
  kernels.push(kernel);
  return kernel.resolve(docsEngineToken);
}

describe('docs at a URL that names no version describe the latest stable only (US-6)', () => {
  const plain = { llmsTxtUrl: 'https://zod.test/llms.txt' };

  it('get-docs for an older release is VERSION_NOT_FOUND saying which version the docs are, not v4 docs labelled 3.25.0', async () => {
    const engine = await start(plain);
    const error = await catalogErrorOf(engine.getDocs('zod', 'object schemas', '3.25.0', 2000));
    expect(error.code).toBe('VERSION_NOT_FOUND');
    expect(error.message).toMatch(/Zod 3\.25\.0 was released, but its documentation is not available/);
    expect(error.message).toMatch(/latest stable version, 4\.1\.0/);
    expect(error.suggestion).toMatch(/version '4\.1\.0'/);
    expect(error.details).toMatchObject({ documentedVersion: '4.1.0', availableVersions: ['4.1.0'] });
    // a range that lands on an older release is no different
    expect((await catalogErrorOf(engine.getDocs('zod', 'object schemas', '3.x', 2000))).code).toBe('VERSION_NOT_FOUND');
    expect((await catalogErrorOf(engine.search('zod', 'object', '4.0.0', 5))).code).toBe('VERSION_NOT_FOUND');
  });

  it('serves the latest stable, by number, by range or by default, labelled with its version', async () => {
    const engine = await start(plain);
    for (const version of ['4.1.0', '4.x', undefined]) {
      const answer = await engine.getDocs('zod', 'object schemas', version, 2000);
      expect(answer.version).toBe('4.1.0');
      expect(answer.content).toMatch(/Zod 4 schemas/);
    }
  });

  it('a version that was never released is VERSION_NOT_FOUND listing the releases', async () => {
    const engine = await start(plain);
    const error = await catalogErrorOf(engine.getDocs('zod', 'object schemas', '9.0.0', 2000));
    expect(error.code).toBe('VERSION_NOT_FOUND');
    expect(error.message).toBe("Zod has no version '9.0.0'.");
    expect(error.suggestion).toBe('Available versions: 4.1.0, 4.0.0, 3.25.0, 3.24.0');
  });
});

describe('version-specific docs (the source serves any version)', () => {
  const versioned = {};

  it('serves an older release as that release', async () => {
    const engine = await start(versioned, { kind: 'any' });
    const answer = await engine.getDocs('zod', 'object schemas', '3.25.0', 2000);
    expect(answer.version).toBe('3.25.0');
  });

  it('still refuses a version missing from the configured list', async () => {
    const engine = await start(versioned, { kind: 'any' });
    expect((await catalogErrorOf(engine.getDocs('zod', 'object schemas', '9.0.0', 2000))).code).toBe(
      'VERSION_NOT_FOUND',
    );
  });
});

describe('resolve-library reads versions written as package managers write them (seed 001 §9.1)', () => {
  it('serves the TOC of the version "zod@3" / "zod==3.25.0" / "zod^3" names when its docs are version-specific', async () => {
    const engine = await start({}, { kind: 'any' });
    for (const [query, version] of [
      ['zod@3', '3.25.0'],
      ['zod@4.1.0', '4.1.0'],
      ['zod==3.25.0', '3.25.0'],
      ['zod ==3.24.0', '3.24.0'],
      ['zod^3', '3.25.0'],
    ]) {
      const result = await engine.resolve(query as string);
      expect(result.libraryId, query).toBe('zod');
      expect(result.defaultVersion, query).toBe('4.1.0');
      expect(result.requestedVersion, query).toBe(version);
      expect(result.notes, query).toEqual([]);
    }
  });

  it('says why when the version written so has no docs of its own, or does not exist, as for "zod v3"', async () => {
    const engine = await start({ llmsTxtUrl: 'https://zod.test/llms.txt' });
    const older = await engine.resolve('zod@3');
    expect(older.requestedVersion).toBeUndefined();
    expect(older.notes.join(' ')).toMatch(
      /Zod 3\.25\.0 exists, but only the documentation of the latest stable version, 4\.1\.0/,
    );
    const pinned = await engine.resolve('zod==3.25.0');
    expect(pinned.notes.join(' ')).toMatch(/Zod 3\.25\.0 exists/);
    const missing = await engine.resolve('zod==2.5');
    expect(missing.requestedVersion).toBeUndefined();
    expect(missing.notes.join(' ')).toMatch(
      /Zod has no version '2\.5' \(available: 4\.1\.0, 4\.0\.0, 3\.25\.0, 3\.24\.0\)/,
    );
    // the latest is just the latest, however it is written
    const latest = await engine.resolve('zod>=4');
    expect(latest.requestedVersion).toBe('4.1.0');
    expect(latest.notes).toEqual([]);
  });
});

describe('resolveLibraryVersion', () => {
  const library: LibraryDescriptor = { id: 'httpx', name: 'HTTPX', language: 'python', docsUrl: 'https://httpx.test/' };
  const pypi = new StaticRegistryResolver('pypi', 'pypi', {
    httpx: {
      name: 'httpx',
      ecosystem: 'pypi',
      versions: [
        { version: '0.28.1', prerelease: false },
        { version: '0.27.2', prerelease: false },
      ],
      latestStable: '0.28.1',
    },
  });
  const source = (versions: DocVersions) => new StaticSourceAdapter('static', { httpx: { pages: [], versions } });

  it('applies the same rule to versions a package registry knows', async () => {
    const latestOnly = { registries: [pypi], adapters: [source({ kind: 'latest' })] };
    expect((await resolveLibraryVersion(library, undefined, latestOnly)).version).toBe('0.28.1');
    const error = await catalogErrorOf(resolveLibraryVersion(library, '0.27.2', latestOnly));
    expect(error.code).toBe('VERSION_NOT_FOUND');
    expect(error.details).toMatchObject({ documentedVersion: '0.28.1', releasedVersions: ['0.28.1', '0.27.2'] });
    const anyVersion = { registries: [pypi], adapters: [source({ kind: 'any' })] };
    expect((await resolveLibraryVersion(library, '0.27.2', anyVersion)).version).toBe('0.27.2');
    const listed = { registries: [pypi], adapters: [source({ kind: 'list', versions: ['0.27.2'] })] };
    expect((await resolveLibraryVersion(library, '0.27.2', listed)).version).toBe('0.27.2');
  });
});

describe('the source chain asks only the adapters that document the version', () => {
  it('serves an older release from the source that has it, the latest from the first source', async () => {
    const page = (site: string, text: string) => ({
      url: `https://${site}.test/api`,
      title: 'API',
      markdown: `# API\n\n${text}`,
    });
    // `latest` runs first (priority 10) but documents only the latest stable; `tags` has every version
    const latest = new StaticSourceAdapter('latest', { zod: { pages: [page('latest', 'Zod 4 schemas.')] } }, 10);
    const tags = new StaticSourceAdapter(
      'tags',
      { zod: { pages: [page('tags', 'Zod schemas at a tag.')], versions: { kind: 'any' } } },
      20,
    );
    const kernel = await createTestKernel({
      plugins: [
        enginePlugin,
        definePlugin({
          id: 'two-sources',
          kernel: `>=${KERNEL_VERSION}`,
          register: (ctx) => {
            ctx.bindValue(sourceAdapterToken, latest);
            ctx.bindValue(sourceAdapterToken, tags);
          },
        }),
      ],
      config: {
        libraries: [{ id: 'zod', name: 'Zod', language: 'javascript', docsUrl: 'https://zod.test', versions }],
      },
    });
    kernels.push(kernel);
    const engine = kernel.resolve(docsEngineToken);
    const older = await engine.getDocs('zod', 'schemas', '3.25.0', 2000);
    expect(older.version).toBe('3.25.0');
    expect(older.content).toContain('at a tag');
    expect(latest.calls.fetchDocs).toBe(0);
    const current = await engine.getDocs('zod', 'schemas', undefined, 2000);
    expect(current.version).toBe('4.1.0');
    expect(current.content).toContain('Zod 4 schemas');
  });
});

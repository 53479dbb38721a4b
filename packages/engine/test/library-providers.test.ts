import {
  definePlugin,
  type FetchContext,
  KERNEL_VERSION,
  type LibraryDescriptor,
  type LibraryProvider,
  libraryProviderToken,
  type StartedKernel,
  sourceAdapterToken,
  z,
} from '@pro-context/kernel';
import { createLogger } from '@pro-context/logging';
import { catalogErrorOf, createTestKernel, StaticSourceAdapter } from '@pro-context/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { docsEngineToken, enginePlugin } from '../src/plugin.js';

const page = (id: string) => ({
  url: `https://docs.${id}.test/intro`,
  title: 'Intro',
  markdown: `# Intro\n\nThe ${id} library configures widgets with \`configure()\`.`,
});

/** A source with per-library settings in `sources.static` (a `site` URL), and `site` once read at the top level. */
class SettingsAdapter extends StaticSourceAdapter {
  readonly librarySettings = {
    key: 'static',
    schema: z.strictObject({ site: z.url().optional(), depth: z.number().int().default(1) }),
    legacyKeys: ['site'],
  };
  docsUrls(library: LibraryDescriptor): string[] {
    const site = (library.sources?.static as { site?: string } | undefined)?.site;
    return site ? [site] : [];
  }
}

/** A provider, as a plugin would bind it: a list, overrides, and a lookup that counts its calls. */
class FakeProvider implements LibraryProvider {
  readonly lookups: { name: string; signal: boolean }[] = [];
  constructor(
    readonly id: string,
    readonly priority: number,
    private readonly listed: LibraryDescriptor[],
    private readonly findable: Record<string, LibraryDescriptor> = {},
  ) {}
  libraries() {
    return this.listed;
  }
  async lookup(name: string, context?: FetchContext) {
    this.lookups.push({ name, signal: context?.signal !== undefined });
    return this.findable[name.toLowerCase()] ?? null;
  }
}

const kernels: StartedKernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((k) => k.stop()));
});

async function start(config: Record<string, unknown>, providers: LibraryProvider[] = []) {
  const lines: string[] = [];
  const source = new SettingsAdapter('static', {
    acme: { pages: [page('acme')] },
    widgets: { pages: [page('widgets')], versions: { kind: 'any' } },
    found: { pages: [page('found')] },
    'found-docs': { pages: [page('found')] },
  });
  const kernel = await createTestKernel({
    plugins: [
      enginePlugin,
      definePlugin({
        id: 'static-docs',
        kernel: `>=${KERNEL_VERSION}`,
        register: (ctx) => {
          ctx.bindValue(sourceAdapterToken, source);
          for (const provider of providers) ctx.bindValue(libraryProviderToken, provider);
        },
      }),
    ],
    config,
    logger: createLogger({ level: 'warn', stream: { write: (chunk: string) => lines.push(chunk) } }),
  });
  kernels.push(kernel);
  return { engine: kernel.resolve(docsEngineToken), kernel, lines };
}

describe('library providers', () => {
  it("merges providers field by field, config (priority 0) winning, then applies config's overrides", async () => {
    const registry = new FakeProvider('registry', 100, [
      {
        id: 'acme',
        name: 'Acme',
        description: 'From the registry.',
        language: 'python',
        categories: ['web'],
        sources: { static: { site: 'https://registry.acme.test/', depth: 1 } },
      },
      { id: 'widgets', name: 'Widgets', description: 'Only in the registry.', docsUrl: 'https://docs.widgets.test' },
    ]);
    const { engine } = await start(
      {
        libraries: [{ id: 'acme', name: 'ACME', docsUrl: 'https://docs.acme.test', sources: { static: { depth: 3 } } }],
        project: { libraryOverrides: { widgets: { description: 'Overridden.' } } },
      },
      [registry],
    );
    const acme = engine.libraries().find((l) => l.id === 'acme');
    expect(acme).toMatchObject({
      name: 'ACME',
      description: 'From the registry.',
      language: 'python',
      categories: ['web'],
      docsUrl: 'https://docs.acme.test',
      sources: { static: { site: 'https://registry.acme.test/', depth: 3 } },
    });
    expect(engine.libraries().find((l) => l.id === 'widgets')?.description).toBe('Overridden.');
    expect((await engine.getDocs('widgets', 'configure widgets', undefined, 1000)).content).toContain('configure()');
  });

  it('asks providers for a name nobody listed before LIBRARY_NOT_FOUND, with the FetchContext', async () => {
    const discovery = new FakeProvider('discovery', 200, [], {
      found: { id: 'found', name: 'Found', sources: { static: { site: 'https://docs.found.test/' } } },
    });
    const { engine, kernel } = await start({}, [discovery]);
    const signal = new AbortController().signal;
    const answer = await engine.getDocs('found', 'configure widgets', undefined, 1000, { signal });
    expect(answer.content).toContain('configure()');
    expect(discovery.lookups).toEqual([{ name: 'found', signal: true }]);
    // known from now on: no second lookup; its docs host is allowed for read-page
    expect((await engine.resolve('found')).libraryId).toBe('found');
    expect(discovery.lookups).toHaveLength(1);
    expect(kernel.allowlist.isAllowed(new URL('https://docs.found.test/page'))).toBe(true);
    // a name no provider knows: the same LIBRARY_NOT_FOUND as without providers
    const error = await catalogErrorOf(engine.getDocs('nothing-here', 'x', undefined, 1000));
    expect(error.code).toBe('LIBRARY_NOT_FOUND');
    expect(error.message).toBe("No library 'nothing-here' is known.");
    expect(discovery.lookups.map((l) => l.name)).toEqual(['found', 'nothing-here']);
    const resolved = await catalogErrorOf(engine.resolve('still nothing'));
    expect(resolved.message).toBe("No library matches 'still nothing'.");
  });
});

describe('per-source library settings', () => {
  it('validates each bag with its adapter schema and reports a bad key with its path', async () => {
    const error = await catalogErrorOf(
      start({
        libraries: [
          { id: 'acme', name: 'Acme', docsUrl: 'https://docs.acme.test', sources: { static: { sight: 'x' } } },
        ],
      }),
    );
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toMatch(/libraries\.0\.sources\.static\.sight: Unrecognized key/);
    const bad = await catalogErrorOf(
      start({ project: { libraryOverrides: { acme: { sources: { static: { depth: 'deep' } } } } } }),
    );
    expect(bad.message).toMatch(/project\.libraryOverrides\.acme\.sources\.static\.depth: /);
  });

  it("names the bag's key a misspelt one was meant to be, and guesses nothing when none is close", async () => {
    const error = await catalogErrorOf(
      start({
        libraries: [
          { id: 'acme', name: 'Acme', docsUrl: 'https://docs.acme.test', sources: { static: { dpeth: 2, colour: 1 } } },
        ],
      }),
    );
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toMatch(/libraries\.0\.sources\.static\.dpeth: Unrecognized key.*: did you mean 'depth'\?/);
    expect(error.message).toMatch(/libraries\.0\.sources\.static\.colour: Unrecognized key/);
    expect(error.message).not.toMatch(/colour: Unrecognized key[^\n]*did you mean/);
  });

  it('warns about a bag no installed source reads, and keeps it', async () => {
    const { engine, lines } = await start({
      libraries: [{ id: 'acme', name: 'Acme', docsUrl: 'https://docs.acme.test', sources: { other: { a: 1 } } }],
    });
    expect(engine.libraries()[0]?.sources).toEqual({ other: { a: 1 } });
    expect(lines.join('')).toMatch(/libraries\.0\.sources\.other is set but no installed source plugin reads it\./);
  });

  it('names the bag a misspelt bag was meant to be (its settings are not read), and guesses nothing when none is close', async () => {
    const { lines } = await start({
      libraries: [
        {
          id: 'acme',
          name: 'Acme',
          docsUrl: 'https://docs.acme.test',
          sources: { Static: { depth: 2 }, other: { a: 1 } },
        },
      ],
    });
    expect(lines.join('')).toMatch(
      /libraries\.0\.sources\.Static is set but no installed source plugin reads it: did you mean 'sources\.static'\?/,
    );
    expect(lines.join('')).toMatch(/libraries\.0\.sources\.other is set but no installed source plugin reads it\./);
  });
});

/** A provider whose libraries arrive after start (as project detection's do), announced through `watch`. */
class LateProvider implements LibraryProvider {
  readonly id = 'late';
  readonly priority = 300;
  private listed: LibraryDescriptor[] = [];
  private readonly listeners: (() => void)[] = [];
  libraries() {
    return this.listed;
  }
  watch(onChange: () => void) {
    this.listeners.push(onChange);
    return () => undefined;
  }
  deliver(libraries: LibraryDescriptor[]) {
    this.listed = libraries;
    for (const listener of this.listeners) listener();
  }
}

describe('libraries delivered after start (LibraryProvider.watch)', () => {
  it('merges them beneath known libraries, pre-resolves them in the background, and serves the installed version', async () => {
    const late = new LateProvider();
    const discovery = new FakeProvider('discovery', 200, [], {
      // its docs are known under another id than the package name
      findme: { id: 'found-docs', name: 'Found', sources: { static: { site: 'https://docs.found.test/' } } },
    });
    const { engine } = await start(
      {
        libraries: [
          // documented per version (the static source serves any version of widgets)
          {
            id: 'widgets',
            name: 'Widgets',
            language: 'python',
            docsUrl: 'https://docs.widgets.test',
            versions: ['2.0.0', '1.0.0'],
          },
          // an npm package with the name of a detected PyPI one
          { id: 'nobody', name: 'Nobody', language: 'javascript', docsUrl: 'https://docs.nobody.test' },
          // documented for its latest version only
          {
            id: 'acme',
            name: 'Acme',
            language: 'python',
            docsUrl: 'https://docs.acme.test',
            versions: ['3.0.0', '2.5.0'],
          },
        ],
      },
      [late, discovery],
    );
    expect(engine.resolvedLibraries().size).toBe(0);
    late.deliver([
      {
        id: 'widgets',
        name: 'widgets',
        language: 'python',
        packages: { pypi: 'widgets' },
        installedVersion: '1.0.0',
        detectedFrom: 'uv.lock',
      },
      {
        id: 'acme',
        name: 'acme',
        language: 'python',
        packages: { pypi: 'acme' },
        installedVersion: '2.5.0',
        detectedFrom: 'uv.lock',
      },
      {
        id: 'findme',
        name: 'findme',
        language: 'python',
        packages: { pypi: 'findme' },
        installedVersion: '0.9.0',
        detectedFrom: 'requirements.txt',
      },
      {
        id: 'nobody',
        name: 'nobody',
        language: 'python',
        packages: { pypi: 'nobody' },
        installedVersion: '1.2.3',
        detectedFrom: 'uv.lock',
      },
    ]);
    await engine.idle();

    // known libraries keep their fields and gain the installed version and the mark
    expect(engine.libraries().find((l) => l.id === 'widgets')).toMatchObject({
      name: 'Widgets',
      docsUrl: 'https://docs.widgets.test',
      installedVersion: '1.0.0',
      detectedFrom: 'uv.lock',
    });
    // a package nobody listed: a provider's lookup finds its docs, the installed version kept
    expect(discovery.lookups.map((l) => l.name)).toEqual(['findme', 'nobody']);
    expect(engine.libraries().find((l) => l.id === 'findme')).toBeUndefined();
    expect(engine.libraries().find((l) => l.id === 'found-docs')).toMatchObject({
      name: 'Found',
      installedVersion: '0.9.0',
    });
    // resolved in the background: their TOCs are resources
    expect([...engine.resolvedLibraries()]).toEqual(
      expect.arrayContaining([
        ['widgets', '1.0.0'],
        ['acme', '3.0.0'],
        ['found-docs', 'latest'],
      ]),
    );
    expect(engine.resolvedLibraries().has('nobody')).toBe(false);

    const listed = await engine.listLibraries();
    // the project's first, the cached ones among them first (pre-resolved: their docs are cached), then by name
    expect(listed.map((l) => [l.id, l.projectDetected, l.detectedFrom, l.defaultVersion, l.cached])).toEqual([
      ['acme', true, 'uv.lock', '3.0.0', true],
      ['found-docs', true, 'requirements.txt', 'latest', true],
      ['widgets', true, 'uv.lock', '1.0.0', true],
      ['pypi/nobody', true, 'uv.lock', '1.2.3', false],
      ['nobody', false, undefined, 'latest', false],
    ]);

    // no version asked: the installed one; an explicit version still wins
    expect((await engine.getDocs('widgets', 'configure widgets', undefined, 1000)).version).toBe('1.0.0');
    expect((await engine.getDocs('widgets', 'configure widgets', '2.0.0', 1000)).version).toBe('2.0.0');
    const resolved = await engine.resolve('widgets');
    expect(resolved.defaultVersion).toBe('1.0.0');
    expect(resolved.notes).toContain(
      'Widgets 1.0.0 is the version installed in this project (uv.lock); it is served when no version is asked (latest stable: 2.0.0).',
    );
    // an installed version without documentation of its own: the latest, and the answer says so
    const acme = await engine.resolve('acme');
    expect(acme.defaultVersion).toBe('3.0.0');
    expect(acme.notes).toContain(
      'Acme 2.5.0 is installed in this project, but its documentation is not available; this is the latest stable, 3.0.0.',
    );
  });

  it('a later delivery without a library (another project) takes back its project fields', async () => {
    const late = new LateProvider();
    const { engine } = await start(
      {
        engine: { preResolveDetected: false },
        libraries: [
          { id: 'widgets', name: 'Widgets', language: 'python', docsUrl: 'https://docs.widgets.test' },
          { id: 'acme', name: 'Acme', language: 'python', docsUrl: 'https://docs.acme.test' },
        ],
      },
      [late],
    );
    const detected = async () =>
      (await engine.listLibraries()).filter((l) => l.projectDetected).map((l) => `${l.id}@${l.defaultVersion}`);
    const lib = (id: string, version: string): LibraryDescriptor => ({
      id,
      name: id,
      language: 'python',
      packages: { pypi: id },
      installedVersion: version,
      detectedFrom: 'uv.lock',
    });
    late.deliver([lib('widgets', '1.0.0')]);
    expect(await detected()).toEqual(['widgets@1.0.0']);
    late.deliver([lib('acme', '2.5.0')]);
    expect(await detected()).toEqual(['acme@2.5.0']);
    expect(engine.libraries().find((l) => l.id === 'widgets')).not.toHaveProperty('installedVersion');
    // preResolveDetected: false: nothing was resolved in the background
    await engine.idle();
    expect(engine.resolvedLibraries().size).toBe(0);
  });
});

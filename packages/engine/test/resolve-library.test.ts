import {
  definePlugin,
  KERNEL_VERSION,
  type LibraryDescriptor,
  ProContextError,
  type StartedKernel,
  sourceAdapterToken,
  type TocResult,
} from '@pro-context/kernel';
import { catalogErrorOf, createTestKernel, MemoryCacheStore, StaticSourceAdapter } from '@pro-context/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { docsEngineToken, enginePlugin } from '../src/plugin.js';

const page = (lib: string, slug: string, title: string, markdown: string) => ({
  url: `https://docs.${lib}.test/${slug}`,
  title,
  markdown: `# ${title}\n\n${markdown}`,
});

const docs = {
  langgraph: { pages: [page('langgraph', 'streaming', 'Streaming', 'Stream graph outputs with `stream_mode`.')] },
  pydantic: { pages: [page('pydantic', 'models', 'Models', 'Define models with `BaseModel`.')] },
  'pydantic-settings': { pages: [page('pydantic-settings', 'settings', 'Settings', 'Use `BaseSettings`.')] },
  lib: { pages: [page('lib', 'intro', 'Intro', 'A library called Lib.')] },
  instructor: { pages: [page('instructor', 'intro', 'Instructor', 'Structured outputs.')] },
  zod: { pages: [page('zod', 'api', 'Basic usage', 'Define schemas with `z.object`.')] },
  down: { pages: [page('down', 'intro', 'Intro', 'Never reachable.')] },
  typer: { pages: [page('typer', 'intro', 'Typer', 'Build CLIs with type hints.')] },
  httpx: { pages: [page('httpx', 'intro', 'HTTPX', 'An HTTP client.')] },
  gone: { pages: [page('gone', 'intro', 'Intro', 'Never found.')] },
};

/** A source's advice when a site has no llms.txt (the llms-txt plugin names the library's own settings). */
const LLMS_TXT_NOT_FOUND = 'Check llmsTxtUrl of gone in the configuration.';

/** Adds an llms.txt-like summary, or an instructor-style intro entry (no blockquote), to the static TOCs. */
class DescribedAdapter extends StaticSourceAdapter {
  override async fetchToc(library: LibraryDescriptor): Promise<TocResult> {
    const toc = await super.fetchToc(library);
    if (library.id === 'pydantic') return { ...toc, summary: 'Data validation using Python type hints' };
    if (library.id === 'instructor') {
      const title = 'Instructor: Type-Safe Structured Outputs from LLMs';
      return {
        ...toc,
        title,
        entries: [
          {
            title,
            url: 'https://docs.instructor.test/llms.txt#instructor',
            description: 'Instructor is a library for extracting structured outputs from LLMs.',
          },
          ...toc.entries,
        ],
      };
    }
    if (library.id === 'down') {
      throw new ProContextError('SOURCE_UNAVAILABLE', 'https://docs.down.test/llms.txt answered HTTP 503.');
    }
    if (library.id.startsWith('gone')) {
      throw new ProContextError(
        'SOURCE_UNAVAILABLE',
        `No llms.txt at https://docs.${library.id}.test/llms.txt (HTTP 404).`,
        {
          recoverable: false,
          suggestion: LLMS_TXT_NOT_FOUND,
        },
      );
    }
    return toc;
  }

  override async fetchDocs(library: LibraryDescriptor) {
    if (library.id === 'down') {
      throw new ProContextError('SOURCE_UNAVAILABLE', 'https://docs.down.test/llms.txt answered HTTP 503.');
    }
    return super.fetchDocs(library);
  }
}

const lib = (id: string, name: string, extra: Record<string, unknown> = {}) => ({
  id,
  name,
  language: 'python',
  llmsTxtUrl: `https://docs.${id}.test/llms.txt`,
  source: 'static',
  ...extra,
});

const libraries = [
  lib('langgraph', 'LangGraph'),
  lib('pydantic', 'Pydantic', { versions: ['2.11.0', '2.10.6', '1.10.21'] }),
  lib('pydantic-settings', 'Pydantic Settings'),
  lib('lib', 'Lib'),
  lib('instructor', 'Instructor'),
  lib('zod', 'Zod', { language: 'javascript', versions: ['4.1.0', '4.0.0', '3.25.0', '3.24.0'] }),
  lib('down', 'Down Docs'),
];

const kernels: StartedKernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((k) => k.stop()));
});

async function start(
  cache = new MemoryCacheStore(),
  config: Record<string, unknown> = { libraries },
  sourceDocs: ConstructorParameters<typeof StaticSourceAdapter>[1] = docs,
) {
  const adapter = new DescribedAdapter('static', sourceDocs);
  const kernel = await createTestKernel({
    plugins: [
      enginePlugin,
      definePlugin({
        id: 'static-docs',
        kernel: `>=${KERNEL_VERSION}`,
        register: (ctx) => ctx.bindValue(sourceAdapterToken, adapter),
      }),
    ],
    config,
    fakeCache: cache,
  });
  kernels.push(kernel);
  return { engine: kernel.resolve(docsEngineToken), adapter, cache };
}

describe('resolve-library finds the library a natural-language query names', () => {
  it('finds a configured library named anywhere in a sentence', async () => {
    const { engine } = await start();
    for (const query of [
      'langgraph streaming',
      'how do I stream responses with langgraph',
      "LangGraph's streaming API?",
      'python langgraph docs',
    ]) {
      const result = await engine.resolve(query);
      expect(result.libraryId, query).toBe('langgraph');
      expect(result.matchedBy, query).not.toBe('fuzzy');
    }
  });

  it('prefers the longer name a query spells out: "pydantic settings" is pydantic-settings, not pydantic', async () => {
    const { engine } = await start();
    expect((await engine.resolve('pydantic settings env vars')).libraryId).toBe('pydantic-settings');
    expect((await engine.resolve('pydantic_settings')).libraryId).toBe('pydantic-settings');
    const plain = await engine.resolve('pydantic validators');
    expect(plain.libraryId).toBe('pydantic');
  });

  it('keeps typo tolerance, for a bare name and for a word in a sentence', async () => {
    const { engine } = await start();
    expect((await engine.resolve('langgrap')).libraryId).toBe('langgraph');
    const inSentence = await engine.resolve('how do I stream with langgrpah');
    expect(inSentence.libraryId).toBe('langgraph');
    expect(inSentence.matchedBy).toBe('fuzzy');
  });

  it('still resolves a library actually called "Lib", but does not take "lib" in a sentence as its name', async () => {
    const { engine } = await start();
    expect((await engine.resolve('Lib')).libraryId).toBe('lib');
    expect((await engine.resolve('lib')).libraryId).toBe('lib');
    expect((await engine.resolve('the langgraph lib')).libraryId).toBe('langgraph');
  });

  it('answers LIBRARY_NOT_FOUND for a sentence that names no known library', async () => {
    const { engine } = await start();
    const error = await catalogErrorOf(engine.resolve('how do I stream responses'));
    expect(error.code).toBe('LIBRARY_NOT_FOUND');
  });
});

describe('resolve-library does not take an English word of a sentence for a library one letter away', () => {
  const withTyper = { libraries: [...libraries, lib('typer', 'Typer'), lib('httpx', 'HTTPX')] };

  it('answers LIBRARY_NOT_FOUND for "types", "typed" and the like instead of Typer', async () => {
    const { engine } = await start(new MemoryCacheStore(), withTyper);
    for (const query of [
      'how do I add types to a function',
      'validation with python types',
      'typed settings',
      'typescript types',
    ]) {
      const error = await catalogErrorOf(engine.resolve(query));
      expect(error.code, query).toBe('LIBRARY_NOT_FOUND');
    }
  });

  it('still finds names, ids and typos of long names inside a sentence, and a misspelt name on its own', async () => {
    const { engine } = await start(new MemoryCacheStore(), withTyper);
    expect((await engine.resolve('how do I add types with typer')).libraryId).toBe('typer');
    expect((await engine.resolve('httpx timeouts')).libraryId).toBe('httpx');
    expect((await engine.resolve('how do I stream with langgrpah')).libraryId).toBe('langgraph');
    expect((await engine.resolve('python pydantc validators')).libraryId).toBe('pydantic');
    for (const [query, id] of [
      ['pydantc', 'pydantic'],
      ['langgraf', 'langgraph'],
      ['instrctor', 'instructor'],
    ]) {
      const result = await engine.resolve(query as string);
      expect(result.libraryId, query).toBe(id);
      expect(result.matchedBy, query).toBe('fuzzy');
    }
  });

  it('a short word near a name is only a suggestion: "http" is not found, "Did you mean \'httpx\'?"', async () => {
    const { engine } = await start(new MemoryCacheStore(), withTyper);
    const http = await catalogErrorOf(engine.resolve('http'));
    expect(http.code).toBe('LIBRARY_NOT_FOUND');
    expect(http.suggestion).toBe("Did you mean 'httpx'?");
    expect(http.details).toMatchObject({ suggestions: ['httpx'] });
    const type = await catalogErrorOf(engine.resolve('type'));
    expect(type.code).toBe('LIBRARY_NOT_FOUND');
    expect(type.suggestion).toBe("Did you mean 'typer'?");
    // get-docs with such an id says the same
    expect((await catalogErrorOf(engine.getDocs('http', 'timeouts', undefined, 2000))).suggestion).toBe(
      "Did you mean 'httpx'?",
    );
  });
});

describe('LibraryCatalog.match', () => {
  it('reads versions written the way package managers write them', async () => {
    const { engine } = await start();
    const catalog = { match: (q: string) => engine.matchLibraries(q) };
    for (const [query, id, hint] of [
      ['zod@3', 'zod', '3'],
      ['zod@4.1.0', 'zod', '4.1.0'],
      // a range is kept as written, for the registry (or the engine's semver / PEP 440 matching) to evaluate
      ['zod@^3.24', 'zod', '^3.24'],
      ['pydantic==2.5', 'pydantic', '==2.5'],
      ['pydantic>=2', 'pydantic', '>=2'],
      ['pydantic >= 2', 'pydantic', '>=2'],
      ['pydantic~=2.10', 'pydantic', '~=2.10'],
      ['zod^3', 'zod', '^3'],
      ['zod 3.25', 'zod', '3.25'],
      ['zod ver 3.25', 'zod', '3.25'],
      ['how do I use pydantic==2.5 validators', 'pydantic', '==2.5'],
    ]) {
      const best = catalog.match(query as string)[0];
      expect(best?.library.id, query).toBe(id);
      expect(best?.matchedBy, query).not.toBe('fuzzy');
      expect(best?.versionHint, query).toBe(hint);
    }
    // an upper bound or an exclusion names no version to serve: not read as "pydantic v2"
    for (const query of ['pydantic<2', 'pydantic < 2', 'pydantic!=2.5']) {
      const best = catalog.match(query)[0];
      expect(best?.library.id, query).toBe('pydantic');
      expect(best?.versionHint, query).toBeUndefined();
    }
  });

  it('reads the version written after the name, not a number elsewhere in the sentence', async () => {
    const { engine } = await start();
    const catalog = { match: (q: string) => engine.matchLibraries(q) };
    expect(catalog.match('pydantic v2 validators')[0]?.versionHint).toBe('2');
    expect(catalog.match('zod version 3.25')[0]?.versionHint).toBe('3.25');
    expect(catalog.match('langgraph on python 3.12')[0]?.versionHint).toBeUndefined();
    expect(catalog.match('oauth2 with langgraph')[0]?.versionHint).toBeUndefined();
  });
});

describe('resolve-library and versions', () => {
  it('keeps defaultVersion the latest stable and reports a hinted version that exists as requestedVersion', async () => {
    const { engine } = await start();
    const result = await engine.resolve('pydantic v1');
    expect(result.defaultVersion).toBe('2.11.0');
    // pydantic's docs here are not version-specific: 1.10.21 exists, but its docs are not available
    expect(result.requestedVersion).toBeUndefined();
    expect(result.notes.join(' ')).toMatch(
      /1\.10\.21 exists, but only the documentation of the latest stable version, 2\.11\.0/,
    );
  });

  it('says when a hinted version does not exist instead of silently showing the latest', async () => {
    const { engine } = await start();
    const result = await engine.resolve('zod v9');
    expect(result.defaultVersion).toBe('4.1.0');
    expect(result.requestedVersion).toBeUndefined();
    expect(result.notes.join(' ')).toMatch(
      /Zod has no version '9' \(available: 4\.1\.0, 4\.0\.0, 3\.25\.0, 3\.24\.0\)/,
    );
  });

  it('serves the TOC of a hinted version when the source serves every version', async () => {
    const { engine } = await start(
      new MemoryCacheStore(),
      { libraries },
      { ...docs, zod: { ...docs.zod, versions: { kind: 'any' } } },
    );
    const result = await engine.resolve('zod v3');
    expect(result.defaultVersion).toBe('4.1.0');
    expect(result.requestedVersion).toBe('3.25.0');
    expect(result.notes).toEqual([]);
    expect(engine.resolvedLibraries().get('zod')).toBe('3.25.0');
  });

  it('a hint that is the latest stable is just the latest', async () => {
    const { engine } = await start();
    const result = await engine.resolve('zod v4');
    expect(result.defaultVersion).toBe('4.1.0');
    expect(result.requestedVersion).toBe('4.1.0');
    expect(result.notes).toEqual([]);
  });
});

describe('resolve-library when no documentation can be fetched (seed 001 §5.1)', () => {
  it('returns the metadata with an empty TOC and a note why, so the agent still has the id', async () => {
    const { engine } = await start();
    const result = await engine.resolve('down docs');
    expect(result.libraryId).toBe('down');
    expect(result.name).toBe('Down Docs');
    expect(result.defaultVersion).toBe('latest');
    expect(result.sources).toEqual(['static']);
    expect(result.toc).toEqual([]);
    expect(result.tocTruncated).toBe(false);
    expect(result.notes.join(' ')).toMatch(/No documentation could be indexed for Down Docs latest: .*HTTP 503/);
    // not listed as a resource: there is no TOC to read
    expect(engine.resolvedLibraries().has('down')).toBe(false);
  });

  it('its TOC resource says why there is none instead of failing as an internal error', async () => {
    const { engine } = await start();
    const markdown = await engine.tocMarkdown('down');
    expect(markdown).toMatch(/^# Down Docs Documentation\n\nNo table of contents: .*HTTP 503/);
  });

  it('get-docs for it keeps failing with the coded error', async () => {
    const { engine } = await start();
    await engine.resolve('down');
    const error = await catalogErrorOf(engine.getDocs('down', 'intro', undefined, 2000));
    expect(error.code).toBe('SOURCE_UNAVAILABLE');
  });

  it("the note gives the source's reason and its advice", async () => {
    const { engine } = await start(new MemoryCacheStore(), { libraries: [...libraries, lib('gone', 'Gone')] });
    const note = (await engine.resolve('gone')).notes.join(' ');
    expect(note).toMatch(/No llms\.txt at https:\/\/docs\.gone\.test\/llms\.txt \(HTTP 404\)/);
    expect(note).toContain(LLMS_TXT_NOT_FOUND);
  });

  it('a library no adapter can serve gets the same answer', async () => {
    const { engine } = await start(new MemoryCacheStore(), {
      libraries: [...libraries, lib('orphan', 'Orphan', { source: 'github' })],
    });
    const result = await engine.resolve('orphan');
    expect(result.libraryId).toBe('orphan');
    expect(result.sources).toEqual([]);
    expect(result.toc).toEqual([]);
    expect(result.notes.join(' ')).toMatch(/No documentation source can serve Orphan/);
  });
});

describe('descriptions', () => {
  it('uses the llms.txt summary, or the intro of a manual-style llms.txt, when none is configured', async () => {
    const { engine } = await start();
    expect((await engine.resolve('pydantic')).description).toBe('Data validation using Python type hints');
    expect((await engine.resolve('instructor')).description).toBe(
      'Instructor is a library for extracting structured outputs from LLMs.',
    );
    const listed = await engine.listLibraries();
    expect(listed.find((l) => l.id === 'pydantic')?.description).toBe('Data validation using Python type hints');
    expect(listed.find((l) => l.id === 'instructor')?.description).toMatch(/^Instructor is a library/);
    // never resolved, nothing cached: nothing to say
    expect(listed.find((l) => l.id === 'langgraph')?.description).toBe('');
  });

  it('a configured description wins', async () => {
    const { engine } = await start(new MemoryCacheStore(), {
      libraries: libraries.map((l) => (l.id === 'pydantic' ? { ...l, description: 'Configured.' } : l)),
    });
    expect((await engine.resolve('pydantic')).description).toBe('Configured.');
  });
});

import {
  definePlugin,
  type FetchContext,
  KERNEL_VERSION,
  type LibraryDescriptor,
  type LibraryLookupHints,
  type LibraryProvider,
  libraryProviderToken,
  type StartedKernel,
} from '@pro-context/kernel';
import { catalogErrorOf, createTestKernel } from '@pro-context/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { docsEngineToken, enginePlugin } from '../src/plugin.js';

/** A provider that finds any name, records the hints it was given, and knows no documentation. */
class HintedProvider implements LibraryProvider {
  readonly id = 'hinted';
  readonly priority = 200;
  readonly asked: { name: string; hints?: LibraryLookupHints }[] = [];
  libraries() {
    return [];
  }
  async lookup(name: string, _context?: FetchContext, hints?: LibraryLookupHints): Promise<LibraryDescriptor> {
    this.asked.push({ name, ...(hints ? { hints } : {}) });
    return {
      id: name,
      name,
      language: hints?.language ?? 'python',
      docsNote: 'Docs discovery tried https://docs.example.test/llms.txt (HTTP 404).',
    };
  }
}

const kernels: StartedKernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((k) => k.stop()));
});

async function start(provider: LibraryProvider, config: Record<string, unknown> = {}) {
  const kernel = await createTestKernel({
    config,
    plugins: [
      enginePlugin,
      definePlugin({
        id: 'hinted-provider',
        kernel: `>=${KERNEL_VERSION}`,
        register: (ctx) => ctx.bindValue(libraryProviderToken, provider),
      }),
    ],
  });
  kernels.push(kernel);
  return kernel.resolve(docsEngineToken);
}

describe('provider lookups', () => {
  it("pass resolve-library's language filter as a hint", async () => {
    const provider = new HintedProvider();
    const engine = await start(provider);
    await engine.resolve('some-package', { language: 'javascript' });
    await engine.resolve('other-package');
    expect(provider.asked).toEqual([
      { name: 'some-package', hints: { language: 'javascript' } },
      { name: 'other-package' },
    ]);
  });

  it('name what the provider learnt (docsNote) when no source can serve the library', async () => {
    const engine = await start(new HintedProvider());
    const resolved = await engine.resolve('quiet-package');
    expect(resolved.toc).toEqual([]);
    expect(resolved.notes).toEqual([
      expect.stringContaining(
        'No documentation source can serve quiet-package. Docs discovery tried https://docs.example.test/llms.txt (HTTP 404).',
      ),
    ]);
    const error = await catalogErrorOf(engine.getDocs('quiet-package', 'anything', undefined, 1000));
    expect(error.code).toBe('SOURCE_UNAVAILABLE');
    expect(error.message).toContain('Docs discovery tried https://docs.example.test/llms.txt (HTTP 404).');
  });

  it('never replace a library the catalog knows', async () => {
    const provider = new HintedProvider();
    const config = {
      libraries: [{ id: 'requests', name: 'Requests', language: 'python', docsUrl: 'https://requests.example.test' }],
    };
    const engine = await start(provider, config);
    // another language's package of that id is not taken: the answer stays LIBRARY_NOT_FOUND, pointing at it
    const error = await catalogErrorOf(engine.resolve('requests', { language: 'javascript' }));
    expect(error.code).toBe('LIBRARY_NOT_FOUND');
    expect(error.suggestion).toContain("'requests' (python)");
    // a provider answering a known id with the same language: the known library, as configured
    const same = await start(
      {
        id: 'same',
        priority: 200,
        libraries: () => [],
        lookup: async () => ({ id: 'requests', name: 'requests', language: 'python', docsNote: 'replaced' }),
      },
      config,
    );
    const found = await same.findLibrary('zzqqxx');
    expect(found).toMatchObject({ id: 'requests', name: 'Requests', docsUrl: 'https://requests.example.test' });
    expect(found?.docsNote).toBeUndefined();
    expect(provider.asked).toEqual([{ name: 'requests', hints: { language: 'javascript' } }]);
  });
});

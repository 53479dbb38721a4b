import { libraryProviderToken } from '@pro-context/kernel';
import { createTestKernel } from '@pro-context/testing';
import { describe, expect, it } from 'vitest';
import {
  createKnownLibrariesPlugin,
  KnownLibrariesProvider,
  knownLibraries,
  knownLibrariesPlugin,
  loadKnownLibraries,
} from '../src/index.js';
import { knownLibrariesPlugin as fromPluginEntry } from '../src/plugin.js';

describe('knownLibrariesPlugin', () => {
  it('binds the curated registry as a library provider (priority 100), every entry as a descriptor', async () => {
    const kernel = await createTestKernel({ plugins: [knownLibrariesPlugin] });
    const providers = kernel.resolveAll(libraryProviderToken);
    expect(providers.map((p) => [p.id, p.priority])).toEqual([['known-libraries', 100]]);
    const provider = providers[0] as KnownLibrariesProvider;
    expect(provider).toBeInstanceOf(KnownLibrariesProvider);
    expect(provider.libraries()).toHaveLength(knownLibraries.length);
    // the plugin reads the file unvalidated (its tests validate it): the same entries as the validated list
    expect(loadKnownLibraries()).toEqual(loadKnownLibraries({ validate: true }));
    expect(provider.libraries().find((l) => l.id === 'pydantic')).toMatchObject({
      packages: { pypi: 'pydantic' },
      sources: { llmsTxt: { versionedDocsUrl: 'https://docs.pydantic.dev/{version}/', versionFormat: 'major.minor' } },
    });
    expect(provider.libraries().find((l) => l.id === 'openai-js')?.packages).toEqual({ npm: 'openai' });
    await kernel.stop();
  });

  it("reads the entries when its libraries are first asked for (the catalog's first use), not when the kernel starts", async () => {
    let reads = 0;
    const plugin = createKnownLibrariesPlugin(() => {
      reads += 1;
      return knownLibraries.slice(0, 3);
    });
    const kernel = await createTestKernel({ plugins: [plugin] });
    const [provider] = kernel.resolveAll(libraryProviderToken);
    expect(reads).toBe(0);
    expect(provider?.libraries()).toHaveLength(3);
    expect(provider?.libraries()).toHaveLength(3);
    expect(reads).toBe(1);
    await kernel.stop();
  });

  it('binds nothing with registry.enabled: false, and refuses a misspelt key', async () => {
    const kernel = await createTestKernel({ plugins: [fromPluginEntry], config: { registry: { enabled: false } } });
    expect(kernel.resolveAll(libraryProviderToken)).toEqual([]);
    await kernel.stop();
    await expect(
      createTestKernel({ plugins: [fromPluginEntry], config: { registry: { enable: false } } }),
    ).rejects.toThrow(/registry\.enable/);
  });
});

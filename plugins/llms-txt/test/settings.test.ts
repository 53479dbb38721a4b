import type { LibraryDescriptor } from '@pro-context/kernel';
import { createSilentLogger } from '@pro-context/logging';
import { createUrlAllowlist } from '@pro-context/runtime';
import { describe, expect, it } from 'vitest';
import {
  hasVersionedDocs,
  LlmsTxtSourceAdapter,
  llmsTxtLibrarySettingsSchema,
  llmsTxtPluginOptionsSchema,
  llmsTxtSettingsOf,
  llmsTxtUrlOf,
} from '../src/index.js';

const lib = (extra: Partial<LibraryDescriptor>): LibraryDescriptor => ({ id: 'x', name: 'X', ...extra });
const adapter = () =>
  new LlmsTxtSourceAdapter(
    llmsTxtPluginOptionsSchema.parse({}),
    // never called: these tests make no request
    {} as ConstructorParameters<typeof LlmsTxtSourceAdapter>[1],
    createUrlAllowlist([]),
    createSilentLogger(),
  );

describe('the sources.llmsTxt bag', () => {
  it('is read first, the deprecated top-level keys where the bag says nothing', () => {
    const both = lib({
      llmsTxtUrl: 'https://old.x.dev/llms.txt',
      llmsFullTxtUrl: 'https://old.x.dev/llms-full.txt',
      sources: { llmsTxt: { llmsTxtUrl: 'https://new.x.dev/llms.txt' } },
    });
    expect(llmsTxtSettingsOf(both)).toEqual({
      llmsTxtUrl: 'https://new.x.dev/llms.txt',
      llmsFullTxtUrl: 'https://old.x.dev/llms-full.txt',
    });
    expect(llmsTxtUrlOf(both, 'latest')).toBe('https://new.x.dev/llms.txt');
  });

  it('is a strict schema: a misspelt key or a bad URL is an error', () => {
    expect(llmsTxtLibrarySettingsSchema.safeParse({ llmsTxtUrl: 'https://x.dev/llms.txt' }).success).toBe(true);
    expect(llmsTxtLibrarySettingsSchema.safeParse({ llmsTxtURL: 'https://x.dev/llms.txt' }).success).toBe(false);
    expect(llmsTxtLibrarySettingsSchema.safeParse({ versionedDocsUrl: 'https://x.dev/latest' }).success).toBe(false);
  });

  it('is what the adapter declares to the engine, with the keys it used to read at the top level', () => {
    expect(adapter().librarySettings).toMatchObject({
      key: 'llmsTxt',
      legacyKeys: ['llmsTxtUrl', 'llmsFullTxtUrl', 'versionedDocsUrl'],
    });
  });
});

describe('which versions llms-txt serves', () => {
  it('any version when a URL names one, else only the latest', async () => {
    const a = adapter();
    expect(await a.docVersions(lib({ docsUrl: 'https://x.dev' }))).toEqual({ kind: 'latest' });
    const versioned = lib({ sources: { llmsTxt: { versionedDocsUrl: 'https://x.dev/{version}/' } } });
    expect(await a.docVersions(versioned)).toEqual({ kind: 'any' });
    expect(hasVersionedDocs(lib({ llmsTxtUrl: 'https://x.dev/{version}/llms.txt' }))).toBe(true);
    expect(hasVersionedDocs(lib({ versionedDocsUrl: 'https://x.dev/{version}' }))).toBe(true);
    expect(hasVersionedDocs(lib({ docsUrl: 'https://x.dev/latest' }))).toBe(false);
  });

  it('names the URLs it reads a library from, for the engine to allow their hosts', () => {
    const l = lib({
      docsUrl: 'https://docs.x.dev',
      sources: {
        llmsTxt: { llmsTxtUrl: 'https://cdn.x.dev/llms.txt', llmsFullTxtUrl: 'https://files.x.dev/full.txt' },
      },
    });
    expect(adapter().docsUrls(l)).toEqual(['https://cdn.x.dev/llms.txt', 'https://files.x.dev/full.txt']);
  });
});

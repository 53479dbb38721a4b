import type { LibraryDescriptor } from '@pro-context/kernel';
import { describe, expect, it } from 'vitest';
import { formatVersion, llmsFullTxtUrlOf, llmsTxtUrlOf } from '../src/index.js';
import { pageCandidates } from '../src/urls.js';

const lib = (extra: Partial<LibraryDescriptor>): LibraryDescriptor => ({ id: 'x', name: 'X', ...extra });

describe('llmsTxtUrlOf / llmsFullTxtUrlOf', () => {
  it('uses {docsUrl}/llms.txt, with or without a trailing slash', () => {
    expect(llmsTxtUrlOf(lib({ docsUrl: 'https://docs.x.dev' }), 'latest')).toBe('https://docs.x.dev/llms.txt');
    expect(llmsTxtUrlOf(lib({ docsUrl: 'https://docs.x.dev/en/' }), '1.0')).toBe('https://docs.x.dev/en/llms.txt');
  });

  it('prefers an explicit llmsTxtUrl, and derives llms-full.txt next to it', () => {
    const l = lib({ docsUrl: 'https://docs.x.dev', llmsTxtUrl: 'https://x.dev/ai/llms.txt' });
    expect(llmsTxtUrlOf(l, 'latest')).toBe('https://x.dev/ai/llms.txt');
    expect(llmsFullTxtUrlOf(l, 'latest', 'https://x.dev/ai/llms.txt')).toBe('https://x.dev/ai/llms-full.txt');
    expect(llmsFullTxtUrlOf(l, 'latest', 'https://x.dev/ai/llms-small.txt')).toBe('https://x.dev/ai/llms-full.txt');
    expect(
      llmsFullTxtUrlOf({ ...l, llmsFullTxtUrl: 'https://x.dev/full.txt' }, 'latest', 'https://x.dev/ai/llms.txt'),
    ).toBe('https://x.dev/full.txt');
  });

  it('substitutes {version} for a concrete version, and not for latest', () => {
    const l = lib({ docsUrl: 'https://docs.x.dev/latest', versionedDocsUrl: 'https://docs.x.dev/{version}/' });
    expect(llmsTxtUrlOf(l, '2.10')).toBe('https://docs.x.dev/2.10/llms.txt');
    expect(llmsTxtUrlOf(l, 'latest')).toBe('https://docs.x.dev/latest/llms.txt');
    // An unversioned explicit llms-full.txt would be another version's: derive it from the versioned llms.txt.
    const full = { ...l, llmsFullTxtUrl: 'https://docs.x.dev/latest/llms-full.txt' };
    expect(llmsFullTxtUrlOf(full, '2.10', 'https://docs.x.dev/2.10/llms.txt')).toBe(
      'https://docs.x.dev/2.10/llms-full.txt',
    );
    expect(llmsFullTxtUrlOf(full, 'latest', 'https://docs.x.dev/latest/llms.txt')).toBe(
      'https://docs.x.dev/latest/llms-full.txt',
    );
    const templated = lib({ llmsTxtUrl: 'https://x.dev/{version}/llms.txt' });
    expect(llmsTxtUrlOf(templated, '3.0.0-beta')).toBe('https://x.dev/3.0.0-beta/llms.txt');
  });

  it('writes the version the way the site does (sources.llmsTxt.versionFormat)', () => {
    expect(formatVersion('2.10.6', 'exact')).toBe('2.10.6');
    expect(formatVersion('2.10.6', 'major.minor')).toBe('2.10');
    expect(formatVersion('v15.1.0', 'major')).toBe('15');
    expect(formatVersion('2.0.36', 'majorminor')).toBe('20');
    expect(formatVersion('3', 'major.minor')).toBe('3.0');
    expect(formatVersion('5.0.0b1', 'major.minor')).toBe('5.0');
    expect(formatVersion('latest', 'major')).toBe('latest');
    const bag = (versionFormat?: string) =>
      lib({
        docsUrl: 'https://docs.x.dev/latest',
        sources: {
          llmsTxt: {
            versionedDocsUrl: 'https://docs.x.dev/{version}/',
            llmsFullTxtUrl: 'https://docs.x.dev/{version}/llms-full.txt',
            ...(versionFormat ? { versionFormat } : {}),
          },
        },
      });
    expect(llmsTxtUrlOf(bag('major.minor'), '2.10.6')).toBe('https://docs.x.dev/2.10/llms.txt');
    expect(llmsFullTxtUrlOf(bag('major.minor'), '2.10.6', 'https://docs.x.dev/2.10/llms.txt')).toBe(
      'https://docs.x.dev/2.10/llms-full.txt',
    );
    expect(llmsTxtUrlOf(bag('majorminor'), '2.0.36')).toBe('https://docs.x.dev/20/llms.txt');
    expect(llmsTxtUrlOf(bag(), '2.10.6')).toBe('https://docs.x.dev/2.10.6/llms.txt');
    expect(llmsTxtUrlOf(bag('major.minor'), 'latest')).toBe('https://docs.x.dev/latest/llms.txt');
    const templated = lib({
      sources: { llmsTxt: { llmsTxtUrl: 'https://x.dev/v{version}/llms.txt', versionFormat: 'major' } },
    });
    expect(llmsTxtUrlOf(templated, '4.2.1')).toBe('https://x.dev/v4/llms.txt');
  });

  it('has nothing to offer for a library without a docs site', () => {
    expect(llmsTxtUrlOf(lib({ repository: 'a/b' }), 'latest')).toBeUndefined();
  });
});

describe('pageCandidates', () => {
  it('tries the markdown twin first for extensionless, .html and folder URLs', () => {
    expect(pageCandidates('https://d.dev/guide/intro#part', true)).toEqual([
      'https://d.dev/guide/intro.md',
      'https://d.dev/guide/intro',
    ]);
    expect(pageCandidates('https://d.dev/a.html', true)).toEqual(['https://d.dev/a.html.md', 'https://d.dev/a.html']);
    expect(pageCandidates('https://d.dev/concepts/', true)).toEqual([
      'https://d.dev/concepts/index.md',
      'https://d.dev/concepts/index.html.md',
      'https://d.dev/concepts/',
    ]);
  });

  it('fetches markdown, text and source files as they are, and everything as is when twins are off', () => {
    expect(pageCandidates('https://d.dev/concepts/alias/index.md', true)).toEqual([
      'https://d.dev/concepts/alias/index.md',
    ]);
    expect(pageCandidates('https://d.dev/apilist.txt', true)).toEqual(['https://d.dev/apilist.txt']);
    expect(pageCandidates('https://raw.dev/examples/app.py', true)).toEqual(['https://raw.dev/examples/app.py']);
    expect(pageCandidates('https://d.dev/guide/intro', false)).toEqual(['https://d.dev/guide/intro']);
  });
});

import { describe, expect, it } from 'vitest';
import {
  AnchorCollector,
  MAX_ANCHOR_CHARS,
  MAX_ANCHOR_TEXTS,
  markdownLinks,
  pathKey,
  prepareDocs,
} from '../src/index.js';

describe('markdownLinks', () => {
  it('reads inline links outside fenced code, not images', () => {
    const md = [
      'See [Strict Mode](./strict-mode.md) and ![logo](logo.png).',
      '```md',
      '[not a link](./code.md)',
      '```',
      'Also [`useEffect`](/reference/react/useEffect#usage) here.',
    ].join('\n');
    expect(markdownLinks(md)).toEqual([
      { text: 'Strict Mode', target: './strict-mode.md' },
      { text: '`useEffect`', target: '/reference/react/useEffect#usage' },
    ]);
  });

  it('reads a page of a million brackets in linear time and keeps at most the cap', () => {
    const hostile = `${'['.repeat(500_000)}${'[a](x) '.repeat(100_000)}`;
    const links = markdownLinks(hostile, 400);
    expect(links.length).toBe(400);
  });
});

describe('pathKey', () => {
  it('treats source files and served URLs of a page alike', () => {
    expect(pathKey('/docs/guide/index.md')).toEqual(['docs', 'guide']);
    expect(pathKey('/docs/guide/')).toEqual(['docs', 'guide']);
    expect(pathKey('/config/testTimeout.html')).toEqual(['config', 'testtimeout']);
  });
});

describe('AnchorCollector', () => {
  it('gives each page the texts other pages link to it with, relative, site-absolute and source links alike', () => {
    const anchors = new AnchorCollector();
    anchors.addPage(
      'http://docs.test/vitest/guide/features.md',
      'Use [a timeout](/config/testtimeout) or [retry](../config/retry.md).',
    );
    anchors.addPage(
      'http://docs.test/vitest/api/test.md',
      'Configured by [`testTimeout`](/config/testtimeout#x), see [a timeout](/config/testtimeout).',
    );
    anchors.addPage(
      'http://docs.test/vitest/config/testtimeout.md',
      'Self [link](./testtimeout.md) and [elsewhere](https://other.test/config/retry).',
    );
    anchors.addPage('http://docs.test/vitest/config/retry.md', '# retry');
    expect(anchors.finish()).toEqual([
      {
        url: 'http://docs.test/vitest/config/testtimeout.md',
        texts: [
          ['a timeout', 2],
          ['testTimeout', 1],
        ],
      },
      { url: 'http://docs.test/vitest/config/retry.md', texts: [['retry', 1]] },
    ]);
  });

  it('caps the texts per page and their length (hostile pages)', () => {
    const anchors = new AnchorCollector();
    anchors.addPage('http://docs.test/target.md', '# Target');
    for (let p = 0; p < 3; p++) {
      const links = Array.from({ length: 40 }, (_, i) => `[text ${p}-${i} ${'word '.repeat(40)}](./target.md)`);
      anchors.addPage(`http://docs.test/p${p}.md`, links.join('\n'));
    }
    const [page] = anchors.finish();
    expect(page?.texts.length).toBe(MAX_ANCHOR_TEXTS);
    for (const [text] of page?.texts ?? []) expect(text.length).toBeLessThanOrEqual(MAX_ANCHOR_CHARS);
  });
});

describe('prepareDocs', () => {
  it('returns the anchors of the library it prepared', async () => {
    const docs = await prepareDocs(
      [
        { url: 'http://docs.test/a.md', title: 'A', markdown: '# A\n\nRead about [strict mode](./b.md).' },
        { url: 'http://docs.test/b.md', title: 'StrictMode', markdown: '# StrictMode\n\nText.' },
      ],
      { maxTokens: 800 },
    );
    expect(docs.anchors).toEqual([{ url: 'http://docs.test/b.md', texts: [['strict mode', 1]] }]);
  });
});

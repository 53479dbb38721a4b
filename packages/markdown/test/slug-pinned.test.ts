import { describe, expect, it } from 'vitest';
import { headingPlainText, inlinePlainText, slugify } from '../src/index.js';

// Today's anchors and plain texts of headings with links, images and tags (well formed and not), pinned before the
// link/tag patterns of slug.ts were rewritten as linear scans (issue #25): a rewrite must give exactly these.
// Columns: heading, mkdocs slug, github slug, headingPlainText, inlinePlainText.
const PINNED: [string, string, string, string, string][] = [
  ['Install ![logo](l.png) now', 'install-now', 'install-logo-now', 'Install now', 'Install logo now'],
  [
    'See [the guide](guide.md) first',
    'see-the-guide-first',
    'see-the-guide-first',
    'See the guide first',
    'See the guide first',
  ],
  [
    'Use [ref style][ref] links',
    'use-ref-style-links',
    'use-ref-styleref-links',
    'Use ref style links',
    'Use [ref style][ref] links',
  ],
  ['Version <Badge>4.0</Badge>', 'version-40', 'version-40', 'Version 4.0', 'Version 4.0'],
  ['<a id="x"></a>Anchored', 'anchored', 'anchored', 'Anchored', 'Anchored'],
  [
    'Nested [![badge](b.svg)](https://x.y) title',
    'nested-title',
    'nested-badge-title',
    'Nested title',
    'Nested badge title',
  ],
  [
    'Unclosed [bracket and (paren',
    'unclosed-bracket-and-paren',
    'unclosed-bracket-and-paren',
    'Unclosed [bracket and (paren',
    'Unclosed [bracket and (paren',
  ],
  [
    'Weird ![alt]( no close',
    'weird-alt-no-close',
    'weird-alt-no-close',
    'Weird ![alt]( no close',
    'Weird ![alt]( no close',
  ],
  ['[a]][b](c) [d][e]] ![f](g)h)', 'ab-d-h', 'ab-de-fh', '[a]]b d] h)', '[a]]b [d][e]] fh)'],
  [
    '<  not a tag > and <b>bold</b> and </i',
    'not-a-tag-and-bold-and-i',
    'not-a-tag-and-bold-and-i',
    '< not a tag > and bold and </i',
    '< not a tag > and bold and </i',
  ],
  [
    'Code `x < y` and <br/> break',
    'code-x-y-and-break',
    'code-x-y-and-break',
    'Code x < y and break',
    'Code `x < y` and break',
  ],
  [
    'Link [with ] close](url) ok',
    'link-with-closeurl-ok',
    'link-with-closeurl-ok',
    'Link [with ] close](url) ok',
    'Link [with ] close](url) ok',
  ],
  ['[[double]](x) [x](y(z))', 'doublex-x', 'doublex-x', '[[double]](x) x)', '[[double]](x) x'],
  [
    'A <kbd>Ctrl</kbd>+<kbd>C</kbd> shortcut',
    'a-ctrlc-shortcut',
    'a-ctrl-c-shortcut',
    'A Ctrl+C shortcut',
    'A Ctrl + C shortcut',
  ],
  ['![](empty.png)[](empty)', '', '', '', ''],
  [
    'Mixed **bold** and __under__ and *em*',
    'mixed-bold-and-__under__-and-em',
    'mixed-bold-and-under-and-em',
    'Mixed bold and __under__ and em',
    'Mixed bold and under and *em*',
  ],
  ['Tag <span class="a>b">text</span> end', 'tag-btext-end', 'tag-btext-end', 'Tag b">text end', 'Tag b">text end'],
];

describe('heading anchors stay as released', () => {
  it.each(PINNED)('%s', (heading, mkdocs, github, plain, inline) => {
    expect(slugify(heading)).toBe(mkdocs);
    expect(slugify(heading, 'github')).toBe(github);
    expect(headingPlainText(heading)).toBe(plain);
    expect(inlinePlainText(heading)).toBe(inline);
  });
});

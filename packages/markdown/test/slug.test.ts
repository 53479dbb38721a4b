import { describe, expect, it } from 'vitest';
import { createSlugger, inlinePlainText, slugify } from '../src/index.js';

// Anchors end up in URLs agents hand back: each flavour must keep producing exactly what it always has.
describe('slug flavours', () => {
  it('agree on plain headings', () => {
    for (const heading of ['Getting started', 'Query parameter list / multiple values', 'What is "DI"?']) {
      expect(slugify(heading, 'github')).toBe(slugify(heading, 'mkdocs'));
    }
    expect(slugify('Getting started', 'github')).toBe('getting-started');
  });

  it('mkdocs (the default) drops diacritics and images and collapses separators', () => {
    expect(slugify('Café au lait')).toBe('cafe-au-lait');
    expect(slugify('Install ![logo](l.png) now')).toBe('install-now');
    expect(slugify('Before - after')).toBe('before-after');
    expect(slugify('Version <Badge>4.0</Badge>')).toBe('version-40');
    expect(slugify('!!!')).toBe('');
  });

  it('github keeps diacritics and image labels, and turns each space into a hyphen', () => {
    expect(slugify('Café au lait', 'github')).toBe('café-au-lait');
    expect(slugify('Install ![logo](l.png) now', 'github')).toBe('install-logo-now');
    expect(slugify('Before - after', 'github')).toBe('before---after');
    expect(slugify('Version <Badge>4.0</Badge>', 'github')).toBe('version-40');
    expect(slugify('The __init__ method', 'github')).toBe('the-init-method');
    expect(slugify('!!!', 'github')).toBe('');
  });

  it('number repeated anchors the way each generator does, and fall back to "section"', () => {
    const mkdocs = createSlugger();
    expect(['Setup', 'Setup', 'Setup', '***'].map((h) => mkdocs.slug(h))).toEqual([
      'setup',
      'setup_1',
      'setup_2',
      'section',
    ]);
    const github = createSlugger('github');
    expect(['Setup', 'Setup', 'Setup', '***', '???'].map((h) => github.slug(h))).toEqual([
      'setup',
      'setup-1',
      'setup-2',
      'section',
      'section-1',
    ]);
  });

  it('keep explicit anchors and never generate one that collides with them', () => {
    const slugger = createSlugger('github');
    expect(slugger.slug('Intro', 'intro')).toBe('intro');
    expect(slugger.slug('Intro')).toBe('intro-1');
  });
});

describe('inlinePlainText', () => {
  it('unwraps links, images, nested labels, strong emphasis, HTML and escapes', () => {
    expect(inlinePlainText('[**Pydantic** docs](https://x.test/a_(b))')).toBe('Pydantic docs');
    expect(inlinePlainText('[![badge](b.svg)](https://x.test)')).toBe('badge');
    expect(inlinePlainText('a<br/>b \\*not emphasis\\*  __strong__')).toBe('a b *not emphasis* strong');
  });
});

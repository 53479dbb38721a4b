import { describe, expect, it } from 'vitest';
import { documentsOf, localIdOf, topicsOf } from '../src/library.js';

const toc = [
  { title: 'Introduction', url: 'https://docs.example.dev/latest/index.md' },
  { title: 'Routing', url: 'https://docs.example.dev/latest/core/routing.md', section: 'Core' },
  { title: 'State', url: 'https://docs.example.dev/latest/core/state.md', section: 'Core' },
  { title: 'Deployment', url: 'https://docs.example.dev/latest/guides/deploy.md', section: 'Guides' },
  { title: 'Deployment: Docker', url: 'https://docs.example.dev/latest/guides/deploy.md#docker', section: 'Guides' },
];

describe('the topic hierarchy and documents of a TOC (seed 002)', () => {
  it("groups page titles by their TOC section, pages without one under 'general'", () => {
    expect(topicsOf(toc)).toEqual({
      general: ['Introduction'],
      Core: ['Routing', 'State'],
      Guides: ['Deployment', 'Deployment: Docker'],
    });
  });

  it('lists each page once, its path relative to the docs root', () => {
    expect(documentsOf(toc).map(({ path, title }) => ({ path, title }))).toEqual([
      { path: 'index.md', title: 'Introduction' },
      { path: 'core/routing.md', title: 'Routing' },
      { path: 'core/state.md', title: 'State' },
      { path: 'guides/deploy.md', title: 'Deployment' },
    ]);
  });

  it('keeps full URLs when pages share no directory', () => {
    const docs = documentsOf([
      { title: 'A', url: 'https://a.example/x.md' },
      { title: 'B', url: 'https://b.example/y.md' },
    ]);
    expect(docs.map((d) => d.path)).toEqual(['https://a.example/x.md', 'https://b.example/y.md']);
  });

  it('a local id may carry a leading slash', () => {
    expect(localIdOf('/httpx')).toBe('httpx');
    expect(localIdOf('httpx')).toBe('httpx');
  });
});

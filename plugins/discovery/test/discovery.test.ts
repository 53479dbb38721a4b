import { join } from 'node:path';
import { cacheStoreToken, type LibraryProvider, libraryProviderToken } from '@pro-context/kernel';
import { sqliteCachePlugin } from '@pro-context/plugin-sqlite-cache';
import { describe, expect, it } from 'vitest';
import { DISCOVERY_NAMESPACE, notLlmsText, probeCandidates, siteBase } from '../src/index.js';
import { startKernel, startWorld, tempDir, type World } from './helpers.js';

async function provider(world: World, options: Parameters<typeof startKernel>[1] = {}): Promise<LibraryProvider> {
  const kernel = await startKernel(world, options);
  const found = kernel.resolveAll(libraryProviderToken).find((p) => p.id === 'discovery');
  if (!found) throw new Error('the discovery provider is not bound');
  return found;
}

describe('discovery probes the docs URL, then llms-full.txt, then the homepage', () => {
  it('finds an llms.txt at the documentation URL', async () => {
    const world = await startWorld();
    const discovery = await provider(world);
    expect(discovery.priority).toBe(200);
    const library = await discovery.lookup?.('alpha-docs', {}, { language: 'python' });
    expect(library).toEqual({
      id: 'alpha-docs',
      name: 'alpha-docs',
      description: 'Alpha makes widgets.',
      language: 'python',
      packages: { pypi: 'alpha-docs' },
      repository: 'https://github.com/example/alpha-docs',
      docsUrl: `${world.site.origin}/alpha/docs`,
      sources: { llmsTxt: { llmsTxtUrl: `${world.site.origin}/alpha/docs/llms.txt` } },
    });
    // one probe: the first URL answered
    expect(world.site.hits).toEqual(['/alpha/docs/llms.txt']);
  });

  it('takes an llms-full.txt when the docs URL has no llms.txt', async () => {
    const world = await startWorld();
    const library = await (await provider(world)).lookup?.('beta-full');
    expect(library).toMatchObject({
      id: 'beta-full',
      name: 'Beta_Full',
      aliases: ['Beta_Full'],
      packages: { pypi: 'Beta_Full' },
      docsUrl: `${world.site.origin}/beta/docs`,
      sources: { llmsTxt: { llmsFullTxtUrl: `${world.site.origin}/beta/docs/llms-full.txt` } },
    });
    expect(world.site.hits).toEqual(['/beta/docs/llms.txt', '/beta/docs/llms-full.txt']);
  });

  it("falls back to the homepage's llms.txt", async () => {
    const world = await startWorld();
    const library = await (await provider(world)).lookup?.('gamma');
    expect(library).toMatchObject({
      docsUrl: `${world.site.origin}/gamma/home`,
      sources: { llmsTxt: { llmsTxtUrl: `${world.site.origin}/gamma/home/llms.txt` } },
    });
    expect(library?.docsNote).toBeUndefined();
    expect(world.site.hits).toEqual(['/gamma/docs/llms.txt', '/gamma/docs/llms-full.txt', '/gamma/home/llms.txt']);
  });

  it('still returns a package with nothing found, naming what was tried, and no docs URL to allow', async () => {
    const world = await startWorld();
    const library = await (await provider(world)).lookup?.('delta-none');
    const o = world.site.origin;
    expect(library).toMatchObject({ id: 'delta-none', packages: { pypi: 'delta-none' }, language: 'python' });
    expect(library?.docsUrl).toBeUndefined();
    // no llms.txt: the docs site is handed to the site crawl (not as a docsUrl, so read-page waits for the crawl)
    expect(library?.sources).toEqual({ site: { url: `${o}/delta/docs` } });
    expect(library?.docsNote).toBe(
      `Docs discovery found no llms.txt for delta-none from its PyPI metadata; tried ${o}/delta/docs/llms.txt (HTTP 404), ${o}/delta/docs/llms-full.txt (HTTP 404), ${o}/delta/llms.txt (HTTP 404). Its repository is https://github.com/example/delta.`,
    );
  });

  it('does not take an HTML page served at /llms.txt for an llms.txt', async () => {
    const world = await startWorld();
    const library = await (await provider(world)).lookup?.('html-login');
    expect(library?.sources?.llmsTxt).toBeUndefined();
    expect(library?.docsNote).toContain(
      `${world.site.origin}/html/docs/llms.txt (an HTML page, not an llms.txt), ${world.site.origin}/html/docs/llms-full.txt (HTTP 404)`,
    );
  });

  it('probes nothing for a package whose only URL is its repository', async () => {
    const world = await startWorld();
    const library = await (await provider(world)).lookup?.('repo-only');
    expect(world.site.hits).toEqual([]);
    expect(library?.docsNote).toMatch(/no documentation site in the PyPI metadata of repo-only/);
  });

  it('answers null for a name no registry knows, and nothing for names no registry can have', async () => {
    const world = await startWorld();
    const discovery = await provider(world);
    expect(await discovery.lookup?.('no-such-package')).toBeNull();
    expect(world.pypi.count('/pypi/no-such-package/json')).toBe(1);
    expect(world.npm.count('no-such-package')).toBe(1);
    const before = world.pypi.count() + world.npm.count();
    expect(await discovery.lookup?.('how do I')).toBeNull();
    expect(world.pypi.count() + world.npm.count()).toBe(before);
  });
});

describe('ecosystems', () => {
  it('finds scoped npm packages, with an id an agent can pass back', async () => {
    const world = await startWorld();
    const discovery = await provider(world);
    const library = await discovery.lookup?.('@acme/widgets');
    expect(library).toMatchObject({
      id: 'acme/widgets',
      name: '@acme/widgets',
      aliases: ['@acme/widgets'],
      language: 'javascript',
      packages: { npm: '@acme/widgets' },
      repository: 'https://github.com/acme/widgets',
      sources: { llmsTxt: { llmsTxtUrl: `${world.site.origin}/acme/llms.txt` } },
    });
    // the id as a libraryId later: asked as the scoped name
    expect((await discovery.lookup?.('acme/widgets'))?.packages).toEqual({ npm: '@acme/widgets' });
  });

  it('prefers the hinted language, else the registry where docs were found', async () => {
    const world = await startWorld();
    const discovery = await provider(world);
    expect((await discovery.lookup?.('both-places'))?.packages).toEqual({ npm: 'both-places' });
    const python = await discovery.lookup?.('both-places', {}, { language: 'python' });
    expect(python).toMatchObject({ packages: { pypi: 'both-places' }, language: 'python' });
    expect(python?.docsNote).toMatch(/^Docs discovery found no llms.txt for both-places from its PyPI metadata/);
    expect(await discovery.lookup?.('both-places', {}, { language: 'typescript' })).toMatchObject({
      packages: { npm: 'both-places' },
      language: 'typescript',
    });
    // a language no installed registry serves
    expect(await discovery.lookup?.('both-places', {}, { language: 'go' })).toBeNull();
  });

  it('skips a registry that is down; with every registry down the lookup fails (the engine logs it)', async () => {
    const world = await startWorld();
    const discovery = await provider(world);
    world.pypi.fault({ status: 503 });
    // npm still answers: the npm package is found, PyPI's failure is skipped
    expect((await discovery.lookup?.('both-places'))?.packages).toEqual({ npm: 'both-places' });
    expect(await discovery.lookup?.('alpha-docs')).toBeNull();
    world.npm.fault({ status: 503 });
    // a registry answering 503 is REGISTRY_ERROR (it answered, with a server error), not a timeout
    await expect(discovery.lookup?.('gamma')).rejects.toMatchObject({ code: 'REGISTRY_ERROR' });
  });
});

describe('what was discovered is cached', () => {
  it('answers the next lookup from the cache, with zero requests, in this process and after a restart (SQLite)', async () => {
    const world = await startWorld();
    const directory = join(tempDir(), 'cache');
    const options = { plugins: [sqliteCachePlugin], config: { cache: { directory } } };
    const first = await provider(world, options);
    const library = await first.lookup?.('gamma');
    const requests = () => world.pypi.count() + world.npm.count() + world.site.hits.length;
    const made = requests();
    expect(made).toBeGreaterThan(0);
    expect(await first.lookup?.('gamma')).toEqual(library);
    expect(requests()).toBe(made);

    const restarted = await startKernel(world, options);
    const second = restarted.resolveAll(libraryProviderToken).find((p) => p.id === 'discovery');
    expect(await second?.lookup?.('gamma')).toEqual(library);
    expect(requests()).toBe(made);
    const keys = await restarted.resolve(cacheStoreToken).keys(DISCOVERY_NAMESPACE);
    expect(keys.sort()).toEqual(['npm:gamma', 'pypi:gamma']);
  });

  it('answers from an expired discovery while the registry is down', async () => {
    const world = await startWorld();
    const discovery = await provider(world, { config: { discovery: { ttlHours: 0.000_001 } } });
    const library = await discovery.lookup?.('alpha-docs', {}, { language: 'python' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    world.pypi.fault({ status: 503 });
    expect(await discovery.lookup?.('alpha-docs', {}, { language: 'python' })).toEqual(library);
  });

  it('rejects a misspelt option', async () => {
    const world = await startWorld();
    await expect(startKernel(world, { config: { discovery: { ttlHour: 3 } } })).rejects.toThrow(/discovery\.ttlHour/);
  });
});

describe('helpers', () => {
  it('derives site bases and the probe order', () => {
    expect(siteBase('https://docs.example.dev/en/latest/?x=1#top')).toBe('https://docs.example.dev/en/latest');
    expect(siteBase('https://example.dev/docs/index.html')).toBe('https://example.dev/docs');
    expect(siteBase('https://github.com/o/r#readme')).toBeUndefined();
    expect(siteBase('ftp://example.dev')).toBeUndefined();
    expect(probeCandidates('https://d.dev/x', 'https://d.dev/x/').map((c) => c.url)).toEqual([
      'https://d.dev/x/llms.txt',
      'https://d.dev/x/llms-full.txt',
    ]);
  });

  it('tells an llms.txt from what sites serve in its place', () => {
    expect(notLlmsText('# Lib\n\n- [A](https://a.dev/a.md)\n')).toBeUndefined();
    expect(notLlmsText('<!-- x -->\n<!doctype html><html></html>')).toBe('an HTML page');
    expect(notLlmsText('<div>Sign in</div>', 'text/html')).toBe('an HTML page');
    expect(notLlmsText('{"error": "not found"}')).toBe('a JSON file');
    expect(notLlmsText('   ')).toBe('an empty file');
    expect(notLlmsText('Please log in to continue.')).toBe('not markdown (no heading or link)');
  });
});

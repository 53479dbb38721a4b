import { join } from 'node:path';
import { docsEngineToken, enginePlugin } from '@pro-context/engine';
import { kernelTokens } from '@pro-context/kernel';
import { githubPlugin } from '@pro-context/plugin-github';
import { llmsTxtPlugin } from '@pro-context/plugin-llms-txt';
import { siteCrawlPlugin } from '@pro-context/plugin-site-crawl';
import { sqliteCachePlugin } from '@pro-context/plugin-sqlite-cache';
import { catalogErrorOf, startFakeGithub } from '@pro-context/testing';
import { describe, expect, it, vi } from 'vitest';
import { startKernel, startWorld, tempDir, type World } from './helpers.js';

/** The real engine and llms-txt plugins, the fake registries and discovery. */
async function engineKernel(world: World, registries?: ('pypi' | 'npm')[]) {
  const kernel = await startKernel(world, {
    plugins: [llmsTxtPlugin, enginePlugin],
    ...(registries ? { registries } : {}),
  });
  return { kernel, engine: kernel.resolve(docsEngineToken), allowlist: kernel.resolve(kernelTokens.allowlist) };
}

describe('the engine answers packages nobody listed', () => {
  it('resolve-library then get-docs of a discovered library', async () => {
    const world = await startWorld();
    const { engine, allowlist } = await engineKernel(world);
    const o = world.site.origin;
    expect(allowlist.isAllowed(`${o}/alpha/docs/start.md`)).toBe(false);

    const resolved = await engine.resolve('alpha-docs');
    expect(resolved).toMatchObject({
      libraryId: 'alpha-docs',
      name: 'alpha-docs',
      description: 'Alpha makes widgets.',
      language: 'python',
      defaultVersion: '1.2.0',
      sources: ['llms-txt'],
      notes: [],
    });
    expect(resolved.availableVersions).toEqual(expect.arrayContaining(['1.2.0', '1.0.0']));
    expect(resolved.toc.map((e) => e.url)).toEqual([`${o}/alpha/docs/start.md`, `${o}/alpha/docs/options.md`]);
    // the host an llms.txt was fetched from joins the read-page allowlist (seed 001 §10.1)
    expect(allowlist.isAllowed(`${o}/alpha/docs/start.md`)).toBe(true);

    const answer = await engine.getDocs('alpha-docs', 'widget colour', undefined, 2000);
    expect(answer.content).toContain('colour="blue"');
    expect(answer.version).toBe('1.2.0');
    expect((await engine.listLibraries()).map((l) => l.id)).toContain('alpha-docs');
  });

  it('serves a library found through its llms-full.txt only', async () => {
    const world = await startWorld();
    const { engine } = await engineKernel(world);
    const resolved = await engine.resolve('Beta_Full');
    expect(resolved.libraryId).toBe('beta-full');
    expect(resolved.toc.length).toBeGreaterThan(0);
    const answer = await engine.getDocs('beta-full', 'resize a gadget', undefined, 2000);
    expect(answer.content).toContain('resize_gadget(size)');
  });

  it('answers a package without llms.txt with an empty TOC and a note naming the URLs tried', async () => {
    const world = await startWorld();
    const { engine, allowlist } = await engineKernel(world);
    const o = world.site.origin;
    const resolved = await engine.resolve('delta-none');
    expect(resolved).toMatchObject({ libraryId: 'delta-none', toc: [], tocSize: 0, defaultVersion: '5.1.0' });
    expect(resolved.notes).toHaveLength(1);
    expect(resolved.notes[0]).toContain('No documentation could be indexed for delta-none 5.1.0');
    for (const path of ['/delta/docs/llms.txt', '/delta/docs/llms-full.txt', '/delta/llms.txt'])
      expect(resolved.notes[0]).toContain(`${o}${path} (HTTP 404)`);
    // nothing was read from that site: it does not join the allowlist
    expect(allowlist.isAllowed(`${o}/delta/docs/`)).toBe(false);
    const error = await catalogErrorOf(engine.getDocs('delta-none', 'anything', undefined, 1000));
    expect(error.code).toBe('SOURCE_UNAVAILABLE');
    expect(error.message).toContain(`${o}/delta/llms.txt (HTTP 404)`);
  });

  it('crawls the documentation site of a package that publishes no llms.txt (site-crawl installed)', async () => {
    const world = await startWorld();
    const kernel = await startKernel(world, { plugins: [llmsTxtPlugin, siteCrawlPlugin, enginePlugin] });
    const engine = kernel.resolve(docsEngineToken);
    const o = world.site.origin;
    const resolved = await engine.resolve('epsilon-html');
    expect(resolved.sources).toEqual(['site']);
    expect(resolved.toc.map((e) => e.title)).toEqual(['Epsilon', 'Sprites']);
    const answer = await engine.getDocs('epsilon-html', 'flip a sprite', undefined, 1000);
    expect(answer.content).toContain('flip_sprite');
    expect(answer.source).toContain(`${o}/epsilon/docs/sprites/`);
  });

  it('serves a package without llms.txt from the GitHub repository its metadata names', async () => {
    const world = await startWorld();
    const github = await startFakeGithub([
      {
        fullName: 'example/delta',
        files: {
          'README.md': '# Delta\n',
          'docs/index.md': '# Delta\n\nDelta resizes gadgets.\n',
          'docs/guide/resize.md': '# Resizing\n\nCall `delta.resize(gadget, factor=2)` to double a gadget.\n',
        },
        tags: [{ name: 'v5.1.0' }],
      },
    ]);
    try {
      const kernel = await startKernel(world, {
        plugins: [llmsTxtPlugin, githubPlugin, enginePlugin],
        config: { sources: { github: { apiUrl: github.apiUrl, rawUrl: github.rawUrl } } },
      });
      const engine = kernel.resolve(docsEngineToken);
      const resolved = await engine.resolve('delta-none');
      expect(resolved).toMatchObject({ libraryId: 'delta-none', defaultVersion: '5.1.0', sources: ['github'] });
      expect(resolved.toc.map((e) => e.title)).toEqual(['Delta', 'Resizing']);
      const answer = await engine.getDocs('delta-none', 'resize a gadget', undefined, 2000);
      expect(answer.content).toContain('delta.resize(gadget, factor=2)');
      expect(answer.source).toContain(`${github.origin}/raw/example/delta/v5.1.0/docs/`);
    } finally {
      await github.close();
    }
  });

  it('serves a scoped npm package under an id an agent can pass back', async () => {
    const world = await startWorld();
    const { engine } = await engineKernel(world);
    const resolved = await engine.resolve('@acme/widgets');
    expect(resolved).toMatchObject({ libraryId: 'acme/widgets', language: 'javascript', defaultVersion: '3.4.0' });
    expect(resolved.toc).toHaveLength(2);
    // a fresh process, given that id: found again (from the name `@acme/widgets`)
    const { engine: fresh } = await engineKernel(world);
    expect((await fresh.resolve('', { libraryId: 'acme/widgets' })).toc).toHaveLength(2);
  });

  it('asks the registry of the language filter', async () => {
    const world = await startWorld();
    const { engine } = await engineKernel(world);
    const python = await engine.resolve('both-places', { language: 'python' });
    expect(python).toMatchObject({ libraryId: 'both-places', language: 'python', toc: [] });
    const { engine: other } = await engineKernel(world);
    const js = await other.resolve('both-places', { language: 'javascript' });
    expect(js).toMatchObject({ libraryId: 'both-places', language: 'javascript', defaultVersion: '2.0.0' });
    expect(js.toc.length).toBe(2);
  });

  it('keeps LIBRARY_NOT_FOUND when the registry is down, and recovers when it is back', async () => {
    const world = await startWorld();
    const { engine } = await engineKernel(world, ['pypi']);
    world.pypi.fault({ status: 503 });
    const error = await catalogErrorOf(engine.resolve('alpha-docs'));
    expect(error.code).toBe('LIBRARY_NOT_FOUND');
    world.pypi.fault();
    expect((await engine.resolve('alpha-docs')).libraryId).toBe('alpha-docs');
  });

  it('answers a name no registry knows with LIBRARY_NOT_FOUND', async () => {
    const world = await startWorld();
    const { engine } = await engineKernel(world);
    expect((await catalogErrorOf(engine.resolve('no-such-package'))).code).toBe('LIBRARY_NOT_FOUND');
  });

  it('answers a discovered library after a restart with zero requests (SQLite cache)', async () => {
    const world = await startWorld();
    const options = {
      plugins: [sqliteCachePlugin, llmsTxtPlugin, enginePlugin],
      config: { cache: { directory: join(tempDir(), 'cache') } },
    };
    const first = await startKernel(world, options);
    const before = await first.resolve(docsEngineToken).resolve('gamma');
    expect(before.toc).toHaveLength(2);
    await first.stop();
    const requests = () => world.pypi.count() + world.npm.count() + world.site.hits.length;
    const made = requests();

    const restarted = await startKernel(world, options);
    const after = await restarted.resolve(docsEngineToken).resolve('gamma');
    expect(after).toEqual(before);
    expect(requests()).toBe(made);
  });

  it('lists the packages discovered by an earlier process after a restart, without looking them up again', async () => {
    const world = await startWorld();
    const options = {
      plugins: [sqliteCachePlugin, llmsTxtPlugin, enginePlugin],
      config: { cache: { directory: join(tempDir(), 'cache') } },
    };
    const first = await startKernel(world, options);
    await first.resolve(docsEngineToken).resolve('gamma');
    expect(await catalogErrorOf(first.resolve(docsEngineToken).resolve('no-such-package'))).toMatchObject({
      code: 'LIBRARY_NOT_FOUND',
    });
    await first.stop();
    const made = world.pypi.count() + world.npm.count();

    const restarted = await startKernel(world, options);
    const engine = restarted.resolve(docsEngineToken);
    // read from the cache after start: the list fills in without delaying readiness
    await vi.waitFor(async () => expect((await engine.listLibraries({})).map((l) => l.id)).toContain('gamma'));
    const ids = (await engine.listLibraries({})).map((l) => l.id);
    expect(ids).not.toContain('no-such-package');
    expect(world.pypi.count() + world.npm.count()).toBe(made);
  });
});

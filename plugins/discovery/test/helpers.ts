import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnyPlugin, StartedKernel } from '@pro-context/kernel';
import { npmPlugin } from '@pro-context/plugin-npm';
import { pypiPlugin } from '@pro-context/plugin-pypi';
import {
  createTestKernel,
  type FakeNpmPackage,
  type FakePypiProject,
  type FakeRegistry,
  type LoopbackSite,
  startFakeNpm,
  startFakePypi,
  startLoopbackSite,
} from '@pro-context/testing';
import { afterEach } from 'vitest';
import { discoveryPlugin } from '../src/index.js';

/** An llms.txt of a small documentation site under `base`. */
export const llmsTxt = (title: string, base: string) =>
  [
    `# ${title}`,
    '',
    `> ${title} makes widgets.`,
    '',
    '## Docs',
    '',
    `- [Getting started](${base}/start.md): install ${title} and make a first widget`,
    `- [Widget options](${base}/options.md): every option of configure_widget`,
    '',
  ].join('\n');

export const page = (title: string, body: string) => `# ${title}\n\n${body}\n`;

/**
 * Documentation sites on one loopback server, one per path prefix:
 * - `/alpha/docs/llms.txt` (an llms.txt at the docs URL, with its two pages)
 * - `/beta/docs/llms-full.txt` only
 * - `/gamma/home/llms.txt` (the homepage's; the docs URL has nothing)
 * - `/html/docs/llms.txt` answered 200 with an HTML login page
 * - `/acme/llms.txt` (an npm package's homepage)
 * - `/epsilon/docs/` and `/epsilon/docs/sprites/`: HTML pages only
 * - nothing else (404)
 */
export function docsSite(): Promise<LoopbackSite> {
  let origin = '';
  const text = (res: import('node:http').ServerResponse, body: string, type = 'text/plain; charset=utf-8') =>
    res.writeHead(200, { 'content-type': type }).end(body);
  const promise = startLoopbackSite((path, res) => {
    const clean = path.split('?')[0] ?? path;
    switch (clean) {
      case '/alpha/docs/llms.txt':
        return text(res, llmsTxt('Alpha Docs', `${origin}/alpha/docs`));
      case '/alpha/docs/start.md':
        return text(
          res,
          page('Getting started', 'Install alpha-docs with pip, then call `make_widget()`.'),
          'text/markdown',
        );
      case '/alpha/docs/options.md':
        return text(
          res,
          page('Widget options', '## Colour\n\nPass `colour="blue"` to `configure_widget` to paint a widget blue.'),
          'text/markdown',
        );
      case '/beta/docs/llms-full.txt':
        return text(
          res,
          '# Beta\n\nBeta makes gadgets.\n\n## Gadget sizes\n\nCall `resize_gadget(size)` to change the size of a gadget.\n',
        );
      case '/gamma/home/llms.txt':
        return text(res, llmsTxt('Gamma', `${origin}/gamma/home`));
      case '/html/docs/llms.txt':
        return text(res, '<!DOCTYPE html><html><body><form>Please sign in</form></body></html>', 'text/html');
      case '/acme/llms.txt':
        return text(res, llmsTxt('Acme Widgets', `${origin}/acme`));
      // a documentation site of HTML pages only (no llms.txt, no sitemap): the crawl follows its links
      case '/epsilon/docs/':
        return text(
          res,
          '<html><head><title>Epsilon</title></head><body><nav><a href="/epsilon/docs/">Home</a></nav><main><h1>Epsilon</h1><p>Epsilon renders sprites.</p><p>See <a href="/epsilon/docs/sprites/">Sprites</a>.</p></main></body></html>',
          'text/html',
        );
      case '/epsilon/docs/sprites/':
        return text(
          res,
          '<html><head><title>Sprites</title></head><body><main><h1>Sprites</h1><h2>Flipping sprites</h2><p>Call <code>flip_sprite(sprite, axis)</code> to mirror a sprite along an axis.</p></main></body></html>',
          'text/html',
        );
      default:
        res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Not found</body></html>');
    }
  });
  return promise.then((site) => {
    origin = site.origin;
    return site;
  });
}

const release = (version: string, uploadedAt = '2025-03-01T10:00:00Z') => ({ version, uploadedAt });

/** PyPI projects whose URLs point at the {@link docsSite}. */
export function pypiProjects(origin: string): FakePypiProject[] {
  return [
    {
      name: 'alpha-docs',
      summary: 'Alpha makes widgets.',
      projectUrls: {
        Documentation: `${origin}/alpha/docs/`,
        Source: 'https://github.com/example/alpha-docs',
      },
      releases: [release('1.0.0', '2024-01-01T00:00:00Z'), release('1.2.0')],
    },
    {
      name: 'epsilon-html',
      summary: 'Epsilon renders sprites.',
      projectUrls: { Documentation: `${origin}/epsilon/docs/` },
      releases: [release('2.0.0')],
    },
    {
      name: 'Beta_Full',
      summary: 'Beta makes gadgets.',
      projectUrls: { Documentation: `${origin}/beta/docs/index.html` },
      releases: [release('0.3.1')],
    },
    {
      name: 'gamma',
      summary: 'Gamma.',
      homePage: `${origin}/gamma/home`,
      projectUrls: { Documentation: `${origin}/gamma/docs` },
      releases: [release('2.0.0')],
    },
    {
      name: 'delta-none',
      summary: 'Delta has no llms.txt.',
      homePage: `${origin}/delta`,
      projectUrls: { Documentation: `${origin}/delta/docs/`, Source: 'https://github.com/example/delta' },
      releases: [release('5.1.0')],
    },
    {
      name: 'html-login',
      summary: 'Its docs site answers every path with a login page.',
      projectUrls: { Documentation: `${origin}/html/docs` },
      releases: [release('1.0.0')],
    },
    {
      name: 'repo-only',
      summary: 'Only a repository.',
      homePage: 'https://github.com/example/repo-only',
      releases: [release('0.1.0')],
    },
    {
      name: 'both-places',
      summary: 'The Python one, without docs.',
      projectUrls: { Documentation: `${origin}/delta/docs/` },
      releases: [release('1.0.0')],
    },
  ];
}

/** npm packages whose URLs point at the {@link docsSite}. */
export function npmPackages(origin: string): FakeNpmPackage[] {
  return [
    {
      name: '@acme/widgets',
      description: 'Acme widgets for the browser.',
      homepage: `${origin}/acme`,
      repository: { type: 'git', url: 'git+https://github.com/acme/widgets.git' },
      versions: [{ version: '3.4.0', publishedAt: '2025-02-01T00:00:00.000Z' }],
    },
    {
      name: 'both-places',
      description: 'The JavaScript one, with docs.',
      homepage: `${origin}/acme`,
      versions: [{ version: '2.0.0', publishedAt: '2025-02-01T00:00:00.000Z' }],
    },
  ];
}

/** A loopback world: doc site, fake PyPI, fake npm; closed after each test. */
export interface World {
  site: LoopbackSite;
  pypi: FakeRegistry;
  npm: FakeRegistry;
}

const opened: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of opened.splice(0).reverse()) await close();
});

export async function startWorld(): Promise<World> {
  const site = await docsSite();
  const pypi = await startFakePypi(pypiProjects(site.origin));
  const npm = await startFakeNpm(npmPackages(site.origin));
  opened.push(
    () => site.close(),
    () => pypi.close(),
    () => npm.close(),
  );
  return { site, pypi, npm };
}

/** A temporary directory removed after the test. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pc-discovery-'));
  opened.push(async () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A test kernel with the fake registries configured (and discovery), stopped after the test. */
export async function startKernel(
  world: World,
  options: { plugins?: AnyPlugin[]; config?: Record<string, unknown>; registries?: ('pypi' | 'npm')[] } = {},
): Promise<StartedKernel> {
  const registries = options.registries ?? ['pypi', 'npm'];
  const kernel = await createTestKernel({
    plugins: [
      ...(registries.includes('pypi') ? [pypiPlugin] : []),
      ...(registries.includes('npm') ? [npmPlugin] : []),
      discoveryPlugin,
      ...(options.plugins ?? []),
    ],
    config: {
      registries: {
        ...(registries.includes('pypi') ? { pypi: { url: world.pypi.url, reuseSeconds: 0 } } : {}),
        ...(registries.includes('npm') ? { npm: { url: world.npm.url, reuseSeconds: 0 } } : {}),
      },
      http: { retries: 0 },
      ...options.config,
    },
  });
  opened.push(() => kernel.stop());
  return kernel;
}

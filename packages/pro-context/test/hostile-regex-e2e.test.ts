import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LoopbackSite, startLoopbackSite } from '@pro-context/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, connectStdio, offlineRegistries } from './helpers.js';

type Connection = Awaited<ReturnType<typeof connectStdio>>;

// Pages that froze the server on the regexes that read fetched markdown (issue #25): each on the old code held
// the event loop for hours (the exponential ones at these sizes), over a minute, or failed the library.
const HOSTILE: Record<string, { what: string; body: string }> = {
  jsx: {
    what: 'a JSX-like line of 40 self-closing tags with a tab (exponential: 27 took 4.7 s, each 2 more x4)',
    body: `# JSX page\n\nBefore.\n\n${'<A\t/>'.repeat(40)}A\n\nAfter.\n`,
  },
  comments: {
    what: 'a page opening with 40 empty HTML comments (exponential: 213 bytes took 14 s, 241 bytes minutes)',
    body: `${'<!---->'.repeat(40)}\n# Comment page\n\nText after the comments.\n`,
  },
  spaces: {
    what: 'a line of 99,000 spaces then `x ` (quadratic: 100,000 took 11-15 s; under engine.pages.maxLineLength, so the regex path is what is tested)',
    body: `# Spaces page\n\n${' '.repeat(99_000)}x \n\nText after the spaces.\n`,
  },
  container: {
    what: 'a `:::` container line with 3,000 tabs (cubic: 2,000 took 20 s)',
    body: `# Container page\n\n:::\t${'\t'.repeat(3_000)}\n\nText after the container.\n`,
  },
  dashes: {
    what: 'a line of 3 M `-` (RangeError in the thematic-break regex: the library failed on every retry)',
    body: `# Dash page\n\nText before the rule.\n\n${'-'.repeat(3_000_000)}\n`,
  },
};

const normalPage = (name: string): string =>
  `# Normal page\n\nThe ${name} library's ordinary page: configure the widget with \`widget.setup(${name}marker)\`.\n`;

const skip = !existsSync(cliPath) ? 'packages/pro-context/dist/bin/pro-context.js is not built' : undefined;

describe.skipIf(skip)(
  `hostile markdown pages through the built stdio server${skip ? ` (skipped: ${skip})` : ''}`,
  () => {
    let site: LoopbackSite;
    let dir: string;
    let server: Connection;

    beforeAll(async () => {
      site = await startLoopbackSite((path, res) => {
        const [, lib, file] = /^\/([a-z]+)\/(.*)$/.exec(path) ?? [];
        if (!lib || !(lib in HOSTILE || lib === 'plain')) return void res.writeHead(404).end();
        const md = { 'content-type': 'text/markdown; charset=utf-8' };
        if (file === 'llms.txt') {
          const pages = [`- [Normal](${site.origin}/${lib}/normal.md): the ordinary page`];
          if (lib !== 'plain') pages.push(`- [Hostile](${site.origin}/${lib}/hostile.md): ${HOSTILE[lib]?.what}`);
          res
            .writeHead(200, { 'content-type': 'text/plain; charset=utf-8' })
            .end(`# ${lib}\n\n> The ${lib} test library.\n\n## Docs\n\n${pages.join('\n')}\n`);
        } else if (file === 'normal.md') res.writeHead(200, md).end(normalPage(lib));
        else if (file === 'hostile.md' && lib !== 'plain') res.writeHead(200, md).end(HOSTILE[lib]?.body);
        else res.writeHead(404).end();
      });
      dir = mkdtempSync(join(tmpdir(), 'pc-hostile-'));
      const libraries = [...Object.keys(HOSTILE), 'plain'].map((id) => ({
        id,
        name: `${id} docs`,
        language: 'javascript',
        llmsTxtUrl: `${site.origin}/${id}/llms.txt`,
      }));
      const config = {
        security: { allowPrivateNetwork: true },
        http: { retryDelaysMs: [10, 20], timeoutMs: 10_000 },
        cache: { directory: join(dir, 'cache') },
        ...offlineRegistries,
        project: { autoDetect: false },
        libraries,
      };
      const configFile = join(dir, 'pro-context.config.yaml');
      writeFileSync(configFile, JSON.stringify(config, null, 2));
      server = await connectStdio(configFile);
    });

    afterAll(async () => {
      await server?.close();
      await site?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const text = (result: { content: unknown[] }): string =>
      (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('\n');

    for (const [lib, { what }] of Object.entries(HOSTILE)) {
      it(`get-docs answers beside ${what}, and a concurrent call answers too`, async () => {
        // the concurrent call starts while the hostile library is fetched and indexed; on the old code it waited
        // behind the frozen event loop (or the test timed out first)
        const [docs, other] = await Promise.all([
          server.call('get-docs', { libraryId: lib, topic: 'configure the widget' }),
          server.call('get-docs', { libraryId: 'plain', topic: 'configure the widget' }),
        ]);
        expect(docs.isError, text(docs)).toBeFalsy();
        expect(text(docs)).toContain(`widget.setup(${lib}marker)`);
        expect(other.isError, text(other)).toBeFalsy();
        expect(text(other)).toContain('widget.setup(plainmarker)');
      }, 120_000);
    }

    it('read-page answers the trailing-spaces page, and again (the work is not repeated at the old cost)', async () => {
      const url = `${site.origin}/spaces/hostile.md`;
      for (let i = 0; i < 2; i += 1) {
        const [page, other] = await Promise.all([
          server.call('read-page', { url, maxTokens: 1000 }),
          server.call('resolve-library', { query: 'plain docs' }),
        ]);
        expect(page.isError, text(page)).toBeFalsy();
        expect(text(page)).toContain('Spaces page');
        expect(other.isError, text(other)).toBeFalsy();
      }
    }, 120_000);

    it('search-docs answers over the library that holds the 3 M `-` line', async () => {
      const result = await server.call('search-docs', { query: 'configure the widget', libraryId: 'dashes' });
      expect(result.isError, text(result)).toBeFalsy();
      expect(text(result)).toContain('dashesmarker');
    }, 120_000);
  },
);

import { existsSync, readFileSync } from 'node:fs';
import { startLoopbackSite } from '@pro-context/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, connectStdio, errorOf, writeProject } from './helpers.js';

// (no corpus needed: the site is made here)
const skipReason = existsSync(cliPath) ? undefined : 'packages/pro-context/dist/bin/pro-context.js is not built';

type Connection = Awaited<ReturnType<typeof connectStdio>>;
type Site = Awaited<ReturnType<typeof startLoopbackSite>>;

const page = (title: string, body: string) =>
  `<!DOCTYPE html><html><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;

/** A normal documentation page, beside the hostile ones. */
const normal = page(
  'Retries',
  `<p>${'The client retries a failed request with exponential backoff, up to the configured retry limit. '.repeat(8)}</p>
<h2>Backoff factor</h2><p>Set <code>backoff_factor</code> to change the delay between attempts of the retrying transport.</p>`,
);
/** `depth` nested `<div>`s around a paragraph. */
const deep = (depth: number) =>
  page(
    `Deep ${depth}`,
    `${'<div>'.repeat(depth)}<p>nested text</p>${'</div>'.repeat(depth)}<p>${'words '.repeat(80)}</p>`,
  );
/** About `bytes` of ordinary paragraphs: a page far larger than documentation pages are. */
const paragraph =
  '<p>Some documentation text with <a href="/docs/retries.html">a link</a> and <code>code</code>.</p>\n';
const large = (bytes: number) => page('Large', paragraph.repeat(Math.ceil(bytes / paragraph.length)));

/** Peak resident memory of a process (Linux: VmHWM), MB. */
function peakRssMB(pid: number): number | undefined {
  try {
    const kb = /VmHWM:\s+(\d+)\s*kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

// Fetched content is hostile: a page nested tens of thousands of elements deep, or megabytes long, is refused with a
// coded error naming the limit and its setting, without failing the library it belongs to, without holding up the
// other calls, and within bounded memory (issue #25).
describe.skipIf(skipReason)(
  `hostile HTML pages, through the stdio server${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let site: Site;
    let server: Connection;
    let project: ReturnType<typeof writeProject>;
    const pages: Record<string, string> = {};

    beforeAll(async () => {
      pages['/docs/retries.html'] = normal;
      for (const depth of [1500, 20_000, 50_000]) pages[`/docs/deep-${depth}.html`] = deep(depth);
      pages['/docs/huge.html'] = large(7 * 1024 * 1024);
      // about 0.7 MB and 24,000 elements: under every cap, seconds of conversion work
      pages['/docs/heavy.html'] = page('Large', paragraph.repeat(8000));
      site = await startLoopbackSite((path, res) => {
        if (path === '/llms.txt') {
          const listed = ['retries', 'deep-1500', 'deep-20000', 'deep-50000', 'huge', 'moved', 'gone'];
          res
            .writeHead(200, { 'content-type': 'text/plain' })
            .end(
              `# Hostile\n\n> Docs with hostile pages beside a normal one.\n\n## Docs\n\n${listed
                .map((name) => `- [${name}](${site.origin}/docs/${name}.html)`)
                .join('\n')}\n`,
            );
          return;
        }
        // a listed page that redirects to the cloud metadata address: refused before any connection is made
        if (path === '/docs/moved.html') {
          res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
          return;
        }
        const body = pages[path];
        if (body) res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
        else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      });
      project = writeProject({ siteUrl: () => site.origin, llmsTxtUrl: () => `${site.origin}/llms.txt` } as never, {
        libraries: [{ id: 'hostile', name: 'Hostile', language: 'python', llmsTxtUrl: `${site.origin}/llms.txt` }],
      });
      server = await connectStdio(project.configFile);
    }, 60_000);

    afterAll(async () => {
      await server?.close();
      await site?.close();
      project?.cleanup();
    });

    it('indexes the library without its hostile pages, and says which were left out, why and which setting', async () => {
      const answer = await server.call('get-docs', { libraryId: 'hostile', topic: 'backoff factor retries' });
      expect(answer.isError).toBeFalsy();
      const docs = answer.structuredContent as { content: string; notes?: string[] };
      expect(docs.content).toContain('backoff_factor');
      const notes = (docs.notes ?? []).join('\n');
      for (const depth of [1500, 20_000, 50_000]) expect(notes).toContain(`/docs/deep-${depth}.html`);
      expect(notes).toContain('engine.pages.maxDepth');
      // (refused as it arrived: the body was not read past the limit)
      expect(notes).toMatch(
        /\/docs\/huge\.html is larger than the limit of 5000000 bytes .*\(setting engine\.pages\.maxBytes\)/,
      );
      // the text an agent reads says so too
      expect((answer.content[0] as { text: string }).text).toContain('Note: Left out of the index: The page');
      // a page that could not be fetched is named with the code of the refusal
      expect(notes).toMatch(/\/docs\/moved\.html.*169\.254\.169\.254.* \(URL_NOT_ALLOWED\)\./);
      // a listed page the site does not have (404) is no content missing: no note
      expect(notes).not.toContain('/docs/gone.html');

      const resolved = await server.call('resolve-library', { query: 'hostile' });
      expect(resolved.isError).toBeFalsy();
      const r = resolved.structuredContent as { notes?: string[]; toc: unknown[] };
      expect(r.toc.length).toBe(7);
      expect((r.notes ?? []).join('\n')).toContain('engine.pages.maxDepth');
    }, 120_000);

    it('answers read-page of each deep page with PAGE_TOO_COMPLEX at once, and the normal page beside them', async () => {
      for (const depth of [1500, 20_000, 50_000]) {
        const error = errorOf(await server.call('read-page', { url: `${site.origin}/docs/deep-${depth}.html` }));
        expect(error.code).toBe('PAGE_TOO_COMPLEX');
        expect(error.message).toContain(`/docs/deep-${depth}.html nests HTML elements more than`);
        expect(error.message).toContain('engine.pages.maxDepth');
      }
      const read = await server.call('read-page', { url: `${site.origin}/docs/retries.html` });
      expect(read.isError).toBeFalsy();
      expect((read.structuredContent as { content: string }).content).toContain('# Retries');
    }, 120_000);

    it('refuses the 7 MB page with PAGE_TOO_LARGE, answers the next call from the cached verdict, and stays small', async () => {
      const url = `${site.origin}/docs/huge.html`;
      const first = errorOf(await server.call('read-page', { url }));
      expect(first.code).toBe('PAGE_TOO_LARGE');
      expect(first.message).toContain('engine.pages.maxBytes');
      const fetched = site.hits.filter((hit) => hit === '/docs/huge.html').length;
      const again = await server.call('read-page', { url });
      const second = errorOf(again);
      expect(second.code).toBe('PAGE_TOO_LARGE');
      expect(second.message).toBe(first.message);
      // the verdict came from the cache: the page was not asked for again
      expect(site.hits.filter((hit) => hit === '/docs/huge.html').length).toBe(fetched);
      // the whole server, having indexed and read the 7 MB page (old code: 936-1,301 MB)
      const peak = server.pid ? peakRssMB(server.pid) : undefined;
      if (peak !== undefined) expect(peak).toBeLessThan(400);
    }, 120_000);

    it('answers a cached call while another client’s heavy page is being converted', async () => {
      const done: string[] = [];
      const heavy = server.call('read-page', { url: `${site.origin}/docs/heavy.html` }).then((result) => {
        done.push('heavy');
        return result;
      });
      // the heavy page is on its way to the page worker (fetched in milliseconds, then seconds of conversion)
      await new Promise((resolve) => setTimeout(resolve, 300));
      const cached = await server.call('read-page', { url: `${site.origin}/docs/retries.html` });
      done.push('cached');
      expect(cached.isError).toBeFalsy();
      expect((cached.structuredContent as { cached: boolean }).cached).toBe(true);
      const result = await heavy;
      // the heavy page converts, or is refused over its time budget: either way with an answer, not a stall
      if (result.isError) expect(errorOf(result).code).toBe('PAGE_TOO_COMPLEX');
      else expect((result.structuredContent as { content: string }).content).toContain('# Large');
      expect(done).toEqual(['cached', 'heavy']);
    }, 120_000);
  },
);

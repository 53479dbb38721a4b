import { ProContextError, type SourceAdapter, type StartedKernel, sourceAdapterToken } from '@pro-context/kernel';
import { catalogErrorOf, createTestKernel, type LoopbackSite, startLoopbackSite } from '@pro-context/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { llmsTxtPlugin } from '../src/index.js';

// `site` (127.0.0.1) publishes an llms.txt; `internal` (127.0.0.2) plays a host the caller refuses.

const page = '# A page\n\nThe page read from the site itself, with enough text to count as content.\n';
const secret = '# Internal\n\nsecret = do-not-leak-this\n';

let site: LoopbackSite;
let internal: LoopbackSite;
let kernel: StartedKernel;
let adapter: SourceAdapter;

/** The caller's check: only the site's own origin may be redirected to. */
const allowUrl = (url: URL) => {
  if (url.origin !== site.origin) throw new ProContextError('URL_NOT_ALLOWED', `${url.host} is refused.`);
};

beforeAll(async () => {
  internal = await startLoopbackSite((path, res) => {
    res.writeHead(200, { 'content-type': 'text/markdown' }).end(path === '/secret' ? secret : page);
  }, '127.0.0.2');
  site = await startLoopbackSite((path, res) => {
    if (path === '/llms.txt') {
      const links = ['hop', 'twin', 'old'].map((name) => `- [${name}](${site.origin}/${name}): a page`);
      res
        .writeHead(200, { 'content-type': 'text/plain' })
        .end(['# Site', '', '> Docs.', '', '## Docs', '', ...links, ''].join('\n'));
    } else if (path === '/hop' || path === '/twin.md') {
      res.writeHead(302, { location: `${internal.origin}/secret` }).end();
    } else if (path === '/twin' || path === '/new') {
      res.writeHead(200, { 'content-type': 'text/markdown' }).end(page);
    } else if (path === '/old') res.writeHead(301, { location: '/new' }).end();
    else res.writeHead(404).end();
  });
  kernel = await createTestKernel({ plugins: [llmsTxtPlugin] });
  const found = kernel.resolveAll(sourceAdapterToken).find((a) => a.id === 'llms-txt');
  if (!found) throw new Error('llms-txt adapter not bound');
  adapter = found;
  await adapter.fetchToc({ id: 'site', name: 'Site', docsUrl: site.origin }, 'latest');
  site.hits.length = 0;
});

afterEach(() => {
  site.hits.length = 0;
  internal.hits.length = 0;
});

afterAll(async () => {
  await kernel.stop();
  await Promise.all([site.close(), internal.close()]);
});

const fetchPage = (path: string, withCheck = true) => {
  if (!adapter.fetchPage) throw new Error('llms-txt adapter has no fetchPage');
  return adapter.fetchPage(new URL(`${site.origin}/${path}`), withCheck ? { allowUrl } : {});
};

describe('llms-txt fetchPage applies the caller’s redirect check (FetchContext.allowUrl)', () => {
  it('refuses a redirect the check refuses, before connecting to its target', async () => {
    const error = await catalogErrorOf(fetchPage('hop'));
    expect(error.code).toBe('URL_NOT_ALLOWED');
    expect(error.message).toBe(`${new URL(internal.origin).host} is refused.`);
    expect(site.hits).toEqual(['/hop.md', '/hop']);
    expect(internal.hits).toEqual([]);
  });

  it('passes over a markdown twin whose redirect is refused and reads the page itself', async () => {
    const result = await fetchPage('twin');
    expect(result.finalUrl).toBe(`${site.origin}/twin`);
    expect(result.markdown).toContain('read from the site itself');
    expect(site.hits).toEqual(['/twin.md', '/twin']);
    expect(internal.hits).toEqual([]);
  });

  it('follows a redirect the check allows', async () => {
    const result = await fetchPage('old');
    expect(result.finalUrl).toBe(`${site.origin}/new`);
    expect(result.markdown).toContain('read from the site itself');
  });

  it('follows redirects as before when the caller gives no check', async () => {
    const result = await fetchPage('hop', false);
    expect(result.finalUrl).toBe(`${internal.origin}/secret`);
    expect(internal.hits).toEqual(['/secret']);
  });
});

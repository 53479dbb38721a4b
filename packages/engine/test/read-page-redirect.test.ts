import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type AnyPlugin,
  definePlugin,
  KERNEL_VERSION,
  type PageResult,
  type StartedKernel,
  sourceAdapterToken,
} from '@pro-context/kernel';
import { catalogErrorOf, createTestKernel, StaticSourceAdapter } from '@pro-context/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { docsEngineToken, enginePlugin } from '../src/index.js';

// Two loopback servers: `docs` is in the read-page allowlist, `inner` plays an internal host that is not.
interface Fake {
  server: http.Server;
  origin: string;
  hits: string[];
}

async function listen(handler: (path: string, res: http.ServerResponse) => void, host = '127.0.0.1'): Promise<Fake> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    hits.push(path);
    handler(path, res);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { server, origin: `http://${host}:${(server.address() as AddressInfo).port}`, hits };
}

async function close(fake: Fake): Promise<void> {
  fake.server.closeAllConnections();
  await new Promise<void>((resolve) => fake.server.close(() => resolve()));
}

const secret = '# Instance metadata\n\naws_secret_access_key = do-not-leak-this\n';
const page = '# Moved page\n\nThe page that lives at its new address, with enough text to count as content.\n';

let docs: Fake;
let inner: Fake;
let kernel: StartedKernel | undefined;

beforeAll(async () => {
  inner = await listen((path, res) => {
    if (path === '/metadata') res.writeHead(200, { 'content-type': 'text/markdown' }).end(secret);
    else res.writeHead(404).end();
  });
  docs = await listen((path, res) => {
    if (path === '/escape') res.writeHead(302, { location: `${inner.origin}/metadata` }).end();
    else if (path === '/twin.md') res.writeHead(302, { location: `${inner.origin}/metadata` }).end();
    else if (path === '/twin') res.writeHead(200, { 'content-type': 'text/markdown' }).end(page);
    else if (path === '/old') res.writeHead(301, { location: '/new.md' }).end();
    else if (path === '/new.md') res.writeHead(200, { 'content-type': 'text/markdown' }).end(page);
    else res.writeHead(404).end();
  });
});

afterEach(async () => {
  await kernel?.stop();
  kernel = undefined;
  docs.hits.length = 0;
  inner.hits.length = 0;
});

afterAll(async () => {
  await Promise.all([close(docs), close(inner)]);
});

async function engine() {
  kernel = await createTestKernel({
    plugins: [enginePlugin],
    // loopback is reachable (the network guard is off), so only the allowlist stands between the two hosts
    config: { security: { allowPrivateNetwork: true, urlAllowlist: [`${docs.origin}/`] } },
  });
  return kernel.resolve(docsEngineToken);
}

describe('read-page holds every redirect hop to the allowlist', () => {
  it('refuses the internal host when asked for it directly', async () => {
    const error = await catalogErrorOf((await engine()).readPage(`${inner.origin}/metadata`, 2000, 0));
    expect(error.code).toBe('URL_NOT_ALLOWED');
    expect(inner.hits).toEqual([]);
  });

  it('refuses an allowlisted page that redirects to a host outside the allowlist, without fetching it', async () => {
    const error = await catalogErrorOf((await engine()).readPage(`${docs.origin}/escape`, 2000, 0));
    expect(error.code).toBe('URL_NOT_ALLOWED');
    expect(error.message).toBe(
      `${docs.origin}/escape redirects to ${inner.origin}/metadata, and ${new URL(inner.origin).host} is not in the read-page allowlist.`,
    );
    expect(error.details).toMatchObject({ redirect: `${inner.origin}/metadata` });
    expect(inner.hits).toEqual([]);
  });

  it('skips a .md variant that redirects off the allowlist and reads the page itself', async () => {
    const slice = await (await engine()).readPage(`${docs.origin}/twin`, 2000, 0);
    expect(slice.url).toBe(`${docs.origin}/twin`);
    expect(slice.content).toContain('lives at its new address');
    expect(docs.hits).toEqual(['/twin.md', '/twin']);
    expect(inner.hits).toEqual([]);
  });

  it('still follows a redirect that stays inside the allowlist, and reports the final URL', async () => {
    const slice = await (await engine()).readPage(`${docs.origin}/old`, 2000, 0);
    expect(slice.url).toBe(`${docs.origin}/new.md`);
    expect(slice.title).toBe('Moved page');
    expect(slice.content).toContain('lives at its new address');
  });
});

describe('read-page holds the redirects of a page an adapter owns to the allowlist', () => {
  // `site` publishes an llms.txt, so the llms-txt adapter owns the pages it lists and fetches them itself;
  // `internal` (another loopback address) plays a host the agent may not reach.
  let site: Fake;
  let internal: Fake;

  beforeAll(async () => {
    internal = await listen((path, res) => {
      if (path === '/secret') res.writeHead(200, { 'content-type': 'text/markdown' }).end(secret);
      else res.writeHead(404).end();
    }, '127.0.0.2');
    site = await listen((path, res) => {
      if (path === '/llms.txt') {
        res
          .writeHead(200, { 'content-type': 'text/plain' })
          .end(
            [
              '# Site',
              '',
              '> A documentation site.',
              '',
              '## Docs',
              '',
              `- [Hop](${site.origin}/hop): redirects to an internal host`,
              `- [Twin](${site.origin}/twin): its markdown twin redirects to an internal host`,
              `- [Old](${site.origin}/old): moved within the site`,
              '',
            ].join('\n'),
          );
      } else if (path === '/hop') res.writeHead(302, { location: `${internal.origin}/secret` }).end();
      else if (path === '/twin.md') res.writeHead(302, { location: `${internal.origin}/secret` }).end();
      else if (path === '/twin') res.writeHead(200, { 'content-type': 'text/markdown' }).end(page);
      else if (path === '/old') res.writeHead(301, { location: '/new.md' }).end();
      else if (path === '/new.md') res.writeHead(200, { 'content-type': 'text/markdown' }).end(page);
      else res.writeHead(404).end();
    });
  });

  afterEach(() => {
    site.hits.length = 0;
    internal.hits.length = 0;
  });

  afterAll(async () => {
    await Promise.all([close(site), close(internal)]);
  });

  /** The engine with the llms-txt adapter, after the adapter read the site's llms.txt (so it owns its pages). */
  async function engineOwningSite() {
    // The llms-txt plugin is not a dependency of the engine: its source is loaded by path, through a
    // specifier tsc does not follow (the engine's typecheck stays within the engine).
    const llmsTxtSource = new URL('../../../plugins/llms-txt/src/index.ts', import.meta.url).href;
    const { llmsTxtPlugin } = (await import(llmsTxtSource)) as { llmsTxtPlugin: AnyPlugin };
    kernel = await createTestKernel({
      plugins: [enginePlugin, llmsTxtPlugin],
      config: { security: { allowPrivateNetwork: true } },
    });
    const adapter = kernel.resolveAll(sourceAdapterToken).find((a) => a.id === 'llms-txt');
    if (!adapter?.ownsUrl) throw new Error('llms-txt adapter not bound');
    await adapter.fetchToc({ id: 'site', name: 'Site', docsUrl: site.origin }, 'latest');
    expect(adapter.ownsUrl(new URL(`${site.origin}/hop`))).toBe(true);
    site.hits.length = 0;
    return kernel.resolve(docsEngineToken);
  }

  it('refuses a listed page that redirects off the allowlist without connecting to the target', async () => {
    const error = await catalogErrorOf((await engineOwningSite()).readPage(`${site.origin}/hop`, 2000, 0));
    expect(error.code).toBe('URL_NOT_ALLOWED');
    expect(error.details).toMatchObject({ redirect: `${internal.origin}/secret` });
    expect(site.hits).toContain('/hop');
    expect(internal.hits).toEqual([]);
  });

  it('skips a markdown twin that redirects off the allowlist and reads the listed page itself', async () => {
    const slice = await (await engineOwningSite()).readPage(`${site.origin}/twin`, 2000, 0);
    expect(slice.content).toContain('lives at its new address');
    expect(site.hits).toEqual(['/twin.md', '/twin']);
    expect(internal.hits).toEqual([]);
  });

  it('still refuses the page of an adapter that ignores the hop check and ends up off the allowlist', async () => {
    // A third-party adapter that follows redirects on its own: the target was reached, but its content is not handed out.
    class CarelessAdapter extends StaticSourceAdapter {
      override async fetchPage(url: URL): Promise<PageResult> {
        return { ...(await super.fetchPage(url)), finalUrl: `${internal.origin}/secret`, markdown: secret };
      }
    }
    const adapter = new CarelessAdapter('careless', {
      acme: { pages: [{ title: 'Hop', url: `${site.origin}/hop`, markdown: page }] },
    });
    kernel = await createTestKernel({
      plugins: [
        enginePlugin,
        definePlugin({
          id: 'careless-docs',
          kernel: `>=${KERNEL_VERSION}`,
          register: (ctx) => ctx.bindValue(sourceAdapterToken, adapter),
        }),
      ],
      config: { security: { allowPrivateNetwork: true } },
    });
    const error = await catalogErrorOf(kernel.resolve(docsEngineToken).readPage(`${site.origin}/hop`, 2000, 0));
    expect(error.code).toBe('URL_NOT_ALLOWED');
    expect(adapter.calls.fetchPage).toBe(1);
  });

  it('still follows a listed page redirect that stays on the site', async () => {
    const slice = await (await engineOwningSite()).readPage(`${site.origin}/old`, 2000, 0);
    expect(slice.url).toBe(`${site.origin}/new.md`);
    expect(slice.content).toContain('lives at its new address');
    expect(internal.hits).toEqual([]);
  });
});

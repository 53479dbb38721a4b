import { docsEngineToken, enginePlugin } from '@pro-context/engine';
import {
  definePlugin,
  KERNEL_VERSION,
  type PageResult,
  type StartedKernel,
  sourceAdapterToken,
} from '@pro-context/kernel';
import { llmsTxtPlugin } from '@pro-context/plugin-llms-txt';
import {
  catalogErrorOf,
  createTestKernel,
  type LoopbackSite,
  StaticSourceAdapter,
  startLoopbackSite,
} from '@pro-context/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

const secret = '# Instance metadata\n\naws_secret_access_key = do-not-leak-this\n';
const page = '# Moved page\n\nThe page that lives at its new address, with enough text to count as content.\n';

let kernel: StartedKernel | undefined;

afterEach(async () => {
  await kernel?.stop();
  kernel = undefined;
});

describe('read-page holds the redirects of a page an adapter owns to the allowlist', () => {
  // `site` publishes an llms.txt, so the llms-txt adapter owns the pages it lists and fetches them itself;
  // `internal` (another loopback address) plays a host the agent may not reach.
  let site: LoopbackSite;
  let internal: LoopbackSite;

  beforeAll(async () => {
    internal = await startLoopbackSite((path, res) => {
      if (path === '/secret') res.writeHead(200, { 'content-type': 'text/markdown' }).end(secret);
      else res.writeHead(404).end();
    }, '127.0.0.2');
    site = await startLoopbackSite((path, res) => {
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
    await Promise.all([site.close(), internal.close()]);
  });

  /** The engine with the llms-txt adapter, after the adapter read the site's llms.txt (so it owns its pages). */
  async function engineOwningSite() {
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

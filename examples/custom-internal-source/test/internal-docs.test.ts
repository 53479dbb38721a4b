import { fileURLToPath } from 'node:url';
import { createHttpClient } from '@pro-context/http';
import { createKernel, createSilentLogger, definePlugin, sourceAdapterToken } from '@pro-context/kernel';
import { describeSourceAdapterContract } from '@pro-context/testing';
import { describe, expect, it } from 'vitest';
import { InternalDocsAdapter, internalDocsPlugin } from '../src/index.js';

const docsPath = fileURLToPath(new URL('../docs', import.meta.url));
const library = { id: 'acme/billing-sdk', name: 'Billing SDK' };
const options = {
  libraries: [{ ...library, path: docsPath, baseUrl: 'https://docs.acme.internal/billing/' }],
};

describeSourceAdapterContract('internal-docs example', {
  create: () => new InternalDocsAdapter(options),
  library,
  foreignLibrary: { id: 'someone/else', name: 'Else' },
});

describe('internal-docs composed with the kernel', () => {
  it('is configured from the config file section and bound as a source adapter', async () => {
    const kernel = await createKernel({
      createHttpClient,
      logger: createSilentLogger(),
      config: { sources: { internalDocs: options } },
    })
      .use(internalDocsPlugin)
      .start();
    const adapters = kernel.resolveAll(sourceAdapterToken);
    expect(adapters.map((a) => a.id)).toEqual(['internal-docs']);
    const toc = await adapters[0]!.fetchToc(library, 'latest');
    expect(toc.entries.map((e) => e.title)).toEqual(['Retries and idempotency', 'Webhooks', 'Billing SDK']);
    expect(toc.entries[0]).toMatchObject({
      url: 'https://docs.acme.internal/billing/guides/retries',
      section: 'guides',
    });
    await kernel.stop();
  });

  it('serves a page it owns and refuses paths that leave its folder', async () => {
    const adapter = new InternalDocsAdapter(options);
    const page = await adapter.fetchPage(new URL('https://docs.acme.internal/billing/guides/webhooks'));
    expect(page.markdown).toContain('Acme-Signature');
    await expect(
      adapter.fetchPage(new URL('https://docs.acme.internal/billing/..%2f..%2fpackage')),
    ).rejects.toMatchObject({
      code: 'PAGE_NOT_FOUND',
    });
  });

  it('reports bad options with the exact key', async () => {
    const start = createKernel({
      createHttpClient,
      logger: createSilentLogger(),
      config: {
        sources: { internalDocs: { libraries: [{ id: 'x', name: 'X', path: '/tmp', baseUrl: 'not a url' }] } },
      },
    })
      .use(internalDocsPlugin)
      .start();
    await expect(start).rejects.toThrow(/sources\.internalDocs\.libraries\.0\.baseUrl: Invalid URL/);
  });

  it('needs nothing but the kernel', async () => {
    const pkg = (await import('../package.json', { with: { type: 'json' } })).default as {
      dependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
    };
    expect(Object.keys(pkg.dependencies ?? {})).toEqual([]);
    expect(Object.keys(pkg.peerDependencies ?? {})).toEqual(['@pro-context/kernel']);
    expect(definePlugin).toBeTypeOf('function');
  });
});

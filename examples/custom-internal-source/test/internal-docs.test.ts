import { fileURLToPath } from 'node:url';
import { docsEngineToken, enginePlugin } from '@pro-context/engine';
import { createHttpClient } from '@pro-context/http';
import { libraryProviderToken, type StartedKernel, sourceAdapterToken, toolPluginToken } from '@pro-context/kernel';
import { createSilentLogger } from '@pro-context/logging';
import { createKernel } from '@pro-context/runtime';
import { createTestKernel, describeSourceAdapterContract } from '@pro-context/testing';
import { afterEach, describe, expect, it } from 'vitest';
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
  });
});

describe('internal-docs answered through the engine (its LibraryProvider makes the library known)', () => {
  const kernels: StartedKernel[] = [];
  afterEach(async () => {
    await Promise.all(kernels.splice(0).map((k) => k.stop()));
  });

  /** The real engine plugin with this plugin, configured only by its own section: no `libraries:` entry. */
  async function start(config: Record<string, unknown> = {}) {
    const kernel = await createTestKernel({
      plugins: [enginePlugin, internalDocsPlugin],
      config: {
        sources: { internalDocs: { libraries: [{ ...options.libraries[0], aliases: ['acme billing'] }] } },
        ...config,
      },
    });
    kernels.push(kernel);
    const tools = kernel.resolveAll(toolPluginToken).flatMap((p) => p.tools());
    const call = async (name: string, args: Record<string, unknown>) => {
      const tool = tools.find((t) => t.name === name);
      if (!tool) throw new Error(`${name} is not installed`);
      const result = await tool.handler(tool.inputSchema.parse(args), {
        signal: new AbortController().signal,
        logger: kernel.logger,
        progress: async () => undefined,
      });
      expect(tool.outputSchema?.safeParse(result.structured).success).toBe(true);
      return result;
    };
    return { kernel, call };
  }

  it('binds a library provider beside the source adapter', async () => {
    const { kernel } = await start();
    const provider = kernel.resolveAll(libraryProviderToken).find((p) => p.id === 'internal-docs');
    expect(provider?.libraries()).toEqual([
      {
        id: 'acme/billing-sdk',
        name: 'Billing SDK',
        aliases: ['acme billing'],
        categories: ['internal'],
        source: 'internal-docs',
      },
    ]);
  });

  it('resolve-library finds the library by name and lists its TOC from the folder', async () => {
    const { call } = await start();
    const resolved = (await call('resolve-library', { query: 'billing sdk' })).structured as {
      libraryId: string;
      sources: string[];
      toc: { title: string; url: string }[];
    };
    expect(resolved.libraryId).toBe('acme/billing-sdk');
    expect(resolved.sources).toEqual(['internal-docs']);
    expect(resolved.toc.map((e) => e.title)).toEqual(['Retries and idempotency', 'Webhooks', 'Billing SDK']);
  });

  it('get-docs answers from its markdown, citing the page it came from', async () => {
    const { call } = await start();
    const answer = await call('get-docs', { libraryId: 'acme/billing-sdk', topic: 'verify webhook signature' });
    const structured = answer.structured as { content: string; source: string };
    expect(structured.content).toContain('Acme-Signature');
    expect(structured.source).toMatch(/^https:\/\/docs\.acme\.internal\/billing\/guides\/webhooks/);
    // and read-page reads its pages through the adapter, never the network
    const page = await call('read-page', { url: 'https://docs.acme.internal/billing/guides/retries' });
    expect(page.text).toMatch(/idempotency/i);
  });

  it("lets the configuration override the plugin's library field by field", async () => {
    const { kernel } = await start({
      project: { libraryOverrides: { 'acme/billing-sdk': { description: 'Acme billing, internal.' } } },
    });
    const library = kernel
      .resolve(docsEngineToken)
      .libraries()
      .find((l) => l.id === 'acme/billing-sdk');
    expect(library).toMatchObject({
      name: 'Billing SDK',
      description: 'Acme billing, internal.',
      source: 'internal-docs',
    });
  });
});

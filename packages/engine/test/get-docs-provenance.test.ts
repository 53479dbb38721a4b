import {
  type DocsResult,
  definePlugin,
  KERNEL_VERSION,
  type LibraryDescriptor,
  type StartedKernel,
  sourceAdapterToken,
  toolPluginToken,
} from '@pro-context/kernel';
import { createTestKernel, StaticSourceAdapter } from '@pro-context/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { enginePlugin } from '../src/plugin.js';

/** An adapter that writes its fetch time as a bare date, as a hand-written internal adapter might. */
class DateOnlyAdapter extends StaticSourceAdapter {
  override async fetchDocs(library: LibraryDescriptor): Promise<DocsResult> {
    return { ...(await super.fetchDocs(library)), fetchedAt: '2026-11-01' };
  }
}

const kernels: StartedKernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((k) => k.stop()));
});

describe('get-docs provenance', () => {
  it('reports lastUpdated as an ISO date-time whatever form the adapter wrote, and the answer passes its schema', async () => {
    const adapter = new DateOnlyAdapter('internal', {
      acme: {
        pages: [
          {
            url: 'https://docs.acme.test/billing',
            title: 'Billing',
            markdown: '# Billing\n\nCreate an invoice with `acme.invoices.create()`.',
          },
        ],
      },
    });
    const kernel = await createTestKernel({
      plugins: [
        enginePlugin,
        definePlugin({
          id: 'internal-docs',
          kernel: `>=${KERNEL_VERSION}`,
          register: (ctx) => ctx.bindValue(sourceAdapterToken, adapter),
        }),
      ],
      config: { libraries: [{ id: 'acme', name: 'Acme', language: 'python', source: 'internal' }] },
    });
    kernels.push(kernel);
    const tool = kernel
      .resolveAll(toolPluginToken)
      .flatMap((p) => p.tools())
      .find((t) => t.name === 'get-docs');
    if (!tool) throw new Error('get-docs is not installed');
    const result = await tool.handler(tool.inputSchema.parse({ libraryId: 'acme', topic: 'create an invoice' }), {
      signal: new AbortController().signal,
      logger: kernel.logger,
      progress: async () => undefined,
    });
    expect(tool.outputSchema?.safeParse(result.structured).success).toBe(true);
    expect((result.structured as { lastUpdated: string }).lastUpdated).toBe('2026-11-01T00:00:00.000Z');
    expect(result.text).toContain('acme.invoices.create()');
  });
});

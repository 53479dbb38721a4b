import {
  type DocsFallback,
  type DocsResult,
  definePlugin,
  docsFallbackToken,
  KERNEL_VERSION,
  type LibraryDescriptor,
  ProContextError,
  type StartedKernel,
  sourceAdapterToken,
  type ToolContext,
  toolPluginToken,
} from '@pro-context/kernel';
import { withoutDocsFallback } from '@pro-context/plugin-kit';
import { createTestKernel, StaticSourceAdapter } from '@pro-context/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { enginePlugin } from '../src/plugin.js';

/** An adapter whose site does not answer for library `down`. */
class DownAdapter extends StaticSourceAdapter {
  override async fetchDocs(library: LibraryDescriptor): Promise<DocsResult> {
    if (library.id === 'down') throw new ProContextError('SOURCE_UNAVAILABLE', 'docs.down.test did not answer.');
    return super.fetchDocs(library);
  }
}

/** A stand-in fallback recording what it was asked. */
function fallback(available: boolean, asked: string[]): DocsFallback {
  return {
    id: 'context7',
    name: 'Context7',
    available,
    enableHint: 'Set CONTEXT7_API_KEY to answer from Context7.',
    async search(name) {
      asked.push(`search ${name}`);
      return [{ id: '/acme-org/widgets', title: 'Widgets', description: 'Widgets SDK' }];
    },
    async docs({ library, topic }) {
      asked.push(`docs ${library} ${topic}`);
      return {
        libraryId: '/acme-org/widgets',
        title: 'Widgets',
        content: '## Widgets\n\nMake one.',
        url: 'https://context7.test/acme-org/widgets',
      };
    },
  };
}

const kernels: StartedKernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((k) => k.stop()));
});

async function tools(service: DocsFallback | undefined) {
  const kernel = await createTestKernel({
    plugins: [
      enginePlugin,
      definePlugin({
        id: 'internal-docs',
        kernel: `>=${KERNEL_VERSION}`,
        register: (ctx) => {
          ctx.bindValue(
            sourceAdapterToken,
            new DownAdapter('internal', {
              acme: {
                pages: [
                  { url: 'https://docs.acme.test/billing', title: 'Billing', markdown: '# Billing\n\nInvoices.' },
                ],
              },
            }),
          );
          if (service) ctx.bindValue(docsFallbackToken, service);
        },
      }),
    ],
    config: {
      libraries: [
        { id: 'acme', name: 'Acme', language: 'python', source: 'internal' },
        { id: 'down', name: 'Down Widgets', language: 'python', source: 'internal' },
      ],
    },
  });
  kernels.push(kernel);
  const definitions = kernel.resolveAll(toolPluginToken).flatMap((p) => (p.id === 'engine' ? p.tools() : []));
  const context: ToolContext = {
    signal: new AbortController().signal,
    progress: async () => undefined,
    logger: kernel.logger,
  };
  return async (name: string, args: Record<string, unknown>) => {
    const tool = definitions.find((d) => d.name === name);
    if (!tool) throw new Error(name);
    return tool.handler(tool.inputSchema.parse(args), context);
  };
}

describe("the engine's tools with a DocsFallback bound (issue #26)", () => {
  it('get-docs of a library whose docs cannot be fetched answers from the fallback by its name, with provenance', async () => {
    const asked: string[] = [];
    const call = await tools(fallback(true, asked));
    const answer = await call('get-docs', { libraryId: 'down', topic: 'make a widget' });
    expect(answer.text).toBe(
      "## Widgets\n\nMake one.\n\n---\n\nSource: Context7 /acme-org/widgets · https://context7.test/acme-org/widgets · fallback: the documentation of 'down' could not be fetched (SOURCE_UNAVAILABLE: No documentation source can serve Down Widgets)",
    );
    expect(asked).toEqual(['docs Down Widgets make a widget']);
    // a topic the served docs lack is the engine's answer, not the fallback's
    await expect(call('get-docs', { libraryId: 'acme', topic: 'quantum teleportation' })).rejects.toMatchObject({
      code: 'TOPIC_NOT_FOUND',
    });
    // inside withoutDocsFallback (seed 004's tools consult the fallback themselves) the engine answers alone
    await expect(
      withoutDocsFallback(() => call('get-docs', { libraryId: 'down', topic: 'make a widget' })),
    ).rejects.toMatchObject({ code: 'SOURCE_UNAVAILABLE' });
    expect(asked).toHaveLength(1);
  });

  it('resolve-library of an unknown name answers from the fallback; keyless, the error names the key', async () => {
    const asked: string[] = [];
    const call = await tools(fallback(true, asked));
    const found = await call('resolve-library', { query: 'widgets' });
    expect(found.structured).toMatchObject({ libraryId: 'acme-org/widgets', sources: ['context7'], toc: [] });
    const keyless = await tools(fallback(false, asked));
    await expect(keyless('resolve-library', { query: 'widgets' })).rejects.toMatchObject({
      code: 'LIBRARY_NOT_FOUND',
      message: expect.stringMatching(/ Set CONTEXT7_API_KEY to answer from Context7\.$/),
    });
    await expect(keyless('get-docs', { libraryId: 'down', topic: 'x' })).rejects.toMatchObject({
      code: 'SOURCE_UNAVAILABLE',
      message: expect.stringMatching(/ Set CONTEXT7_API_KEY to answer from Context7\.$/),
    });
    expect(asked).toEqual(['search widgets']);
    // without any fallback bound, nothing changes
    const plain = await tools(undefined);
    await expect(plain('resolve-library', { query: 'widgets' })).rejects.toMatchObject({
      message: "No library matches 'widgets'.",
    });
  });
});

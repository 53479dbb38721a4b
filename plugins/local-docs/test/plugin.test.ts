import { join } from 'node:path';
import { docsEngineToken, enginePlugin } from '@pro-context/engine';
import { isProContextError, type StartedKernel } from '@pro-context/kernel';
import { llmsTxtPlugin } from '@pro-context/plugin-llms-txt';
import { createTestKernel } from '@pro-context/testing';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { localDocsPlugin } from '../src/plugin.js';
import { cleanup, folder, INTERNAL_DOCS } from './fixtures.js';

const kernels: StartedKernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((k) => k.stop()));
});
afterAll(cleanup);

const start = async (config: Record<string, unknown>) => {
  const kernel = await createTestKernel({ plugins: [llmsTxtPlugin, enginePlugin, localDocsPlugin], config });
  kernels.push(kernel);
  return kernel;
};

describe('the local-docs plugin in a kernel', () => {
  it('sources.custom and a localPath become libraries the engine serves from the right source', async () => {
    const dir = folder(INTERNAL_DOCS);
    const other = folder({ 'billing.md': '# Billing\n\n## Invoices\n\nCreate invoices with `billing.create()`.\n' });
    const kernel = await start({
      project: { autoDetect: false },
      sources: {
        custom: [
          { name: 'internal-sdk', type: 'url', url: 'https://docs.acme.test/sdk/llms.txt', libraryId: 'acme/sdk' },
          { name: 'Acme handbook', type: 'file', path: dir, libraryId: 'acme/handbook' },
          { name: 'tool', type: 'github', repo: 'acme/tool' },
        ],
      },
      libraries: [{ id: 'billing', name: 'Billing', localPath: join(other, 'billing.md') }],
    });
    const engine = kernel.resolve(docsEngineToken);
    const byId = new Map(engine.libraries().map((l) => [l.id, l]));
    expect(byId.get('acme/sdk')?.sources).toEqual({ llmsTxt: { llmsTxtUrl: 'https://docs.acme.test/sdk/llms.txt' } });
    expect(byId.get('tool')?.repository).toBe('acme/tool');

    const handbook = await engine.resolve('acme/handbook');
    expect(handbook.sources).toEqual(['local-docs']);
    const docs = await engine.getDocs('acme/handbook', 'retry budgets', undefined, 2000);
    expect(docs.content).toContain('RetryPolicy(maxAttempts=5');

    const billing = await engine.getDocs('billing', 'create invoices', undefined, 2000);
    expect(billing.content).toContain('billing.create()');
    const page = await engine.readPage(billing.source, 2000, 0);
    expect(page.content).toContain('Create invoices');
  });

  it('a folder with more files than maxFiles: resolve-library says how many are served and which setting to raise', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 5; i++) files[`page-${i}.md`] = `# Page ${i}\n\nText of page ${i}.\n`;
    const dir = folder(files);
    const kernel = await start({
      project: { autoDetect: false },
      sources: { localDocs: { maxFiles: 3 } },
      libraries: [{ id: 'handbook', name: 'Handbook', localPath: dir }],
    });
    const resolved = await kernel.resolve(docsEngineToken).resolve('handbook');
    expect(resolved.toc).toHaveLength(3);
    expect(resolved.notes).toContain(
      `Only 3 of the 5 markdown files in ${dir} are served: sources.localDocs.maxFiles is 3. Raise it to serve them all.`,
    );
  });

  it('a custom source without the field its type needs is a configuration error naming it', async () => {
    const error = await start({ sources: { custom: [{ name: 'x', type: 'file' }] } }).catch((e: unknown) => e);
    expect(isProContextError(error) && error.code).toBe('CONFIG_INVALID');
    expect(String((error as Error).message)).toContain('sources.custom.0.path');
  });
});

import { type StartedKernel, toolPluginToken } from '@pro-context/kernel';
import { catalogErrorOf, createTestKernel } from '@pro-context/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { enginePlugin } from '../src/plugin.js';

const libraries = Array.from({ length: 60 }, (_, i) => ({
  id: `lib-${String(i).padStart(2, '0')}`,
  name: `Library ${i}`,
  docsUrl: `https://docs.lib-${i}.test/`,
  description: 'A library listed to fill more than one page of list-libraries with some words.',
}));

const kernels: StartedKernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((k) => k.stop()));
});

/** list-libraries as the tool layer runs it (the MCP host calls this handler). */
async function listLibraries() {
  const kernel = await createTestKernel({ plugins: [enginePlugin], config: { libraries } });
  kernels.push(kernel);
  const tool = kernel
    .resolveAll(toolPluginToken)
    .flatMap((p) => p.tools())
    .find((t) => t.name === 'list-libraries');
  if (!tool) throw new Error('list-libraries is not registered');
  const context = { signal: new AbortController().signal, progress: async () => {}, logger: kernel.logger };
  return (args: { cursor?: string; query?: string }) =>
    tool.handler(args as never, context) as unknown as Promise<{ structured: { nextCursor?: string; total: number } }>;
}

const cursorAt = (offset: number) => Buffer.from(`o${offset}`).toString('base64url');

describe('list-libraries cursor', () => {
  it('pages with the cursors it gives', async () => {
    const call = await listLibraries();
    const first = await call({ query: 'library' });
    expect(first.structured.nextCursor).toBeDefined();
    const second = await call({ query: 'library', cursor: first.structured.nextCursor });
    expect(second.structured.total).toBe(first.structured.total);
  });

  it('a cursor past the end of the list is a coded error saying what to do, not an empty page', async () => {
    const call = await listLibraries();
    const { structured } = await call({ query: 'library' });
    // a cursor of another page size, or one given for other filters: the list has fewer libraries than it skips
    const error = await catalogErrorOf(call({ query: 'library', cursor: cursorAt(9_999_999) }));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toContain(`past the end of the list: ${structured.total} libraries match`);
    expect(error.suggestion).toMatch(/without a cursor for the first page/);
    // just past the last library, too
    await expect(call({ query: 'library', cursor: cursorAt(structured.total) })).rejects.toThrow(/past the end/);
  });

  it('a cursor it never gave is still NOT_A_CURSOR-worded', async () => {
    const call = await listLibraries();
    const error = await catalogErrorOf(call({ cursor: 'garbage' }));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toBe("'garbage' is not a cursor list-libraries gave.");
  });
});

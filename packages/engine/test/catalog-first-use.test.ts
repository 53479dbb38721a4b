import {
  definePlugin,
  KERNEL_VERSION,
  type LibraryDescriptor,
  type LibraryProvider,
  libraryProviderToken,
  type StartedKernel,
} from '@pro-context/kernel';
import { createTestKernel, type LoopbackSite, startLoopbackSite } from '@pro-context/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { docsEngineToken, enginePlugin } from '../src/plugin.js';

/** A provider listing one library (as the curated registry lists ~470), counting how often it is read. */
class CountingProvider implements LibraryProvider {
  readonly id = 'counting';
  readonly priority = 100;
  reads = 0;
  constructor(private readonly listed: LibraryDescriptor[]) {}
  libraries() {
    this.reads += 1;
    return this.listed;
  }
}

let site: LoopbackSite;
const kernels: StartedKernel[] = [];
beforeAll(async () => {
  site = await startLoopbackSite((path, res) => {
    if (path === '/guide.md')
      res.writeHead(200, { 'content-type': 'text/markdown' }).end('# Guide\n\nHow Acme configures its widgets.\n');
    else res.writeHead(404).end();
  });
});
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((k) => k.stop()));
});
afterAll(() => site.close());

/** An engine whose catalog has the provider's library, the plugins' background phases left to the test. */
async function start(provider: CountingProvider) {
  const kernel = await createTestKernel({
    deferBackground: true,
    plugins: [
      enginePlugin,
      definePlugin({
        id: 'counting-provider',
        kernel: `>=${KERNEL_VERSION}`,
        register: (ctx) => ctx.bindValue(libraryProviderToken, provider),
      }),
    ],
  });
  kernels.push(kernel);
  return { kernel, engine: kernel.resolve(docsEngineToken) };
}

describe('the library catalog is read on first use (issue #27 item 8: nothing at start the first answers do not need)', () => {
  it('a started engine has not read its providers; the first use reads them, once', async () => {
    const provider = new CountingProvider([{ id: 'acme', name: 'Acme', docsUrl: 'https://docs.acme.test/' }]);
    const { engine } = await start(provider);
    expect(provider.reads).toBe(0);
    expect(engine.matchLibraries('acme').map((m) => m.library.id)).toEqual(['acme']);
    expect(engine.libraries().map((l) => l.id)).toEqual(['acme']);
    expect(provider.reads).toBe(1);
  });

  it("the engine's background phase reads it, so that the first tool call does not wait for it", async () => {
    const provider = new CountingProvider([{ id: 'acme', name: 'Acme', docsUrl: 'https://docs.acme.test/' }]);
    const { kernel } = await start(provider);
    expect(provider.reads).toBe(0);
    await kernel.background();
    expect(provider.reads).toBe(1);
  });

  it("read-page as the first call may fetch from a library's docs host (the catalog's hosts join the allowlist first)", async () => {
    const provider = new CountingProvider([{ id: 'acme', name: 'Acme', docsUrl: `${site.origin}/` }]);
    const { engine } = await start(provider);
    const slice = await engine.readPage(`${site.origin}/guide.md`, 2000, 0);
    expect(slice.content).toContain('How Acme configures its widgets.');
    expect(provider.reads).toBe(1);
  });
});

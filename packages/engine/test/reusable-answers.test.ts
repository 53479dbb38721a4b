import { definePlugin, KERNEL_VERSION, type StartedKernel, sourceAdapterToken } from '@pro-context/kernel';
import { createTestKernel, StaticSourceAdapter } from '@pro-context/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { docsEngineToken, enginePlugin } from '../src/plugin.js';

const kernels: StartedKernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((k) => k.stop()));
});

const page = (name: string, text: string) => ({
  pages: [{ url: `https://docs.${name}.test/widgets`, title: 'Widgets', markdown: `# Widgets\n\n${text}` }],
});

async function engineWith(adapter: StaticSourceAdapter, engine: Record<string, unknown> = {}, ttlHours?: number) {
  const kernel = await createTestKernel({
    plugins: [
      enginePlugin,
      definePlugin({
        id: 'internal-docs',
        kernel: `>=${KERNEL_VERSION}`,
        register: (ctx) => ctx.bindValue(sourceAdapterToken, adapter),
      }),
    ],
    config: {
      engine,
      libraries: ['acme', 'beta'].map((id) => ({
        id,
        name: id,
        language: 'python',
        source: 'internal',
        ...(ttlHours ? { ttlHours } : {}),
      })),
    },
  });
  kernels.push(kernel);
  return kernel.resolve(docsEngineToken);
}

describe('reusable get-docs answers (what the HTTP host may serve again)', () => {
  it('are those of docs the engine had, and stop being reusable once those docs leave memory', async () => {
    const adapter = new StaticSourceAdapter('internal', {
      acme: page('acme', 'Widgets are ALPHA-ONE.'),
      beta: page('beta', 'Widgets are BETA.'),
    });
    const engine = await engineWith(adapter, { maxLoadedLibraries: 1 });
    // fetched and indexed for this call: not reusable (a repeat would say cached: true)
    const fetched = await engine.getDocs('acme', 'widgets', undefined, 2000);
    expect(fetched.cached).toBe(false);
    expect(engine.reusable(fetched)).toBeUndefined();
    await engine.idle();
    const again = await engine.getDocs('acme', 'widgets', undefined, 2000);
    const check = engine.reusable(again);
    expect(check?.()).toBe(true);
    // another library takes acme's place in memory: its answer may have changed when it is loaded again
    await engine.getDocs('beta', 'widgets', undefined, 2000);
    expect(check?.()).toBe(false);
  });

  it('are never those of stale docs, nor of local sources (checked on every load)', async () => {
    const stale = await engineWith(
      new StaticSourceAdapter('internal', { acme: page('acme', 'ALPHA'), beta: page('beta', 'BETA') }),
      {},
      0.0001,
    );
    await stale.getDocs('acme', 'widgets', undefined, 2000);
    await stale.idle();
    const fresh = await stale.getDocs('acme', 'widgets', undefined, 2000);
    const check = stale.reusable(fresh);
    expect(check?.()).toBe(true);
    // 0.36 s: past it the docs are stale
    await new Promise((resolve) => setTimeout(resolve, 450));
    expect(check?.()).toBe(false);
    const served = await stale.getDocs('acme', 'widgets', undefined, 2000);
    expect(served.stale).toBe(true);
    expect(stale.reusable(served)).toBeUndefined();
    await stale.idle();

    class LocalAdapter extends StaticSourceAdapter {
      readonly local = true;
    }
    const local = await engineWith(
      new LocalAdapter('internal', { acme: page('acme', 'ALPHA'), beta: page('beta', 'BETA') }),
    );
    await local.getDocs('acme', 'widgets', undefined, 2000);
    await local.idle();
    expect(local.reusable(await local.getDocs('acme', 'widgets', undefined, 2000))).toBeUndefined();
  });
});

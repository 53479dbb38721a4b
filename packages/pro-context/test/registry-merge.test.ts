import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { docsEngineToken } from '@pro-context/engine';
import type { StartedKernel } from '@pro-context/kernel';
import { getKnownLibrary, toDescriptorFields } from '@pro-context/known-libraries';
import { createSilentLogger } from '@pro-context/logging';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startProContext } from '../src/index.js';

describe('the curated registry in the preset, under config', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pc-registry-merge-'));
  const kernels: StartedKernel[] = [];
  const start = async (config: Record<string, unknown>) => {
    const kernel = await startProContext({
      config: { cache: { directory: join(dir, 'cache') }, registries: { pypi: { enabled: false } }, ...config },
      logger: createSilentLogger(),
    });
    kernels.push(kernel);
    return kernel.resolve(docsEngineToken);
  };
  afterEach(async () => {
    await Promise.all(kernels.splice(0).map((k) => k.stop()));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('knows every curated library with no configuration', async () => {
    const engine = await start({});
    expect((await engine.findLibrary('fastapi'))?.docsUrl).toBe('https://fastapi.tiangolo.com');
    expect((await engine.listLibraries()).length).toBeGreaterThanOrEqual(400);
  });

  it('a config entry with a curated id changes only the fields it writes', async () => {
    const engine = await start({
      libraries: [
        {
          id: 'pydantic',
          name: 'Pydantic (ours)',
          sources: { llmsTxt: { llmsTxtUrl: 'https://mirror.example/llms.txt' } },
        },
      ],
    });
    const curated = toDescriptorFields(getKnownLibrary('pydantic')!);
    const merged = await engine.findLibrary('pydantic');
    expect(merged).toMatchObject({
      ...curated,
      name: 'Pydantic (ours)',
      sources: {
        llmsTxt: { ...curated.sources?.llmsTxt, llmsTxtUrl: 'https://mirror.example/llms.txt' },
      },
    });
  });

  it('registry.enabled: false leaves only the configured libraries', async () => {
    const engine = await start({
      registry: { enabled: false },
      libraries: [{ id: 'acme', name: 'Acme', docsUrl: 'https://docs.acme.example' }],
    });
    expect((await engine.listLibraries()).map((l) => l.id)).toEqual(['acme']);
    expect(await engine.findLibrary('fastapi')).toBeUndefined();
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rerankerToken } from '@pro-context/engine';
import type { StartedKernel } from '@pro-context/kernel';
import { createSilentLogger } from '@pro-context/logging';
import { catalogErrorOf } from '@pro-context/testing';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { presetConfigJsonSchema, startProContext } from '../src/index.js';
import { enabledRemotePlugins, loadRemotePlugins } from '../src/remote-plugins.js';

describe('the reranking model in the preset (openai-embeddings, off unless configured)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pc-preset-embeddings-'));
  const kernels: StartedKernel[] = [];
  const start = async (env: Record<string, string>, config: Record<string, unknown> = {}) => {
    const kernel = await startProContext({
      cwd: dir,
      env: { PRO_CONTEXT_CACHE_DIR: join(dir, 'cache'), ...env },
      overrides: config,
      logger: createSilentLogger(),
    });
    kernels.push(kernel);
    return kernel;
  };
  afterEach(async () => {
    await Promise.all(kernels.splice(0).map((k) => k.stop()));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is enabled by an embeddings section, PRO_CONTEXT_EMBEDDINGS_URL or its name, and by nothing else', () => {
    const source = (values: Record<string, unknown>, env: Record<string, string> = {}) => ({
      values,
      lines: new Map(),
      fromEnv: new Map(),
      env,
    });
    expect(enabledRemotePlugins(source({}))).toEqual([]);
    expect(enabledRemotePlugins(source({ embeddings: { baseUrl: 'http://localhost:11434/v1' } }))).toEqual([
      'openai-embeddings',
    ]);
    expect(enabledRemotePlugins(source({}, { PRO_CONTEXT_EMBEDDINGS_URL: 'http://localhost:11434/v1' }))).toEqual([
      'openai-embeddings',
    ]);
    expect(enabledRemotePlugins(source({ plugins: ['exa', 'openai-embeddings'] }))).toEqual([
      'exa',
      'openai-embeddings',
    ]);
  });

  it('binds a reranker only when configured; a section without a model is CONFIG_INVALID naming the key', async () => {
    expect((await start({})).isBound(rerankerToken)).toBe(false);
    const kernel = await start(
      { PRO_CONTEXT_EMBEDDINGS_MODEL: 'nomic-embed-text' },
      { embeddings: { baseUrl: 'http://localhost:11434/v1' } },
    );
    expect(kernel.isBound(rerankerToken)).toBe(true);
    expect(kernel.resolve(rerankerToken).id).toBe('openai-embeddings:nomic-embed-text');
    const error = await catalogErrorOf(start({}, { embeddings: { baseUrl: 'http://localhost:11434/v1' } }));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain('embeddings.model');
    const off = await start({}, { embeddings: { enabled: false, baseUrl: 'http://x.test/v1', model: 'm' } });
    expect(off.isBound(rerankerToken)).toBe(false);
  });

  it("puts the embeddings section in the configuration's JSON Schema", async () => {
    const remote = await loadRemotePlugins(['openai-embeddings']);
    const schema = presetConfigJsonSchema(remote) as { properties: Record<string, { properties?: object }> };
    expect(Object.keys(schema.properties.embeddings?.properties ?? {})).toEqual(
      expect.arrayContaining(['baseUrl', 'model', 'apiKey', 'timeoutMs', 'weight']),
    );
  });
});

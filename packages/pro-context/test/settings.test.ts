import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StartedKernel } from '@pro-context/kernel';
import { createSilentLogger } from '@pro-context/logging';
import { catalogErrorOf } from '@pro-context/testing';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { applyHeapGrowth, holdYoungGeneration } from '../src/heap.js';
import { httpHostOptionsFrom } from '../src/http.js';
import {
  corsConfigSection,
  defaultPlugins,
  presetConfigJsonSchema,
  rateLimitConfigSection,
  serverConfigSection,
  startProContext,
} from '../src/index.js';

describe("the preset's settings (host sections, reserved variables, default allowlist)", () => {
  const dir = mkdtempSync(join(tmpdir(), 'pc-preset-settings-'));
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

  it('reads server.* from PRO_CONTEXT_TRANSPORT/PORT/HOST, and keeps rateLimit and security.cors', async () => {
    const kernel = await start(
      { PRO_CONTEXT_PORT: '4000', PRO_CONTEXT_HOST: '0.0.0.0' },
      { rateLimit: { burstSize: 3 }, security: { cors: { origins: ['https://a.test'] } } },
    );
    expect(serverConfigSection.read(kernel.config)).toMatchObject({
      transport: 'stdio',
      port: 4000,
      host: '0.0.0.0',
      stateless: false,
      auth: 'apiKey',
    });
    expect(rateLimitConfigSection.read(kernel.config)).toEqual({ maxRequestsPerMinute: 60, burstSize: 3 });
    expect(corsConfigSection.read(kernel.config)).toEqual({ origins: ['https://a.test'] });
    expect(kernel.environment.map((e) => e.variable)).toEqual([
      'PRO_CONTEXT_PORT',
      'PRO_CONTEXT_HOST',
      'PRO_CONTEXT_CACHE_DIR',
    ]);
  });

  it('hands server.answerMemo to the HTTP host: on by default, off or sized from the config file', async () => {
    expect(httpHostOptionsFrom((await start({})).config).answerMemo).toEqual({
      enabled: true,
      maxEntries: 1000,
      maxMB: 16,
    });
    const off = await start({}, { server: { answerMemo: { enabled: false, maxMB: 4 } } });
    expect(httpHostOptionsFrom(off.config).answerMemo).toEqual({ enabled: false, maxEntries: 1000, maxMB: 4 });
    const error = await catalogErrorOf(start({}, { server: { answerMemo: { maxEntries: 0 } } }));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain('server.answerMemo.maxEntries');
  });

  it('reads server.heapGrowthPercent (default 30, 0 = V8 policy); applyHeapGrowth leaves a node flag be', async () => {
    expect(serverConfigSection.read((await start({})).config).heapGrowthPercent).toBe(30);
    const off = await start({}, { server: { heapGrowthPercent: 0 } });
    expect(serverConfigSection.read(off.config).heapGrowthPercent).toBe(0);
    const error = await catalogErrorOf(start({}, { server: { heapGrowthPercent: -5 } }));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain('server.heapGrowthPercent');
    expect(applyHeapGrowth(0, [])).toEqual({ applied: false, reason: 'disabled' });
    expect(applyHeapGrowth(30, ['--heap-growing-percent=50'])).toEqual({
      applied: false,
      reason: 'set on the command line',
    });
    const applied = applyHeapGrowth(30, ['--inspect']);
    expect(applied).toMatchObject({ applied: true, percent: 30 });
    if (applied.applied) applied.stop();
  });

  it('reads server.holdYoungGeneration (default true); holdYoungGeneration leaves a node flag be', async () => {
    expect(serverConfigSection.read((await start({})).config).holdYoungGeneration).toBe(true);
    const off = await start({}, { server: { holdYoungGeneration: false } });
    expect(serverConfigSection.read(off.config).holdYoungGeneration).toBe(false);
    const error = await catalogErrorOf(start({}, { server: { holdYoungGeneration: 'yes' } }));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain('server.holdYoungGeneration');
    expect(holdYoungGeneration([], '--max-semi-space-size=16')).toEqual({
      held: false,
      reason: 'set on the command line',
    });
    expect(holdYoungGeneration(['--semi-space-growth-factor=3'], '')).toEqual({
      held: false,
      reason: 'set on the command line',
    });
  });

  it('names the variable that set a bad server key', async () => {
    const error = await catalogErrorOf(start({ PRO_CONTEXT_PORT: 'eighty' }));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain('server.port (from PRO_CONTEXT_PORT): expected a number, got a string');
  });

  it('reads PRO_CONTEXT_GITHUB_TOKEN (a secret) into the GitHub source: no warning any more', async () => {
    const kernel = await start({ PRO_CONTEXT_GITHUB_TOKEN: 'not-a-real-token' });
    expect(kernel.environment).toContainEqual({
      variable: 'PRO_CONTEXT_GITHUB_TOKEN',
      key: 'sources.github.token',
      secret: true,
    });
    expect(kernel.warnings).toEqual([]);
  });

  it('allows the GitHub and PyPI hosts read-page allowed before they moved out of the kernel', async () => {
    const kernel = await start({});
    for (const url of [
      'https://github.com/pydantic/pydantic',
      'https://raw.githubusercontent.com/a/b/main/README.md',
      'https://pypi.org/project/pydantic/',
      'https://pydantic.github.io/x',
      'https://fastapi.readthedocs.io/en/latest/',
    ]) {
      expect(kernel.allowlist.isAllowed(url), url).toBe(true);
    }
    expect(kernel.allowlist.isAllowed('https://example.com/')).toBe(false);
  });

  it('describes every section, the hosts’ and the engine’s included, in the JSON Schema', () => {
    const schema = presetConfigJsonSchema() as {
      additionalProperties?: unknown;
      properties: Record<string, { properties?: Record<string, unknown>; description?: string }>;
    };
    // a section no installed plugin reads is free-form (a warning, as config check says); any other key is refused
    const notInstalled = (key: string) =>
      schema.properties[key]?.description?.startsWith('Read by a plugin that is not');
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties).filter(notInstalled).sort()).toEqual(
      ['auth', 'context7', 'embed', 'embeddings', 'exa', 'grounding', 'metrics'].sort(),
    );
    expect(
      Object.keys(schema.properties)
        .filter((key) => !notInstalled(key))
        .sort(),
    ).toEqual([
      'cache',
      'discovery',
      'engine',
      'http',
      'libraries',
      'logging',
      'plugins',
      'project',
      'rateLimit',
      'registries',
      'registry',
      'search',
      'security',
      'server',
      'sources',
    ]);
    expect(schema.properties.server?.properties?.transport).toMatchObject({ enum: ['stdio', 'http'] });
    expect(Object.keys(schema.properties.security?.properties ?? {})).toContain('cors');
  });

  it('accepts either store in the cache section, whichever the environment chooses (a team file on a laptop)', () => {
    for (const env of [{}, { PRO_CONTEXT_DATABASE_URL: 'postgres://u@127.0.0.1:5432/db' }]) {
      const schema = presetConfigJsonSchema(defaultPlugins(env)) as {
        properties: { cache: { anyOf?: { properties: Record<string, { const?: string }> }[] } };
      };
      const stores = (schema.properties.cache.anyOf ?? []).map((alternative) => alternative.properties.store?.const);
      expect(stores.sort()).toEqual(['postgres', 'sqlite']);
      const postgres = schema.properties.cache.anyOf?.find((a) => a.properties.store?.const === 'postgres');
      expect(Object.keys(postgres?.properties ?? {})).toEqual(expect.arrayContaining(['store', 'postgres']));
    }
  });

  it("describes each source plugin's per-library bag under libraries[].sources, so editors complete its keys", () => {
    const schema = presetConfigJsonSchema() as {
      properties: { libraries: { items: { properties: { sources: Record<string, unknown> } } } };
    };
    const sources = schema.properties.libraries.items.properties.sources as {
      properties: Record<string, { properties?: Record<string, unknown>; additionalProperties?: unknown }>;
    };
    const llmsTxt = sources.properties.llmsTxt;
    expect(Object.keys(llmsTxt?.properties ?? {})).toEqual(
      expect.arrayContaining(['llmsTxtUrl', 'llmsFullTxtUrl', 'versionedDocsUrl']),
    );
    // a misspelt key inside a known bag is flagged by the editor (strict), other bags stay free-form
    expect(llmsTxt?.additionalProperties).toBe(false);
    expect(Object.keys(sources.properties.github?.properties ?? {})).toEqual(expect.arrayContaining(['docsPath']));
  });
});

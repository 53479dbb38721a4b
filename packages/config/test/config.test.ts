import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createToken, defineConfigSection, definePlugin, ProContextError, z } from '@pro-context/kernel';
import { createLogger, createSilentLogger } from '@pro-context/logging';
import { createKernel } from '@pro-context/runtime';
import { describe, expect, it } from 'vitest';
import { configJsonSchema, loadConfig, validateConfig } from '../src/index.js';

const silent = { logger: createSilentLogger(), validateConfig };

async function expectCode(promise: Promise<unknown> | (() => unknown), code: string): Promise<ProContextError> {
  try {
    if (typeof promise === 'function') promise();
    else await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ProContextError);
    expect((error as ProContextError).code).toBe(code);
    return error as ProContextError;
  }
  throw new Error(`expected a ${code} error`);
}

async function failure(start: Promise<unknown>): Promise<ProContextError> {
  try {
    await start;
  } catch (error) {
    if (error instanceof ProContextError) return error;
    throw error;
  }
  throw new Error('expected the kernel to refuse to start');
}

describe('the configuration file', () => {
  const cachePlugin = definePlugin({
    id: 'cache-like',
    kernel: '*',
    configKey: 'cache',
    optionsSchema: z.strictObject({
      directory: z.string().default('~/.pro-context/cache'),
      maxMemoryMB: z.number().positive().default(100),
    }),
    environment: [{ variable: 'PRO_CONTEXT_CACHE_DIR', key: 'cache.directory' }],
    register(ctx, options) {
      ctx.bindValue(createToken<typeof options>('test.cacheOptions'), options);
    },
  });
  // a host's settings: a section besides any configKey, and the variables that set it
  const serverSection = defineConfigSection(
    'server',
    z
      .strictObject({
        transport: z.enum(['stdio', 'http']).default('stdio'),
        port: z.number().int().min(1).max(65535).default(3100),
      })
      .prefault({}),
  );
  const hostPlugin = definePlugin({
    id: 'host-like',
    kernel: '*',
    configSections: [serverSection],
    environment: [{ variable: 'PRO_CONTEXT_PORT', key: 'server.port', type: 'number' }],
    reservedSections: ['sources', 'sources.github'],
    register() {},
  });

  function writeConfig(text: string): string {
    const dir = mkdtempSync(join(tmpdir(), 'pc-config-'));
    writeFileSync(join(dir, 'pro-context.config.yaml'), text);
    return dir;
  }

  it('reads the file, applies PRO_CONTEXT_* overrides and gives plugins their section', async () => {
    const dir = writeConfig('cache:\n  maxMemoryMB: 50\nlogging:\n  level: warn\n');
    const source = await loadConfig({
      cwd: dir,
      env: { PRO_CONTEXT_CACHE_DIR: '/data/cache', PRO_CONTEXT_PORT: '4000' },
    });
    const kernel = await createKernel({ ...silent, config: source })
      .use(cachePlugin)
      .use(hostPlugin)
      .start();
    expect(kernel.resolve(createToken<{ directory: string; maxMemoryMB: number }>('test.cacheOptions'))).toEqual({
      directory: '/data/cache',
      maxMemoryMB: 50,
    });
    expect(serverSection.read(kernel.config).port).toBe(4000);
    expect(kernel.environment).toEqual([
      { variable: 'PRO_CONTEXT_CACHE_DIR', key: 'cache.directory', secret: false },
      { variable: 'PRO_CONTEXT_PORT', key: 'server.port', secret: false },
    ]);
    expect(kernel.config.logging.level).toBe('warn');
    expect(kernel.config.sourceFile).toBe(join(dir, 'pro-context.config.yaml'));
    await kernel.stop();
  });

  it('PRO_CONTEXT_DEBUG=true is a shorthand for the debug level', async () => {
    expect(
      (await loadConfig({ cwd: tmpdir(), env: { PRO_CONTEXT_DEBUG: 'true' }, file: undefined })).values,
    ).toMatchObject({
      logging: { level: 'debug' },
    });
  });

  it('names the exact key, its line and what is wrong in a bad config file', async () => {
    const dir = writeConfig(
      [
        'server:',
        '  transport: carrier-pigeon',
        'cache:',
        '  maxMemoryMB: lots',
        'cahce:',
        '  directory: /tmp',
        '',
      ].join('\n'),
    );
    const error = await expectCode(
      createKernel({ ...silent, config: await loadConfig({ cwd: dir, env: {} }) })
        .use(cachePlugin)
        .use(hostPlugin)
        .start(),
      'CONFIG_INVALID',
    );
    expect(error.message).toContain(`Invalid configuration in ${join(dir, 'pro-context.config.yaml')}:`);
    expect(error.message).toContain('server.transport (line 2): Invalid option: expected one of "stdio"|"http"');
    expect(error.message).toContain('cache.maxMemoryMB (line 4): expected a number, got a string');
    expect(error.message).toContain('cahce (line 5): Unrecognized key');
  });

  it('names the environment variable when an override is bad', async () => {
    const error = await expectCode(
      createKernel({
        ...silent,
        config: await loadConfig({ cwd: tmpdir(), env: { PRO_CONTEXT_PORT: 'eighty' }, file: undefined }),
      })
        .use(hostPlugin)
        .start(),
      'CONFIG_INVALID',
    );
    expect(error.message).toContain('server.port (from PRO_CONTEXT_PORT): expected a number, got a string');
  });

  it("reports YAML syntax errors with line and column, once, and the parser's sentence whole", async () => {
    const dir = writeConfig('server:\n  port: [3100\n');
    const error = await expectCode(loadConfig({ cwd: dir, env: {} }), 'CONFIG_INVALID');
    expect(error.message).toMatch(/is not valid YAML \(line \d+, column \d+\): \S/);
    expect(error.message).not.toMatch(/ at line \d+, column \d+/);
    expect(error.message).not.toMatch(/:$/);
  });

  it('a file whose top level is a list says how the settings are written, not to fix a key it does not name', async () => {
    const dir = writeConfig('- logging:\n    level: debug\n');
    const error = await expectCode(loadConfig({ cwd: dir, env: {} }), 'CONFIG_INVALID');
    expect(error.message).toMatch(/must contain a mapping of settings at the top level\.$/);
    expect(error.suggestion).toMatch(/`section:` lines at the left margin/);
    expect(error.suggestion).not.toMatch(/named key/);
  });

  it('a configuration path that is a folder is CONFIG_INVALID saying so (not an internal error)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pc-config-dir-'));
    const folder = join(dir, 'settings.yaml');
    mkdirSync(folder);
    const error = await expectCode(loadConfig({ file: folder, env: {} }), 'CONFIG_INVALID');
    expect(error.message).toContain('is a folder, not a file');
    expect(error.suggestion).toMatch(/readable YAML file/);
  });

  it('a YAML alias bomb is refused as CONFIG_INVALID, quickly and without expanding it', async () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      levels.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(', ')}]`);
    }
    const dir = writeConfig(`${levels.join('\n')}\nlibraries: *i\n`);
    const error = await expectCode(loadConfig({ cwd: dir, env: {} }), 'CONFIG_INVALID');
    expect(error.message).toMatch(/could not be read as settings/);
    expect(error.suggestion).toMatch(/aliases/);
  });

  it('says what to do about a key written twice (the seed example repeats `project:`)', async () => {
    const dir = writeConfig(
      'project:\n  autoDetect: true\ncache:\n  maxMemoryMB: 50\nproject:\n  workingDirectory: .\n',
    );
    const error = await (async () => {
      try {
        await loadConfig({ cwd: dir, env: {} });
      } catch (e) {
        return e as ProContextError;
      }
      throw new Error('expected a CONFIG_INVALID error');
    })();
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toMatch(/line 5/);
    expect(error.suggestion).toMatch(/appears twice.*merge/);
  });
});

describe('environment variables declared by plugins, read by loadConfig', () => {
  const apiPlugin = definePlugin({
    id: 'remote-api',
    kernel: '*',
    configKey: 'remoteApi',
    optionsSchema: z.strictObject({
      url: z.url().default('https://api.example.test'),
      apiKey: z.string().min(32, 'An API key has at least 32 characters').optional(),
      enabled: z.boolean().default(true),
    }),
    environment: [
      { variable: 'REMOTE_API_URL', key: 'remoteApi.url' },
      { variable: 'REMOTE_API_KEY', key: 'remoteApi.apiKey', secret: true },
      { variable: 'REMOTE_API_ENABLED', key: 'remoteApi.enabled', type: 'boolean' },
    ],
    register() {},
  });

  it('are applied at start-up with the plugin, below command-line overrides, and listed by key', async () => {
    const env = {
      REMOTE_API_URL: 'https://other.example.test',
      REMOTE_API_ENABLED: 'no',
      PRO_CONTEXT_LOG_LEVEL: 'warn',
    };
    const source = await loadConfig({
      cwd: tmpdir(),
      env,
      file: undefined,
      overrides: { remoteApi: { url: 'https://flag.test' } },
    });
    // loadConfig does not know the plugin: only the kernel's own variable is applied yet
    expect(source.values).toEqual({ logging: { level: 'warn' }, remoteApi: { url: 'https://flag.test' } });
    const kernel = await createKernel({ ...silent, config: source })
      .use(apiPlugin)
      .start();
    expect(kernel.config.raw.remoteApi).toEqual({ url: 'https://flag.test', enabled: false });
    expect(kernel.environment).toEqual([
      { variable: 'PRO_CONTEXT_LOG_LEVEL', key: 'logging.level', secret: false },
      { variable: 'REMOTE_API_ENABLED', key: 'remoteApi.enabled', secret: false },
    ]);
    await kernel.stop();
  });

  it('leave the kernel’s own where loadConfig put them (PRO_CONTEXT_DEBUG wins over the level)', async () => {
    const env = { PRO_CONTEXT_LOG_LEVEL: 'warn', PRO_CONTEXT_DEBUG: 'true', REMOTE_API_ENABLED: 'yes' };
    const kernel = await createKernel({ ...silent, config: await loadConfig({ cwd: tmpdir(), env, file: undefined }) })
      .use(apiPlugin)
      .start();
    expect(kernel.config.logging.level).toBe('debug');
    expect(kernel.environment.map((e) => `${e.key} from ${e.variable}`)).toEqual([
      'logging.level from PRO_CONTEXT_DEBUG',
      'remoteApi.enabled from REMOTE_API_ENABLED',
    ]);
    await kernel.stop();
  });

  it('count as unset when blank (whitespace only), as an empty one does', async () => {
    const env = { REMOTE_API_URL: '   ', REMOTE_API_KEY: '\t', REMOTE_API_ENABLED: '' };
    const kernel = await createKernel({ ...silent, config: await loadConfig({ cwd: tmpdir(), env, file: undefined }) })
      .use(apiPlugin)
      .start();
    expect(kernel.config.raw.remoteApi).toEqual({ url: 'https://api.example.test', enabled: true });
    expect(kernel.environment).toEqual([]);
    await kernel.stop();
  });

  it('are not applied without the plugin that declares them', async () => {
    const source = await loadConfig({ cwd: tmpdir(), env: { REMOTE_API_URL: 'https://x.test' }, file: undefined });
    const kernel = await createKernel({ ...silent, config: source }).start();
    expect(kernel.config.raw.remoteApi).toBeUndefined();
    await kernel.stop();
  });

  it('name the variable that set a bad key, and never the value of a secret one (not in logs either)', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'debug', stream: { write: (line: string) => lines.push(line) } });
    const secret = 'short-but-secret-value';
    const source = await loadConfig({ cwd: tmpdir(), env: { REMOTE_API_KEY: secret }, file: undefined });
    const error = await failure(createKernel({ logger, validateConfig, config: source }).use(apiPlugin).start());
    expect(error.message).toContain('remoteApi.apiKey (from REMOTE_API_KEY): An API key has at least 32 characters');
    expect(JSON.stringify(error.toPayload())).not.toContain(secret);
    expect(lines.join('')).not.toContain(secret);

    const good = 'k'.repeat(40);
    const kernel = await createKernel({
      logger,
      validateConfig,
      config: await loadConfig({ cwd: tmpdir(), env: { REMOTE_API_KEY: good }, file: undefined }),
    })
      .use(apiPlugin)
      .start();
    expect(kernel.environment).toEqual([{ variable: 'REMOTE_API_KEY', key: 'remoteApi.apiKey', secret: true }]);
    kernel.logger.info('configured', { remoteApi: kernel.config.raw.remoteApi });
    await kernel.stop();
    expect(lines.join('')).not.toContain(good);
  });
});

describe('the JSON Schema of the file', () => {
  const corsSection = defineConfigSection(
    'security.cors',
    z.strictObject({ origins: z.array(z.string()).default(['*']) }).prefault({}),
  );
  const limitsSection = defineConfigSection(
    'limits',
    z
      .strictObject({ perMinute: z.number().int().positive().default(60).describe('Requests per minute.') })
      .prefault({}),
  );
  const hostPlugin = definePlugin({
    id: 'host-like',
    kernel: '*',
    configSections: [corsSection, limitsSection],
    register() {},
  });

  it('are in the JSON Schema, a nested one inside the section that holds it', () => {
    const schema = configJsonSchema([hostPlugin]) as {
      properties: Record<string, { properties?: Record<string, { properties?: Record<string, unknown> }> }>;
    };
    expect(Object.keys(schema.properties.security?.properties ?? {})).toEqual([
      'allowPrivateNetwork',
      'urlAllowlist',
      'cors',
    ]);
    expect(schema.properties.security?.properties?.cors?.properties?.origins).toMatchObject({ type: 'array' });
    expect(schema.properties.limits?.properties?.perMinute).toMatchObject({ description: 'Requests per minute.' });
  });

  it('generates a JSON Schema that covers kernel and plugin sections, for editors', () => {
    const plugin = definePlugin({
      id: 'demo',
      kernel: '*',
      configKey: 'sources.demo',
      optionsSchema: z.strictObject({ depth: z.number().int().default(2).describe('How deep to crawl.') }),
      register() {},
    });
    const schema = configJsonSchema([plugin]) as {
      properties: Record<string, { properties?: Record<string, unknown> }>;
    };
    expect(schema.properties.logging?.properties?.level).toMatchObject({ enum: ['debug', 'info', 'warn', 'error'] });
    const sources = schema.properties.sources as { properties: { demo: { properties: { depth: unknown } } } };
    expect(sources.properties.demo.properties.depth).toMatchObject({
      type: 'integer',
      default: 2,
      description: 'How deep to crawl.',
    });
  });
});

describe('the JSON Schema judges unknown keys as validateConfig does', () => {
  const plugin = definePlugin({
    id: 'demo',
    kernel: '*',
    configKey: 'sources.demo',
    optionsSchema: z.strictObject({ depth: z.number().int().default(2) }),
    register() {},
  });
  const preset = definePlugin({
    id: 'preset-like',
    kernel: '*',
    configKey: 'registries.pypi',
    optionsSchema: z.strictObject({ url: z.string().optional() }),
    reservedSections: ['sources', 'auth'],
    register() {},
  });

  it('a misspelt top-level section is refused by the editor as by config check', async () => {
    const schema = configJsonSchema([plugin, preset]) as {
      additionalProperties?: unknown;
      properties: Record<string, { additionalProperties?: unknown } | undefined>;
    };
    // what validateConfig says of it
    const error = await expectCode(
      () => validateConfig({ values: { loging: { level: 'debug' } }, lines: new Map(), fromEnv: new Map() }, [plugin]),
      'CONFIG_INVALID',
    );
    expect(error.message).toContain('loging: Unrecognized key');
    // and the schema an editor checks the file with
    expect(schema.additionalProperties).toBe(false);
    // a section made of plugins' sections only (registries.pypi) is closed too, unless reserved
    expect(schema.properties.registries?.additionalProperties).toBe(false);
    // a reserved section stays open: another plugin's bag there is only a warning
    expect(schema.properties.sources?.additionalProperties).toBeUndefined();
    // a reserved top-level section no installed plugin declares is allowed (a warning)
    expect(schema.properties).toHaveProperty('auth');
  });
});

describe('options given to use()', () => {
  it('complete the section before it is validated: a required option given only in code is no error, nor a warning', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pc-use-options-'));
    writeFileSync(join(dir, 'pro-context.config.yaml'), 'sources:\n  wiki:\n    depth: 3\n');
    let seen: unknown;
    const wiki = definePlugin({
      id: 'wiki',
      kernel: '*',
      configKey: 'sources.wiki',
      optionsSchema: z.strictObject({ baseUrl: z.url(), depth: z.number().int().default(1) }),
      register(_context, options) {
        seen = options;
      },
    });
    const kernel = await createKernel({ ...silent, config: await loadConfig({ cwd: dir, env: {} }) })
      .use(wiki, { baseUrl: 'https://wiki.example.com/' })
      .start();
    await kernel.stop();
    expect(seen).toEqual({ baseUrl: 'https://wiki.example.com/', depth: 3 });
    expect(kernel.warnings).toEqual([]);
    // the file's section is still checked with them: a misspelt key there is refused, naming it
    writeFileSync(join(dir, 'pro-context.config.yaml'), 'sources:\n  wiki:\n    dpeth: 3\n');
    const error = await expectCode(
      createKernel({ ...silent, config: await loadConfig({ cwd: dir, env: {} }) })
        .use(wiki, { baseUrl: 'https://wiki.example.com/' })
        .start(),
      'PLUGIN_OPTIONS_INVALID',
    );
    expect(error.message).toContain('wiki.dpeth: Unrecognized key');
  });
});

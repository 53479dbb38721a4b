import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfigSection, definePlugin, ProContextError, z } from '@pro-context/kernel';
import { createKernel } from '@pro-context/runtime';
import { describe, expect, it } from 'vitest';
import { loadConfig, validateConfig } from '../src/index.js';

// the validator the preset gives the kernel; no logger: the kernel logs nothing
const withValidator = { validateConfig };

async function failure(start: Promise<unknown>): Promise<ProContextError> {
  try {
    await start;
  } catch (error) {
    if (error instanceof ProContextError) return error;
    throw error;
  }
  throw new Error('expected the kernel to refuse to start');
}

describe('keys no installed plugin reads', () => {
  const serverSection = defineConfigSection(
    'server',
    z.strictObject({ port: z.number().int().min(1).max(65535).default(3100) }).prefault({}),
  );
  const hostPlugin = definePlugin({
    id: 'host-like',
    kernel: '*',
    configSections: [serverSection],
    reservedSections: ['sources', 'sources.github'],
    register() {},
  });
  const limitsSection = defineConfigSection(
    'limits',
    z.strictObject({ perMinute: z.number().int().positive().default(60) }).prefault({}),
  );

  it('warn (do not fail) for sections of plugins that are not installed', async () => {
    const kernel = await createKernel({ ...withValidator, config: { sources: { github: { token: 'x' } } } })
      .use(hostPlugin)
      .start();
    expect(kernel.warnings).toEqual(['sources.github is set but no installed plugin reads it.']);
    await kernel.stop();
  });

  it('warn about a third-party source section no installed plugin reads (a plugin not composed in, or misspelt)', async () => {
    const kernel = await createKernel({ ...withValidator, config: { sources: { internalDocs: { root: '/docs' } } } })
      .use(hostPlugin)
      .start();
    expect(kernel.warnings).toEqual([
      "sources.internalDocs is set but no installed plugin reads it (check the plugin is installed and the name's spelling).",
    ]);
    await kernel.stop();
  });

  it('are unknown keys without the plugin that declares their section (or a warning where a plugin reserved them)', async () => {
    const bare = await failure(createKernel({ ...withValidator, config: { security: { cors: {} } } }).start());
    expect(bare.message).toContain('security.cors: Unrecognized key');
    const misspelt = await failure(createKernel({ ...withValidator, config: { loging: { level: 'debug' } } }).start());
    expect(misspelt.code).toBe('CONFIG_INVALID');
    expect(misspelt.message).toBe(
      "Invalid configuration:\n  - loging: Unrecognized key (check its spelling and indentation): did you mean 'logging'?",
    );
    const reserving = definePlugin({ id: 'preset-like', kernel: '*', reservedSections: ['limits'], register() {} });
    const kernel = await createKernel({ ...withValidator, config: { limits: { perMinute: 5 } } })
      .use(reserving)
      .start();
    expect(kernel.warnings).toEqual(['limits is set but no installed plugin reads it.']);
    expect(limitsSection.read(kernel.config)).toEqual({ perMinute: 5 });
    await kernel.stop();
  });

  it('guess among the sections plugins reserved too: a misspelt one is named, with its line', async () => {
    // a reserved section of a plugin not enabled (the preset's `context7` without the context7 plugin)
    const reserving = definePlugin({ id: 'preset-like', kernel: '*', reservedSections: ['limits'], register() {} });
    const misspelt = await failure(
      createKernel({ ...withValidator, config: { limts: { perMinute: 5 } } })
        .use(reserving)
        .start(),
    );
    expect(misspelt.message).toContain(
      "limts: Unrecognized key (check its spelling and indentation): did you mean 'limits'?",
    );
    // a misspelt bag under a reserved section is set aside with a warning: it names the section meant, and its line
    const source = {
      values: { sources: { githbu: { token: 'x' }, internalDocs: { root: '/docs' } } },
      lines: new Map([
        ['sources', 1],
        ['sources.githbu', 2],
        ['sources.githbu.token', 3],
        ['sources.internalDocs', 4],
      ]),
      fromEnv: new Map(),
      file: '/project/pro-context.config.yaml',
    };
    const kernel = await createKernel({ ...withValidator, config: source })
      .use(hostPlugin)
      .start();
    expect(kernel.warnings).toEqual([
      "sources.githbu (line 2) is set but no installed plugin reads it (check the plugin is installed and the name's spelling): did you mean 'github'?",
      "sources.internalDocs (line 4) is set but no installed plugin reads it (check the plugin is installed and the name's spelling).",
    ]);
    await kernel.stop();
  });
});

describe('environment variables declared by plugins', () => {
  it('cannot be declared twice for different keys', async () => {
    const apiPlugin = definePlugin({
      id: 'remote-api',
      kernel: '*',
      configKey: 'remoteApi',
      optionsSchema: z.strictObject({ url: z.url().default('https://api.example.test') }),
      environment: [{ variable: 'REMOTE_API_URL', key: 'remoteApi.url' }],
      register() {},
    });
    const other = definePlugin({
      id: 'other-api',
      kernel: '*',
      environment: [{ variable: 'REMOTE_API_URL', key: 'otherApi.url' }],
      register() {},
    });
    const error = await failure(createKernel(withValidator).use(apiPlugin).use(other).start());
    expect(error.code).toBe('CONTRACT_CONFLICT');
    expect(error.message).toBe(
      "REMOTE_API_URL sets 'remoteApi.url' for plugin 'remote-api' and 'otherApi.url' for plugin 'other-api'.",
    );
  });
});

describe('a misspelt key', () => {
  const server = defineConfigSection(
    'server',
    z
      .strictObject({
        port: z.number().int().default(3100),
        tls: z.strictObject({ certFile: z.string().optional() }).optional(),
      })
      .prefault({}),
  );
  const mirrors = defineConfigSection(
    'mirrors',
    z.array(z.strictObject({ url: z.string(), retries: z.number().optional() })).default([]),
  );
  const plugin = definePlugin({ id: 'guessing', kernel: '*', configSections: [server, mirrors], register() {} });

  it('names the key it was likely meant to be, at every depth, and guesses nothing far off', async () => {
    const error = await failure(
      createKernel({
        ...withValidator,
        config: {
          loging: { level: 'debug' },
          server: { prot: 80, tls: { certFiel: 'a.pem' }, colour: 'red' },
          mirrors: [{ url: 'https://m.test', retires: 2 }],
        },
      })
        .use(plugin)
        .start(),
    );
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain(
      "loging: Unrecognized key (check its spelling and indentation): did you mean 'logging'?",
    );
    expect(error.message).toContain(
      "server.prot: Unrecognized key (check its spelling and indentation): did you mean 'port'?",
    );
    expect(error.message).toContain(
      "server.tls.certFiel: Unrecognized key (check its spelling and indentation): did you mean 'certFile'?",
    );
    expect(error.message).toContain(
      "mirrors.0.retires: Unrecognized key (check its spelling and indentation): did you mean 'retries'?",
    );
    expect(error.message).toContain('server.colour: Unrecognized key (check its spelling and indentation)\n');
  });
});

describe('the list of bad keys', () => {
  it('follows the file line by line, whichever sections they are in', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pc-order-'));
    writeFileSync(
      join(dir, 'pro-context.config.yaml'),
      ['loging:', '  level: debug', 'http:', '  timeoutMS: 5', 'cahce:', '  directory: /tmp/x', ''].join('\n'),
    );
    const error = await failure(
      createKernel({ ...withValidator, config: await loadConfig({ cwd: dir, env: {} }) }).start(),
    );
    const lines = error.message.split('\n').filter((line) => line.startsWith('  - '));
    expect(lines.map((line) => line.slice(4, line.indexOf(':')))).toEqual([
      'loging (line 1)',
      'http.timeoutMS (line 4)',
      'cahce (line 5)',
    ]);
  });
});

describe("a library's sources settings", () => {
  // what the engine and a source plugin declare: the libraries section, and the plugin's bag in each library
  const librariesPlugin = definePlugin({
    id: 'libraries-like',
    kernel: '*',
    configSections: [
      defineConfigSection(
        'libraries',
        z
          .array(z.strictObject({ id: z.string(), sources: z.record(z.string(), z.record(z.string(), z.unknown())) }))
          .default([]),
      ),
    ],
    register() {},
  });
  const wikiPlugin = definePlugin({
    id: 'wiki-source',
    kernel: '*',
    librarySettings: { key: 'wiki', schema: z.strictObject({ baseUrl: z.url(), depth: z.number().int().optional() }) },
    register() {},
  });

  it('are checked with the other keys, in one list in the order of the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pc-sources-'));
    writeFileSync(
      join(dir, 'pro-context.config.yaml'),
      [
        'libraries:',
        '  - id: acme',
        '    sources:',
        '      wiki:',
        '        baseUrl: https://wiki.example.test',
        '        dpeth: 2',
        'loging:',
        '  level: debug',
        '',
      ].join('\n'),
    );
    const error = await failure(
      createKernel({ ...withValidator, config: await loadConfig({ cwd: dir, env: {} }) })
        .use(librariesPlugin)
        .use(wikiPlugin)
        .start(),
    );
    const lines = error.message.split('\n').filter((line) => line.startsWith('  - '));
    expect(lines).toEqual([
      "  - libraries.0.sources.wiki.dpeth (line 6): Unrecognized key (check its spelling and indentation): did you mean 'depth'?",
      "  - loging (line 7): Unrecognized key (check its spelling and indentation): did you mean 'logging'?",
    ]);
  });

  it('are left to their plugin: a valid bag passes, a bag no installed plugin declares is no error here', async () => {
    const kernel = await createKernel({
      ...withValidator,
      config: {
        libraries: [{ id: 'acme', sources: { wiki: { baseUrl: 'https://wiki.example.test' }, other: { x: 1 } } }],
      },
    })
      .use(librariesPlugin)
      .use(wikiPlugin)
      .start();
    await kernel.stop();
    const bad = await failure(
      createKernel({
        ...withValidator,
        config: { libraries: [{ id: 'acme', sources: { wiki: { baseUrl: 'nope' } } }] },
      })
        .use(librariesPlugin)
        .use(wikiPlugin)
        .start(),
    );
    expect(bad.message).toContain('libraries.0.sources.wiki.baseUrl: Invalid URL');
  });
});

import {
  cacheStoreToken,
  createNullLogger,
  createToken,
  defineConfigSection,
  definePlugin,
  inject,
  injectable,
  KERNEL_VERSION,
  kernelTokens,
  type Logger,
  ProContextError,
  type SourceAdapter,
  sourceAdapterToken,
  z,
} from '@pro-context/kernel';
import { describe, expect, it } from 'vitest';
import { createKernel } from '../src/index.js';

// no logger given: the kernel's own logs nothing
const silent = {};

function fakeAdapter(id: string): SourceAdapter {
  return {
    id,
    priority: 10,
    canHandle: () => true,
    fetchToc: async () => ({ entries: [], sourceUrl: id, fetchedAt: new Date(0).toISOString(), freshness: {} }),
    fetchDocs: async () => ({ pages: [], sourceUrl: id, fetchedAt: new Date(0).toISOString(), freshness: {} }),
    checkFreshness: async () => 'unknown',
  };
}

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

describe('plugin checks before register', () => {
  it('refuses a duplicate plugin id, naming it', async () => {
    const a = definePlugin({ id: 'docs-a', kernel: '*', register() {} });
    const error = await expectCode(() => createKernel(silent).use(a).use(a), 'PLUGIN_DUPLICATE_ID');
    expect(error.message).toBe("Plugin 'docs-a' is registered twice.");
  });

  it('refuses a plugin built for another kernel, naming both versions', async () => {
    const plugin = definePlugin({ id: 'future', version: '3.0.0', kernel: '^9.0.0', register() {} });
    const error = await expectCode(() => createKernel(silent).use(plugin), 'PLUGIN_KERNEL_MISMATCH');
    expect(error.message).toBe(`Plugin 'future' 3.0.0 needs kernel ^9.0.0, but this kernel is ${KERNEL_VERSION}.`);
    expect(error.suggestion).toMatch(/Install a plugin release built for this kernel/);
  });

  it('refuses a missing dependency, naming the dependency and the plugin', async () => {
    const plugin = definePlugin({ id: 'needs-cache', kernel: '*', dependsOn: ['sqlite-cache'], register() {} });
    const error = await expectCode(createKernel(silent).use(plugin).start(), 'PLUGIN_DEPENDENCY_MISSING');
    expect(error.message).toBe("The dependency 'sqlite-cache' of plugin 'needs-cache' is not registered.");
  });

  it('starts a plugin whose required option is given only to use(), over what its section holds', async () => {
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
    const kernel = await createKernel({ ...silent, config: { sources: { wiki: { depth: 3 } } } })
      .use(wiki, { baseUrl: 'https://wiki.example.com/' })
      .start();
    await kernel.stop();
    expect(seen).toEqual({ baseUrl: 'https://wiki.example.com/', depth: 3 });
    // without the option, the section alone is still refused, naming the key
    const error = await expectCode(createKernel(silent).use(wiki).start(), 'CONFIG_INVALID');
    expect(error.message).toContain('sources.wiki.baseUrl');
  });

  it('refuses invalid explicit options with plugin.path: message', async () => {
    const plugin = definePlugin({
      id: 'pager',
      kernel: '*',
      optionsSchema: z.strictObject({ maxPages: z.number().int().min(1).default(10), label: z.string() }),
      register() {},
    });
    const error = await expectCode(
      createKernel(silent).use(plugin, { maxPages: 0, label: 'x', colour: 'red' }).start(),
      'PLUGIN_OPTIONS_INVALID',
    );
    expect(error.message).toContain('pager.maxPages: Too small: expected number to be >=1');
    expect(error.message).toContain('pager.colour: Unrecognized key');
  });

  it('refuses malformed plugins loudly', async () => {
    const badId = await expectCode(
      () => createKernel(silent).use(definePlugin({ id: 'Bad Id', kernel: '*', register() {} })),
      'PLUGIN_INVALID',
    );
    expect(badId.message).toBe(`kernel.use() #1: plugin id "Bad Id" must be kebab-case, like 'llms-txt'.`);
    await expectCode(
      () => createKernel(silent).use(definePlugin({ id: 'x', kernel: 'not a range', register() {} })),
      'PLUGIN_INVALID',
    );
    const error = await expectCode(() => createKernel(silent).use({ default: {} } as never), 'PLUGIN_INVALID');
    expect(error.message).toMatch(/module namespace; pass its default export/);
    const none = await expectCode(() => createKernel(silent).use(null as never), 'PLUGIN_INVALID');
    expect(none.message).toBe('kernel.use() #1: expected a plugin object, got null.');
  });

  it('refuses a second provider of a singular contract, naming both plugins', async () => {
    const cacheA = definePlugin({
      id: 'cache-a',
      kernel: '*',
      register: (ctx) => ctx.bindValue(cacheStoreToken, {} as never),
    });
    const cacheB = definePlugin({
      id: 'cache-b',
      kernel: '*',
      register: (ctx) => ctx.bindValue(cacheStoreToken, {} as never),
    });
    const error = await expectCode(createKernel(silent).use(cacheA).use(cacheB).start(), 'CONTRACT_CONFLICT');
    expect(error.message).toBe(
      "Contract 'kernel.cacheStore' is already provided by plugin 'cache-a'; plugin 'cache-b' provides it too.",
    );
  });
});

describe('binding and lifecycle', () => {
  it('binds plural contracts as multi-bindings', async () => {
    const kernel = await createKernel(silent)
      .use(
        definePlugin({ id: 'a', kernel: '*', register: (ctx) => ctx.bindValue(sourceAdapterToken, fakeAdapter('a')) }),
      )
      .use(
        definePlugin({ id: 'b', kernel: '*', register: (ctx) => ctx.bindValue(sourceAdapterToken, fakeAdapter('b')) }),
      )
      .start();
    expect(kernel.resolveAll(sourceAdapterToken).map((a) => a.id)).toEqual(['a', 'b']);
    await kernel.stop();
  });

  it('injects kernel services and plugin tokens by token into classes', async () => {
    const greetingToken = createToken<string>('test.greeting');
    const serviceToken = createToken<Greeter>('test.greeter');
    @injectable()
    class Greeter {
      constructor(
        @inject(greetingToken) readonly greeting: string,
        @inject(kernelTokens.logger) readonly logger: Logger,
      ) {}
    }
    const kernel = await createKernel(silent)
      .use(
        definePlugin({
          id: 'greeter',
          kernel: '*',
          register(ctx) {
            ctx.bindValue(greetingToken, 'hello');
            ctx.bindClass(serviceToken, Greeter);
          },
        }),
      )
      .start();
    const greeter = kernel.resolve(serviceToken);
    expect(greeter).toBeInstanceOf(Greeter);
    expect(greeter.greeting).toBe('hello');
    expect(greeter.logger).toBe(kernel.logger);
    expect(kernel.resolve(serviceToken)).toBe(greeter); // one instance per kernel
    await kernel.stop();
  });

  it('gives two kernels in one process separate containers', async () => {
    const counterToken = createToken<{ n: number }>('test.counter');
    const plugin = definePlugin({
      id: 'counter',
      kernel: '*',
      register: (ctx) => ctx.bindFactory(counterToken, () => ({ n: 0 })),
    });
    const one = await createKernel(silent).use(plugin).start();
    const two = await createKernel(silent).use(plugin).start();
    one.resolve(counterToken).n = 5;
    expect(two.resolve(counterToken).n).toBe(0);
    expect(one.isBound(cacheStoreToken)).toBe(false);
    await Promise.all([one.stop(), two.stop()]);
  });

  it('starts dependencies first and stops in reverse order; register does no I/O after freeze', async () => {
    const log: string[] = [];
    const make = (id: string, dependsOn: string[] = []) =>
      definePlugin({
        id,
        kernel: '*',
        dependsOn,
        register: () => void log.push(`register ${id}`),
        start: () => void log.push(`start ${id}`),
        stop: () => void log.push(`stop ${id}`),
      });
    const kernel = await createKernel(silent)
      .use(make('engine', ['cache']))
      .use(make('cache'))
      .start();
    await kernel.stop();
    await kernel.stop();
    expect(log).toEqual([
      'register engine',
      'register cache',
      'start cache',
      'start engine',
      'stop engine',
      'stop cache',
    ]);
  });

  it('stops the plugins already started when a later start fails', async () => {
    const log: string[] = [];
    const ok = definePlugin({
      id: 'ok',
      kernel: '*',
      register() {},
      start: () => void log.push('start ok'),
      stop: () => void log.push('stop ok'),
    });
    const bad = definePlugin({
      id: 'bad',
      kernel: '*',
      register() {},
      start() {
        throw new Error('boom');
      },
    });
    await expect(createKernel(silent).use(ok).use(bad).start()).rejects.toThrow('boom');
    expect(log).toEqual(['start ok', 'stop ok']);
  });
});

describe('configuration without a validator', () => {
  // createKernel's own check when no `validateConfig` (of @pro-context/config) is given
  const serverSection = defineConfigSection(
    'server',
    z.strictObject({ port: z.number().int().min(1).max(65535).default(3100) }).prefault({}),
  );
  const hostPlugin = definePlugin({
    id: 'host-like',
    kernel: '*',
    configKey: 'hostLike',
    optionsSchema: z.strictObject({ name: z.string().default('a') }),
    configSections: [serverSection],
    environment: [{ variable: 'PRO_CONTEXT_PORT', key: 'server.port', type: 'number' }],
    register(ctx, options) {
      ctx.bindValue(createToken<typeof options>('test.hostOptions'), options);
    },
  });

  it('parses each declared section by its schema, with the same code and sentences as the validator', async () => {
    const kernel = await createKernel({ config: { server: { port: 8080 }, hostLike: { name: 'b' } } })
      .use(hostPlugin)
      .start();
    expect(serverSection.read(kernel.config)).toEqual({ port: 8080 });
    expect(kernel.resolve(createToken<{ name: string }>('test.hostOptions'))).toEqual({ name: 'b' });
    expect(kernel.config.logging.level).toBe('info');
    await kernel.stop();

    const error = await expectCode(
      createKernel({
        config: {
          values: { server: { port: 0 }, hostLike: { nam: 'c' } },
          file: '/x.yaml',
          lines: new Map([['server.port', 3]]),
          fromEnv: new Map(),
        },
      })
        .use(hostPlugin)
        .start(),
      'CONFIG_INVALID',
    );
    // no line numbers: finding them is the validator's
    expect(error.message).toBe(
      'Invalid configuration in /x.yaml:\n' +
        '  - hostLike.nam: Unrecognized key (check its spelling and indentation)\n' +
        '  - server.port: Too small: expected number to be >=1',
    );
    expect(error.suggestion).toBe('Fix the keys listed and start again.');
  });

  it('applies no plugin variable and does not judge keys outside the declared sections', async () => {
    const kernel = await createKernel({
      config: {
        values: { loging: { level: 'debug' } },
        lines: new Map(),
        fromEnv: new Map(),
        env: { PRO_CONTEXT_PORT: '9000' },
      },
    })
      .use(hostPlugin)
      .start();
    expect(serverSection.read(kernel.config)).toEqual({ port: 3100 });
    expect(kernel.warnings).toEqual([]);
    expect(kernel.environment).toEqual([]);
    await kernel.stop();
  });
});

describe('services declared as data, and the background phase', () => {
  const storeToken = createToken<{ name: string }>('test.store');

  it('starts a plugin after the plugins that declare the tokens it needs, whatever the order of use()', async () => {
    const log: string[] = [];
    const consumer = definePlugin({
      id: 'consumer',
      kernel: '*',
      needs: [storeToken],
      register() {},
      start: (ctx) => void log.push(`start consumer (store ${ctx.resolve(storeToken).name})`),
    });
    const store = definePlugin({
      id: 'store',
      kernel: '*',
      provides: [storeToken],
      register: (ctx) => ctx.bindValue(storeToken, { name: 'disk' }),
      start: () => void log.push('start store'),
    });
    const kernel = await createKernel(silent).use(consumer).use(store).start();
    expect(log).toEqual(['start store', 'start consumer (store disk)']);
    await kernel.stop();
  });

  it('refuses to start when a needed token is bound by no plugin, naming the plugin, the token and who declares it', async () => {
    const consumer = definePlugin({ id: 'consumer', kernel: '*', needs: [storeToken], register() {} });
    const error = await expectCode(createKernel(silent).use(consumer).start(), 'PLUGIN_DEPENDENCY_MISSING');
    expect(error.message).toBe("Plugin 'consumer' needs 'test.store', which no plugin provides.");
    const off = definePlugin({ id: 'store', kernel: '*', provides: [storeToken], register() {} });
    const again = await expectCode(createKernel(silent).use(consumer).use(off).start(), 'PLUGIN_DEPENDENCY_MISSING');
    expect(again.message).toContain("('store' declares it but bound nothing");
  });

  it('takes an undeclared plugin at its register() (a third party): a need it binds is met', async () => {
    const consumer = definePlugin({ id: 'consumer', kernel: '*', needs: [storeToken], register() {} });
    const legacy = definePlugin({
      id: 'legacy',
      kernel: '*',
      register: (ctx) => ctx.bindValue(storeToken, { name: 'legacy' }),
    });
    const kernel = await createKernel(silent).use(consumer).use(legacy).start();
    expect(kernel.resolve(storeToken).name).toBe('legacy');
    await kernel.stop();
  });

  it('refuses provides/needs that are not tokens', async () => {
    await expectCode(
      () =>
        createKernel(silent).use(definePlugin({ id: 'x', kernel: '*', needs: ['test.store'] as never, register() {} })),
      'PLUGIN_INVALID',
    );
  });

  it('runs background phases after start by itself, or when the host asks (deferBackground), once', async () => {
    const log: string[] = [];
    const scanner = definePlugin({
      id: 'scanner',
      kernel: '*',
      register() {},
      start: () => void log.push('start'),
      background: () => void log.push('background'),
    });
    const auto = await createKernel(silent).use(scanner).start();
    expect(log).toEqual(['start']);
    await new Promise((r) => setImmediate(r));
    expect(log).toEqual(['start', 'background']);
    await auto.stop();

    log.length = 0;
    const deferred = await createKernel({ ...silent, deferBackground: true })
      .use(scanner)
      .start();
    await new Promise((r) => setTimeout(r, 20));
    expect(log).toEqual(['start']);
    await Promise.all([deferred.background(), deferred.background()]);
    expect(log).toEqual(['start', 'background']);
    await deferred.stop();
  });

  it('runs no background phase after stop, and logs (does not throw) a failing one', async () => {
    const errors: string[] = [];
    const logger = { ...createNullLogger(), error: (msg: string) => void errors.push(msg) };
    logger.child = () => logger;
    let ran = 0;
    const failing = definePlugin({
      id: 'failing',
      kernel: '*',
      register() {},
      background() {
        ran += 1;
        throw new Error('scan failed');
      },
    });
    const stopped = await createKernel({ logger, deferBackground: true }).use(failing).start();
    await stopped.stop();
    await stopped.background();
    expect(ran).toBe(0);
    const kernel = await createKernel({ logger, deferBackground: true }).use(failing).start();
    await kernel.background();
    expect(ran).toBe(1);
    expect(errors).toContain('plugin background phase failed');
    await kernel.stop();
  });
});

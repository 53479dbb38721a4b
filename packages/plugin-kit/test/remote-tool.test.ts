import {
  type AnyPlugin,
  type CacheStore,
  cacheStoreToken,
  createToken,
  definePlugin,
  type HttpClient,
  ProContextError,
  type StartedKernel,
  type ToolContext,
  type ToolDefinition,
  toolPluginToken,
  z,
} from '@pro-context/kernel';
import { createSilentLogger } from '@pro-context/logging';
import { createKernel, setPath } from '@pro-context/runtime';
import { describe, expect, it } from 'vitest';
import { defineRemoteToolPlugin, RemoteTools, remoteToolCacheMinutes, remoteToolOptionsShape } from '../src/index.js';
import { maskingKey, remoteToolErrorText, requireKey, withoutBlankKey } from '../src/remote-tool.js';

describe('the missing-key rule', () => {
  it('a blank key is no key; a key is trimmed', () => {
    expect(withoutBlankKey({ apiKey: '   ', other: 1 })).toEqual({ other: 1 });
    expect(withoutBlankKey({ apiKey: ' k-1 \n' })).toEqual({ apiKey: 'k-1' });
    expect(withoutBlankKey({})).toEqual({});
  });

  it('requireKey answers the key, or throws the plugin’s missing-key error', () => {
    const missing = () => new ProContextError('INVALID_INPUT', 'Error: X_API_KEY environment variable not set');
    expect(requireKey('k', missing)).toBe('k');
    expect(() => requireKey(undefined, missing)).toThrow('Error: X_API_KEY environment variable not set');
  });

  it('an error leaves maskingKey with the key masked in its message', async () => {
    await expect(
      maskingKey('secret-123', async () => {
        throw new Error('upstream echoed secret-123 twice: secret-123');
      }),
    ).rejects.toThrow('upstream echoed [REDACTED] twice: [REDACTED]');
  });

  it('the missing key reads as its plain message, any other error as the payload', () => {
    const text = remoteToolErrorText('INVALID_INPUT', 'Error: X_API_KEY environment variable not set');
    expect(text(new ProContextError('INVALID_INPUT', 'whatever'))).toBe(
      'Error: X_API_KEY environment variable not set',
    );
    expect(JSON.parse(text(new ProContextError('SOURCE_UNAVAILABLE', 'down')))).toMatchObject({
      code: 'SOURCE_UNAVAILABLE',
      message: 'down',
    });
  });
});

/**
 * A kernel with only the plugin under test (no `@pro-context/testing`: it depends on `@pro-context/http`, which
 * depends on this package; nor `@pro-context/config`, which depends on this package too). The plugins' declared
 * environment variables are set at their keys as given (what the config validator does, without its trimming):
 * what the plugin makes of the value is what is tested. The HTTP client is never called here.
 */
async function startKernel(options: {
  plugins: AnyPlugin[];
  env?: Record<string, string>;
  config?: Record<string, unknown>;
}): Promise<StartedKernel> {
  const values = structuredClone(options.config ?? {});
  for (const plugin of options.plugins) {
    for (const { variable, key } of plugin.environment ?? []) {
      const value = options.env?.[variable];
      if (value !== undefined) setPath(values, key, value);
    }
  }
  const builder = createKernel({
    config: values,
    http: { retries: 2, close: async () => undefined } as unknown as HttpClient,
    logger: createSilentLogger(),
  });
  for (const plugin of options.plugins) builder.use(plugin);
  return builder.start();
}

/** A cache store of one Map (what `cachedResult` uses of it: get and set), bound by a plugin of its own. */
function memoryCache(): { plugin: AnyPlugin; writes: string[] } {
  const entries = new Map<string, unknown>();
  const writes: string[] = [];
  const cache = {
    async get(namespace: string, key: string) {
      const id = `${namespace}/${key}`;
      return entries.has(id) ? { value: entries.get(id), stale: false } : undefined;
    },
    async set(namespace: string, key: string, value: unknown) {
      writes.push(namespace);
      entries.set(`${namespace}/${key}`, value);
    },
  } as unknown as CacheStore;
  const plugin = definePlugin({
    id: 'memory-cache',
    kernel: '^0.1.0',
    register: (context) => context.bindValue(cacheStoreToken, cache),
  });
  return { plugin, writes };
}

const context = { logger: createSilentLogger() } as unknown as ToolContext;

describe('defineRemoteToolPlugin', () => {
  interface Resolved {
    enabled: boolean;
    url: string;
    apiKey?: string;
    timeoutSeconds: number;
    cacheMinutes: number;
    retry: { retries: number; retryDelaysMs: number[]; maxRetryAfterMs: number };
  }
  const optionsToken = createToken<Resolved>('fake-remote.options');
  const fakeErrors = {
    FAKE_REMOTE_KEY_MISSING: {
      recoverable: false,
      message: 'Error: FAKE_REMOTE_KEY environment variable not set',
      suggestion: 'Set FAKE_REMOTE_KEY.',
    },
  };
  let loads = 0;
  /** One tool, `echo`: what a call sends (the key masked should the upstream fail with it), reused while fresh. */
  class Tools extends RemoteTools<Resolved> {
    tools(): ToolDefinition[] {
      return [
        this.tool({
          name: 'echo',
          title: 'Echo',
          description: 'Answers what it would send.',
          inputSchema: z.object({ text: z.string(), fail: z.boolean().default(false) }),
          outputSchema: z.object({ sent: z.string() }),
          handler: async (args) => {
            const connection = this.connection();
            const { value, cached } = await this.cached(connection.apiKey, args.text, async () => {
              loads += 1;
              if (args.fail) throw new Error(`upstream refused key ${connection.apiKey}`);
              return `${connection.url} ${connection.timeoutMs} ${connection.retry.retries} ${args.text}`;
            });
            return { structured: { sent: value }, text: `${value}${cached ? ' (cached)' : ''}` };
          },
        }),
      ];
    }
  }
  const plugin = defineRemoteToolPlugin({
    id: 'fake-remote',
    version: '0.0.0',
    description: 'a remote tool plugin for the test',
    configKey: 'fakeRemote',
    optionsSchema: z.strictObject({
      ...remoteToolOptionsShape({ enabled: 'on', url: 'root', apiKey: 'key' }),
      timeoutSeconds: z.number().default(5),
      cacheMinutes: remoteToolCacheMinutes('a result'),
    }),
    urlVariable: 'FAKE_REMOTE_URL',
    keyVariable: 'FAKE_REMOTE_KEY',
    defaultUrl: 'https://api.fake-remote.test',
    errors: fakeErrors,
    optionsToken,
    retries: (_options, http) => http.retries,
    cacheNamespace: 'fake-remote',
    missingKey: () =>
      new ProContextError('FAKE_REMOTE_KEY_MISSING', fakeErrors.FAKE_REMOTE_KEY_MISSING.message, {
        recoverable: false,
      }),
    tools: Tools,
  });

  it('binds the options by the missing-key rule, with the default URL and the kernel’s retries', async () => {
    const kernel = await startKernel({ plugins: [memoryCache().plugin, plugin], env: { FAKE_REMOTE_KEY: '  ' } });
    try {
      const options = kernel.resolve(optionsToken);
      expect(options.apiKey).toBeUndefined();
      expect(options.url).toBe('https://api.fake-remote.test');
      expect(options.retry.retries).toBe(kernel.config.http.retries);
      expect(kernel.resolveAll(toolPluginToken).map((p) => p.id)).toContain('fake-remote');
    } finally {
      await kernel.stop();
    }
  });

  it('reads the key and the URL from their variables; enabled: false binds nothing', async () => {
    const kernel = await startKernel({
      plugins: [memoryCache().plugin, plugin],
      env: { FAKE_REMOTE_KEY: ' k-9 ', FAKE_REMOTE_URL: 'http://127.0.0.1:9' },
    });
    try {
      expect(kernel.resolve(optionsToken)).toMatchObject({ apiKey: 'k-9', url: 'http://127.0.0.1:9' });
    } finally {
      await kernel.stop();
    }
    const off = await startKernel({ plugins: [plugin], config: { fakeRemote: { enabled: false } } });
    try {
      expect(off.isBound(optionsToken)).toBe(false);
    } finally {
      await off.stop();
    }
  });

  it('lists the tools read-only, open-world and idempotent; without a key a call answers the plain message', async () => {
    const kernel = await startKernel({ plugins: [memoryCache().plugin, plugin], env: {} });
    try {
      const tools = kernel.resolveAll(toolPluginToken).find((p) => p.id === 'fake-remote');
      const echo = tools?.tools()[0];
      expect(echo?.annotations).toEqual({ readOnlyHint: true, openWorldHint: true, idempotentHint: true });
      const error = await echo?.handler({ text: 'hi', fail: false }, context).catch((e: ProContextError) => e);
      expect(error).toBeInstanceOf(ProContextError);
      expect(echo?.renderError?.(error as ProContextError)).toBe('Error: FAKE_REMOTE_KEY environment variable not set');
      expect(echo?.renderError?.(new ProContextError('SOURCE_UNAVAILABLE', 'down'))).toContain('"SOURCE_UNAVAILABLE"');
    } finally {
      await kernel.stop();
    }
  });

  it('a call sends the key, URL, deadline and retries; an identical call is reused; a failure masks the key', async () => {
    const cache = memoryCache();
    const kernel = await startKernel({
      plugins: [cache.plugin, plugin],
      env: { FAKE_REMOTE_KEY: 'k-secret', FAKE_REMOTE_URL: 'http://127.0.0.1:9' },
      config: { fakeRemote: {} },
    });
    try {
      const echo = kernel
        .resolveAll(toolPluginToken)
        .find((p) => p.id === 'fake-remote')
        ?.tools()[0] as ToolDefinition;
      loads = 0;
      const first = await echo.handler({ text: 'hi', fail: false }, context);
      expect(first.text).toBe(`http://127.0.0.1:9 5000 ${kernel.config.http.retries} hi`);
      const again = await echo.handler({ text: 'hi', fail: false }, context);
      expect(again.text).toBe(`${first.text} (cached)`);
      expect(loads).toBe(1);
      expect(cache.writes).toEqual(['fake-remote']);
      await expect(echo.handler({ text: 'other', fail: true }, context)).rejects.toThrow(
        'upstream refused key [REDACTED]',
      );
    } finally {
      await kernel.stop();
    }
  });
});

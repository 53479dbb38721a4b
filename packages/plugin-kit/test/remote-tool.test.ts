import {
  type AnyPlugin,
  createKernel,
  createToken,
  type HttpClient,
  ProContextError,
  type StartedKernel,
  type ToolPlugin,
  toolPluginToken,
  z,
} from '@pro-context/kernel';
import { createSilentLogger } from '@pro-context/logging';
import { describe, expect, it } from 'vitest';
import {
  defineRemoteToolPlugin,
  maskingKey,
  remoteToolErrorText,
  remoteToolOptionsShape,
  requireKey,
  withoutBlankKey,
} from '../src/index.js';

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
 * depends on this package). The HTTP client is never called here.
 */
async function startKernel(options: {
  plugins: AnyPlugin[];
  env?: Record<string, string>;
  config?: Record<string, unknown>;
}): Promise<StartedKernel> {
  const values = options.config ?? {};
  const builder = createKernel({
    config: options.env ? { values, lines: new Map(), fromEnv: new Map(), env: options.env } : values,
    http: { retries: 2, close: async () => undefined } as unknown as HttpClient,
    logger: createSilentLogger(),
  });
  for (const plugin of options.plugins) builder.use(plugin);
  return builder.start();
}

describe('defineRemoteToolPlugin', () => {
  interface Resolved {
    enabled: boolean;
    url: string;
    apiKey?: string;
    retry: { retries: number };
  }
  const optionsToken = createToken<Resolved>('fake-remote.options');
  class Tools implements ToolPlugin {
    readonly id = 'fake-remote';
    tools() {
      return [];
    }
  }
  const plugin = defineRemoteToolPlugin({
    id: 'fake-remote',
    version: '0.0.0',
    description: 'a remote tool plugin for the test',
    configKey: 'fakeRemote',
    optionsSchema: z.strictObject(remoteToolOptionsShape({ enabled: 'on', url: 'root', apiKey: 'key' })),
    urlVariable: 'FAKE_REMOTE_URL',
    keyVariable: 'FAKE_REMOTE_KEY',
    defaultUrl: 'https://api.fake-remote.test',
    errors: {},
    optionsToken,
    retries: (_options, http) => http.retries,
    tools: Tools,
  });

  it('binds the options by the missing-key rule, with the default URL and the kernel’s retries', async () => {
    const kernel = await startKernel({ plugins: [plugin], env: { FAKE_REMOTE_KEY: '  ' } });
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
      plugins: [plugin],
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
});

import {
  defineConfigSection,
  defineErrors,
  definePlugin,
  isProContextError,
  ProContextError,
  toProContextError,
  z,
} from '@pro-context/kernel';
import { describe, expect, it } from 'vitest';
import { createKernel } from '../src/index.js';

// no logger given: the kernel's own logs nothing
const silent = {};

async function failure(start: Promise<unknown>): Promise<ProContextError> {
  try {
    await start;
  } catch (error) {
    if (error instanceof ProContextError) return error;
    throw error;
  }
  throw new Error('expected the kernel to refuse to start');
}

describe('environment variables declared by plugins', () => {
  it('must set a key logs mask when secret', () => {
    const leaky = definePlugin({
      id: 'leaky',
      kernel: '*',
      environment: [{ variable: 'LEAKY_KEY', key: 'leaky.value', secret: true }],
      register() {},
    });
    expect(() => createKernel(silent).use(leaky)).toThrow(
      "kernel.use() #1: plugin 'leaky': secret LEAKY_KEY sets 'leaky.value', a key logs do not mask.",
    );
  });
});

describe('config sections declared by plugins', () => {
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

  it('are validated with the rest, also inside a kernel section, and read back typed', async () => {
    const kernel = await createKernel({
      ...silent,
      config: { security: { urlAllowlist: ['docs.example.test'], cors: { origins: ['https://a.test'] } } },
    })
      .use(hostPlugin)
      .start();
    expect(corsSection.read(kernel.config)).toEqual({ origins: ['https://a.test'] });
    expect(limitsSection.read(kernel.config)).toEqual({ perMinute: 60 });
    expect(kernel.config.security.urlAllowlist).toEqual(['docs.example.test']);
    await kernel.stop();

    const error = await failure(
      createKernel({
        ...silent,
        config: { security: { cors: { origins: 'all' }, bogus: 1 }, limits: { perMinute: 0 } },
      })
        .use(hostPlugin)
        .start(),
    );
    expect(error.message).toContain('security.bogus: Unrecognized key');
    expect(error.message).toContain('security.cors.origins: expected a list, got a string');
    expect(error.message).toContain('limits.perMinute: Too small');
  });

  it("say in a person's words what a key of the wrong type or a missing key needs", async () => {
    const section = defineConfigSection('mirror', z.object({ url: z.string(), retries: z.number().int() }));
    const mirror = definePlugin({ id: 'mirror', kernel: '*', configSections: [section], register() {} });
    const error = await failure(
      createKernel({ ...silent, config: { mirror: { retries: 'x' } } })
        .use(mirror)
        .start(),
    );
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toContain('mirror.url: required: expected a string');
    expect(error.message).toContain('mirror.retries: expected a number, got a string');
    expect(error.message).not.toContain('received');
  });

  it('cannot be declared by two plugins', async () => {
    const twin = definePlugin({ id: 'twin', kernel: '*', configSections: [limitsSection], register() {} });
    const error = await failure(createKernel(silent).use(hostPlugin).use(twin).start());
    expect(error.code).toBe('CONTRACT_CONFLICT');
    expect(error.message).toBe("Config section 'limits' is declared by plugin 'host-like' and by plugin 'twin'.");
  });
});

describe('error codes declared by plugins', () => {
  const remoteErrors = defineErrors({
    REMOTE_KEY_MISSING: {
      recoverable: false,
      suggestion: 'Set REMOTE_API_KEY, then ask about {libraryId} again.',
      message: '[Remote API key not configured for {libraryId}]',
    },
    REMOTE_DOWN: { recoverable: true, suggestion: 'Try again in {retryAfter} seconds.' },
  });
  const remotePlugin = definePlugin({ id: 'remote', kernel: '*', errors: remoteErrors.errors, register() {} });

  it('are raised from their message template, with the table’s suggestion and recoverability', async () => {
    const kernel = await createKernel(silent).use(remotePlugin).start();
    const error = remoteErrors.create('REMOTE_KEY_MISSING', { libraryId: 'acme' }, { details: { a: 1 } });
    expect(toProContextError(error).toPayload()).toEqual({
      code: 'REMOTE_KEY_MISSING',
      message: '[Remote API key not configured for acme]',
      recoverable: false,
      suggestion: 'Set REMOTE_API_KEY, then ask about acme again.',
      details: { a: 1 },
    });
    // registered: constructed directly, a code gets its table entry; it is a catalog error across copies
    const direct = new ProContextError('REMOTE_DOWN', 'down', { retryAfter: 3 });
    expect([direct.recoverable, direct.suggestion]).toEqual([true, 'Try again in 3 seconds.']);
    const copy = Object.assign(new Error('down'), { name: 'ProContextError', code: 'REMOTE_DOWN' });
    expect(isProContextError(copy)).toBe(true);
    await kernel.stop();
  });

  it('stop start-up when another plugin, or the kernel, defines a code differently', async () => {
    const same = definePlugin({ id: 'same', kernel: '*', errors: remoteErrors.errors, register() {} });
    await (await createKernel(silent).use(remotePlugin).use(same).start()).stop();
    const clash = definePlugin({
      id: 'clash',
      kernel: '*',
      errors: {
        REMOTE_DOWN: { recoverable: false, suggestion: 'Give up.' },
        AUTH_INVALID: { recoverable: true, suggestion: 'x' },
      },
      register() {},
    });
    const error = await failure(createKernel(silent).use(remotePlugin).use(clash).start());
    expect(error.code).toBe('CONTRACT_CONFLICT');
    expect(error.message).toBe(
      [
        "Error code 'REMOTE_DOWN' is defined by plugin 'remote' and, differently, by plugin 'clash'.",
        "Error code 'AUTH_INVALID' is defined by the kernel and, differently, by plugin 'clash'.",
      ].join('\n'),
    );
    const badCode = definePlugin({
      id: 'bad-code',
      kernel: '*',
      errors: { 'not-upper': { recoverable: true, suggestion: '' } },
      register() {},
    });
    expect(() => createKernel(silent).use(badCode)).toThrow(/error not-upper must be an UPPER_CASE code/);
  });
});

describe('allowlist entries declared by plugins', () => {
  it('are allowed with their reason; the kernel keeps only the general documentation hosts', async () => {
    const registry = definePlugin({
      id: 'registry-like',
      kernel: '*',
      allowlist: [{ entry: 'registry.example.test', reason: 'package pages (plugin registry-like)' }],
      register() {},
    });
    const bare = await createKernel(silent).start();
    expect(bare.allowlist.entries()).toEqual([
      { entry: '*.github.io', reason: 'default' },
      { entry: '*.readthedocs.io', reason: 'default' },
    ]);
    expect(bare.allowlist.isAllowed('https://pypi.org/project/x/')).toBe(false);
    await bare.stop();
    const kernel = await createKernel(silent).use(registry).start();
    expect(kernel.allowlist.isAllowed('https://registry.example.test/x')).toBe(true);
    expect(kernel.allowlist.entries()).toContainEqual({
      entry: 'registry.example.test',
      reason: 'package pages (plugin registry-like)',
    });
    await kernel.stop();
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createKernel,
  createNullLogger,
  definePlugin,
  type Logger,
  type LoggerFactory,
  ProContextError,
  REDACTED,
  redaction,
  registerSecrets,
} from '../src/index.js';

const noisy = definePlugin({
  id: 'noisy',
  kernel: '*',
  register(context) {
    context.logger.warn('registering', { url: 'https://user:pw-0123456789@docs.example.com/' });
  },
  start(context) {
    context.logger.error('started');
  },
});

describe('the kernel without @pro-context/logging', () => {
  afterEach(() => vi.restoreAllMocks());

  it('given no logger nor factory, writes nothing: not on stdout (stdio MCP owns it), not on stderr', async () => {
    const stdout = vi.spyOn(process.stdout, 'write');
    const stderr = vi.spyOn(process.stderr, 'write');
    const kernel = await createKernel().use(noisy).start();
    kernel.logger.error('after start', { token: 'x' });
    await kernel.stop();
    expect(stdout).not.toHaveBeenCalled();
    expect(stderr).not.toHaveBeenCalled();
  });

  it('builds its logger with the factory from the `logging` config', async () => {
    const seen: unknown[] = [];
    const warnings: string[] = [];
    const factory: LoggerFactory = (options) => {
      seen.push(options);
      const logger: Logger = { ...createNullLogger(), warn: (msg) => void warnings.push(msg) };
      logger.child = () => logger;
      return logger;
    };
    const kernel = await createKernel({
      createLogger: factory,
      config: { logging: { level: 'debug', format: 'pretty' } },
    })
      .use(noisy)
      .start();
    expect(seen).toEqual([{ level: 'debug', format: 'pretty' }]);
    expect(warnings).toEqual(['registering']);
    await kernel.stop();
  });

  it('error payloads still mask registered secrets and secret-named details (the fallback redaction)', () => {
    registerSecrets(['kernel-only-secret-8f3a2c']);
    const payload = new ProContextError('SOURCE_UNAVAILABLE', 'upstream refused kernel-only-secret-8f3a2c', {
      suggestion: 'Check kernel-only-secret-8f3a2c.',
      details: { apiKey: 'short', nested: { note: 'kernel-only-secret-8f3a2c again' } },
    }).toPayload();
    expect(JSON.stringify(payload)).not.toContain('kernel-only-secret-8f3a2c');
    expect(payload.message).toBe(`upstream refused ${REDACTED}`);
    expect(payload.details).toEqual({ apiKey: REDACTED, nested: { note: `${REDACTED} again` } });
    expect(redaction().text('no secret here')).toBe('no secret here');
  });
});

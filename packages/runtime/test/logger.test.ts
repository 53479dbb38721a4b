import { createNullLogger, definePlugin, type Logger, type LoggerFactory } from '@pro-context/kernel';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createKernel } from '../src/index.js';

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
});

import { describe, expect, it } from 'vitest';
import { retrySync } from '../src/index.js';

const busy = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
const isBusy = (error: unknown) => (error as { code?: string }).code === 'SQLITE_BUSY';

describe('retrySync', () => {
  it('repeats a step refused by a passing lock until it succeeds', () => {
    let attempts = 0;
    const started = performance.now();
    const value = retrySync(
      () => {
        attempts += 1;
        if (attempts < 4) throw busy;
        return 'open';
      },
      { timeoutMs: 1000, retryIf: isBusy, intervalMs: 20 },
    );
    expect(value).toBe('open');
    expect(attempts).toBe(4);
    expect(performance.now() - started).toBeGreaterThanOrEqual(55); // three pauses of 20 ms
  });

  it('throws any other error at once, and the lock error itself once the time is up', () => {
    let attempts = 0;
    expect(() =>
      retrySync(
        () => {
          attempts += 1;
          throw new Error('no such table');
        },
        { timeoutMs: 1000, retryIf: isBusy },
      ),
    ).toThrow('no such table');
    expect(attempts).toBe(1);

    const started = performance.now();
    expect(() =>
      retrySync(
        () => {
          throw busy;
        },
        { timeoutMs: 100, retryIf: isBusy },
      ),
    ).toThrow('database is locked');
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(95);
    expect(took).toBeLessThan(1000);
  });
});

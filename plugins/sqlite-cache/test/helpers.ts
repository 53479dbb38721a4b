import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger, LogRecord } from '@pro-context/kernel';
import { createLogger } from '@pro-context/logging';
import { afterEach } from 'vitest';
import { type SqliteCachePluginInput, SqliteCacheStore } from '../src/index.js';

const dirs: string[] = [];
const stores: SqliteCacheStore[] = [];

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh temporary directory, removed after the test. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pro-context-sqlite-cache-'));
  dirs.push(dir);
  return dir;
}

/** A settable clock. */
export function fakeClock(start = Date.UTC(2026, 0, 1)) {
  let time = start;
  return {
    now: () => time,
    advance(ms: number) {
      time += ms;
    },
  };
}

/** A logger that keeps its records. */
export function recordingLogger(): { logger: Logger; records: LogRecord[] } {
  const records: LogRecord[] = [];
  const logger = createLogger({ level: 'debug', stream: { write: () => true } });
  logger.addSink((record) => records.push(record));
  return { logger, records };
}

/** A store on a temporary directory (or the given one), closed after the test. */
export function openStore(
  options: SqliteCachePluginInput = {},
  dependencies: ConstructorParameters<typeof SqliteCacheStore>[1] = {},
): SqliteCacheStore {
  const store = new SqliteCacheStore(
    { cleanupIntervalMinutes: 0, ...options, directory: options.directory ?? tempDir() },
    dependencies,
  );
  stores.push(store);
  return store;
}

export const HOUR = 3_600_000;

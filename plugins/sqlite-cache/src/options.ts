import { resolve } from 'node:path';
import { defineErrors, z } from '@pro-context/kernel';
import { expandHome } from '@pro-context/plugin-kit';
import { sqliteCacheMessages } from './messages.js';

const hours = z.number().min(0);

/** Namespaces the engine writes, each with an optional TTL override (hours; `0` = never expires). */
const ttlHoursSchema = z
  .strictObject({
    versions: hours.default(1).describe('Version lists (seed 001 §9.4: 1 hour).'),
    toc: hours.optional().describe('Parsed tables of contents.'),
    docs: hours.optional().describe('get-docs results.'),
    pages: hours.optional().describe('Fetched pages (read-page).'),
    chunks: hours.optional().describe('Chunked documentation.'),
    index: hours.optional().describe('Search index snapshots.'),
    answers: hours.optional().describe('Tool answers.'),
  })
  .prefault({});

/**
 * Options of the `sqlite-cache` plugin: the `cache` section of `pro-context.config.yaml` (seed 001 §12.1).
 * Strict, so a misspelt key is an error rather than a silent default.
 */
export const sqliteCachePluginOptionsSchema = z.strictObject({
  store: z
    .literal('sqlite')
    .optional()
    .describe(
      'Which store holds the cache, keys and usage: sqlite (this one, the default) or postgres (postgres-store).',
    ),
  directory: z
    .string()
    .min(1)
    .default('~/.pro-context/cache')
    .describe('Directory of cache.db (created if missing; "~" is your home). ":memory:" keeps nothing on disk.'),
  maxMemoryMB: z
    .number()
    .positive()
    .default(8)
    .describe(
      'Memory tier budget, MB its copies take (text beyond Latin-1 counts two bytes a character): hot small values (version lists, TOCs, answers); anything else is read from SQLite.',
    ),
  maxMemoryEntries: z.number().int().positive().default(500).describe('Memory tier entry limit.'),
  maxMemoryEntryKB: z
    .number()
    .positive()
    .default(512)
    .describe('Largest value kept in the memory tier, KB; bigger ones are read from SQLite each time.'),
  maxSizeMB: z
    .number()
    .positive()
    .default(1024)
    .describe('Durable store budget, MB. When over: expired entries go first, then least recently used.'),
  keepInUseSeconds: z
    .number()
    .int()
    .min(0)
    .max(86_400)
    .default(60)
    .describe(
      'Entries read or written in the last this many seconds are not evicted, even over maxSizeMB (with a warning to raise it): a budget smaller than the documentation in use would otherwise evict a library while it is written and fetch it again on every call. 0 = evict by maxSizeMB alone.',
    ),
  defaultTTLHours: hours.default(24).describe('TTL of namespaces without an override, hours (0 = never expires).'),
  ttlHours: ttlHoursSchema.describe('Per-namespace TTL overrides, hours (0 = never expires).'),
  cleanupIntervalMinutes: z
    .number()
    .min(0)
    .default(60)
    .describe('How often to enforce maxSizeMB and flush access times, minutes (0 = only after writes).'),
  busyTimeoutMs: z
    .number()
    .int()
    .min(0)
    .default(5000)
    .describe('How long to wait for another process holding the database lock, ms.'),
  checkpointInWorker: z
    .boolean()
    .default(false)
    .describe(
      "Copy the write-ahead log into cache.db from a worker thread (every ~4 MB written), so that no answer waits for SQLite's checkpoint and its fsync (15-25 ms every ~4 MB written), for ~8 MB of memory while libraries are written: for a team server. false: SQLite checkpoints inside the writes.",
    ),
});

/** Validated options of the `sqlite-cache` plugin (defaults applied). */
export type SqliteCachePluginOptions = z.output<typeof sqliteCachePluginOptionsSchema>;

/** Options as a user writes them (every key optional). */
export type SqliteCachePluginInput = z.input<typeof sqliteCachePluginOptionsSchema>;

/** Validates options, applying defaults; throws `PLUGIN_OPTIONS_INVALID` naming each bad key. */
export function parseSqliteCacheOptions(input: SqliteCachePluginInput | undefined): SqliteCachePluginOptions {
  const result = sqliteCachePluginOptionsSchema.safeParse(input ?? {});
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => `  - cache.${issue.path.join('.') || '(root)'}: ${issue.message}`);
  throw sqliteCacheMessages.create('OPTIONS_INVALID', { lines: lines.join('\n') });
}

/** The database file for a `directory` option: `~` expanded, relative paths from the working directory. */
export function resolveDatabaseFile(directory: string): { directory: string | null; file: string } {
  if (directory === ':memory:') return { directory: null, file: ':memory:' };
  const absolute = resolve(expandHome(directory));
  return { directory: absolute, file: resolve(absolute, 'cache.db') };
}

/** The sqlite-cache plugin's own error codes. */
export const sqliteCacheErrors = defineErrors({
  CACHE_BUSY: {
    recoverable: true,
    message: 'The cache database {file} is being written by another process, so it could not be {what} now.',
    suggestion:
      'Try again once the other process (a server indexing a library) has finished writing; meanwhile new entries reuse the free space.',
  },
  CACHE_NOT_WRITABLE: {
    recoverable: true,
    message:
      'The cache {file} cannot be written ({reason}): it is served from memory for this process ({how}); nothing fetched now is kept for the next.',
    suggestion:
      'Point cache.directory (or PRO_CONTEXT_CACHE_DIR, --cache-dir) at a folder this user can write, or give this user write access to the cache folder.',
  },
});

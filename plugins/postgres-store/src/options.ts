import { defineErrors, z } from '@pro-context/kernel';
import { postgresStoreMessages } from './messages.js';

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

/** `cache.postgres`: where the database is and how the pool behaves. */
const postgresSchema = z
  .strictObject({
    url: z
      .string()
      .min(1)
      .optional()
      .describe(
        'postgres://user:password@host:5432/database (or PRO_CONTEXT_DATABASE_URL). Its password is masked in every log and error.',
      ),
    schema: z
      .string()
      .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'a lower-case SQL identifier')
      .default('pro_context')
      .describe('Schema holding the tables (created if missing); replicas of one server share it.'),
    poolSize: z.number().int().min(1).max(200).default(10).describe('Connections per replica.'),
    connectionTimeoutMs: z
      .number()
      .int()
      .min(100)
      .default(5000)
      .describe('How long to wait for a connection (a new one, or a free one of the pool), ms.'),
    statementTimeoutMs: z
      .number()
      .int()
      .min(0)
      .default(30_000)
      .describe('PostgreSQL statement_timeout of the pool’s connections, ms (0 = none).'),
  })
  .prefault({});

/**
 * Options of the `postgres-store` plugin: the `cache` section of `pro-context.config.yaml` when
 * `cache.store: postgres` (or `PRO_CONTEXT_DATABASE_URL`) chooses this store instead of SQLite. Strict, so a
 * misspelt key is an error rather than a silent default.
 */
export const postgresStorePluginOptionsSchema = z.strictObject({
  store: z.literal('postgres').default('postgres').describe('Chooses this store (the default is sqlite).'),
  postgres: postgresSchema.describe('The PostgreSQL database every replica shares.'),
  maxSizeMB: z
    .number()
    .positive()
    .default(4096)
    .describe('Cache budget in the database, MB. When over: expired entries go first, then the oldest written.'),
  defaultTTLHours: hours.default(24).describe('TTL of namespaces without an override, hours (0 = never expires).'),
  ttlHours: ttlHoursSchema.describe('Per-namespace TTL overrides, hours (0 = never expires).'),
  cleanupIntervalMinutes: z
    .number()
    .min(0)
    .default(60)
    .describe('How often one replica (holding the cleanup lease) enforces maxSizeMB, minutes (0 = never).'),
  replicaId: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe('This replica’s name in leases and notifications (default: host name, process id and a random tag).'),
});

/** Validated options (defaults applied). */
export type PostgresStorePluginOptions = z.output<typeof postgresStorePluginOptionsSchema>;
/** Options as a user writes them. */
export type PostgresStorePluginInput = z.input<typeof postgresStorePluginOptionsSchema>;

/** Validates options, applying defaults; throws `PLUGIN_OPTIONS_INVALID` naming each bad key. */
export function parsePostgresStoreOptions(input: PostgresStorePluginInput | undefined): PostgresStorePluginOptions {
  const result = postgresStorePluginOptionsSchema.safeParse(input ?? {});
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => `  - cache.${issue.path.join('.') || '(root)'}: ${issue.message}`);
  throw postgresStoreMessages.create('OPTIONS_INVALID', { issues: lines.join('\n') });
}

/** The plugin's own error codes. */
export const postgresStoreErrors = defineErrors({
  DATABASE_UNAVAILABLE: {
    recoverable: true,
    message: 'The PostgreSQL database {where} could not be used ({reason}).',
    suggestion:
      'Check that PostgreSQL runs and accepts connections from this host, and the user and password in cache.postgres.url (or PRO_CONTEXT_DATABASE_URL).',
  },
});

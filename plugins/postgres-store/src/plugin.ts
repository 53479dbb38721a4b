import { createRequire } from 'node:module';
import { keyStoreToken, rateLimiterToken, usageStoreToken } from '@pro-context/access';
import { indexLeaseToken, replicaEventsToken } from '@pro-context/engine/api';
import { cacheStoreToken, createToken, definePlugin, kernelTokens, type PluginDefinition } from '@pro-context/kernel';
import { PostgresAccessStore } from './access.js';
import { Database } from './database.js';
import { postgresStoreMessages } from './messages.js';
import {
  type PostgresStorePluginInput,
  type PostgresStorePluginOptions,
  postgresStoreErrors,
  postgresStorePluginOptionsSchema,
} from './options.js';
import { PostgresLeases, PostgresReplicaEvents } from './replicas.js';
import { migrations } from './schema.js';
import { PostgresCacheStore } from './store.js';

const pkg = createRequire(import.meta.url)('../package.json') as { version: string };

/** The pool and schema every part of the plugin shares. */
export const postgresDatabaseToken = createToken<Database>('postgres-store.database');
/** The plugin's own cache store (`cleanup()`), bound to the same instance as `cacheStoreToken`. */
export const postgresCacheStoreToken = createToken<PostgresCacheStore>('postgres-store.cache');
/** The store behind `keyStoreToken`, `usageStoreToken` and `rateLimiterToken`. */
export const postgresAccessStoreToken = createToken<PostgresAccessStore>('postgres-store.access');
/** The leases behind `indexLeaseToken`. */
export const postgresLeasesToken = createToken<PostgresLeases>('postgres-store.leases');
/** The LISTEN/NOTIFY link behind `replicaEventsToken`. */
export const postgresReplicaEventsToken = createToken<PostgresReplicaEvents>('postgres-store.events');

const CLEANUP_LEASE = 'postgres-store:cache-cleanup';

/**
 * The cache, API keys, usage, shared rate limits, indexing leases and cross-replica invalidation on one
 * PostgreSQL database: what lets several replicas of the team server behave as one. Configured by the `cache`
 * section with `store: postgres` and `postgres.url` (or `PRO_CONTEXT_DATABASE_URL`); the preset installs it
 * instead of `sqlite-cache` then.
 *
 * `register` only binds. `start` migrates the schema (a bad URL or an unreachable database stops the server with
 * `DATABASE_UNAVAILABLE`), starts listening to the other replicas and, every `cleanupIntervalMinutes`, lets the
 * replica holding the cleanup lease keep the cache within `maxSizeMB`. `stop` releases leases and closes the pool.
 */
export const postgresStorePlugin: PluginDefinition<PostgresStorePluginOptions, PostgresStorePluginInput> = definePlugin<
  PostgresStorePluginOptions,
  PostgresStorePluginInput
>({
  id: 'postgres-store',
  version: pkg.version,
  description: 'Cache, API keys, usage, rate limits, indexing leases and cross-replica invalidation on PostgreSQL.',
  kernel: '^0.1.0',
  configKey: 'cache',
  optionsSchema: postgresStorePluginOptionsSchema,
  errors: postgresStoreErrors.errors,
  environment: [{ variable: 'PRO_CONTEXT_DATABASE_URL', key: 'cache.postgres.url' }],
  register(context, options) {
    const logger = context.logger;
    context.bindFactory(postgresDatabaseToken, () => {
      const url = options.postgres.url;
      if (!url) {
        throw postgresStoreMessages.create('NO_DATABASE', {});
      }
      return new Database({
        url,
        schema: options.postgres.schema,
        poolSize: options.postgres.poolSize,
        connectionTimeoutMs: options.postgres.connectionTimeoutMs,
        statementTimeoutMs: options.postgres.statementTimeoutMs,
        ...(options.replicaId ? { replicaId: options.replicaId } : {}),
      });
    });
    context.bindFactory(
      postgresCacheStoreToken,
      (r) => new PostgresCacheStore(r.resolve(postgresDatabaseToken), options, logger),
    );
    context.bindFactory(cacheStoreToken, (r) => r.resolve(postgresCacheStoreToken));
    context.bindFactory(postgresAccessStoreToken, (r) => new PostgresAccessStore(r.resolve(postgresDatabaseToken)));
    context.bindFactory(keyStoreToken, (r) => r.resolve(postgresAccessStoreToken));
    context.bindFactory(usageStoreToken, (r) => r.resolve(postgresAccessStoreToken));
    context.bindFactory(rateLimiterToken, (r) => r.resolve(postgresAccessStoreToken));
    context.bindFactory(postgresLeasesToken, (r) => new PostgresLeases(r.resolve(postgresDatabaseToken), logger));
    context.bindFactory(indexLeaseToken, (r) => r.resolve(postgresLeasesToken));
    context.bindFactory(
      postgresReplicaEventsToken,
      (r) =>
        new PostgresReplicaEvents(
          r.resolve(postgresDatabaseToken),
          r.isBound(kernelTokens.revisions) ? r.resolve(kernelTokens.revisions) : undefined,
          logger,
        ),
    );
    context.bindFactory(replicaEventsToken, (r) => r.resolve(postgresReplicaEventsToken));
  },
  async start(context, options) {
    const db = context.resolve(postgresDatabaseToken);
    await db.migrate(migrations);
    await context.resolve(postgresReplicaEventsToken).start();
    if (options.cleanupIntervalMinutes > 0) {
      const store = context.resolve(postgresCacheStoreToken);
      const leases = context.resolve(postgresLeasesToken);
      const timer = setInterval(() => {
        void (async () => {
          const lease = await leases.acquire(CLEANUP_LEASE, 10 * 60_000);
          if (!lease) return;
          try {
            const result = await store.cleanup();
            if (result.deleted > 0)
              context.logger.info(`postgres-store: cleanup removed ${result.deleted} entries over cache.maxSizeMB`);
          } finally {
            await lease.release();
          }
        })().catch((error: unknown) =>
          context.logger.warn(`postgres-store: cleanup failed: ${String((error as Error).message)}`),
        );
      }, options.cleanupIntervalMinutes * 60_000);
      timer.unref();
      cleanupTimers.set(db, timer);
    }
    context.logger.info(
      `postgres-store: ${db.where}, schema "${db.schema}", replica ${db.replicaId}, pool of ${options.postgres.poolSize}`,
    );
  },
  async stop(context) {
    const db = context.resolve(postgresDatabaseToken);
    const timer = cleanupTimers.get(db);
    if (timer) clearInterval(timer);
    await context.resolve(postgresReplicaEventsToken).stop();
    await context.resolve(postgresLeasesToken).releaseAll();
    await db.close();
  },
});

const cleanupTimers = new WeakMap<Database, NodeJS.Timeout>();

export default postgresStorePlugin;

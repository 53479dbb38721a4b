/**
 * @pro-context/plugin-postgres-store: the cache, API keys, usage, shared rate limits, indexing leases and
 * cross-replica invalidation on PostgreSQL (node-postgres), for several replicas of the team server.
 *
 * Every export here is public API. Add exports deliberately.
 */

export { PostgresAccessStore } from './access.js';
export type { DatabaseOptions } from './database.js';
export { Database, describeUrl } from './database.js';
export type { PostgresStorePluginInput, PostgresStorePluginOptions } from './options.js';
export { parsePostgresStoreOptions, postgresStoreErrors, postgresStorePluginOptionsSchema } from './options.js';
export {
  default,
  postgresAccessStoreToken,
  postgresCacheStoreToken,
  postgresDatabaseToken,
  postgresLeasesToken,
  postgresReplicaEventsToken,
  postgresStorePlugin,
} from './plugin.js';
export { PostgresLeases, PostgresReplicaEvents } from './replicas.js';
export { channelOf, migrations, SCHEMA_VERSION } from './schema.js';
export { PostgresCacheStore } from './store.js';

import { defineMessages } from '@pro-context/plugin-kit';

/** The postgres-store plugin's sentences under the kernel's codes (its message catalog). */
export const postgresStoreMessages = defineMessages({
  /** `{issues}`: one `  - cache.<key>: <problem>` line per bad key. */
  OPTIONS_INVALID: {
    code: 'PLUGIN_OPTIONS_INVALID',
    message: "Invalid options for plugin 'postgres-store':\n{issues}",
  },
  NO_DATABASE: {
    code: 'CONFIG_INVALID',
    message: 'cache.store is postgres but no database is configured (cache.postgres.url).',
    suggestion: 'Set PRO_CONTEXT_DATABASE_URL=postgres://user:password@host:5432/database, or cache.postgres.url.',
  },
  SCHEMA_TOO_NEW: {
    code: 'CONFIG_INVALID',
    message:
      'The schema "{schema}" in {where} was written by a newer pro-context (schema {found}, this one knows {known}).',
    suggestion: 'Upgrade every replica to the same pro-context, or point cache.postgres.schema elsewhere.',
  },
  KEY_NAME_TAKEN: {
    code: 'CONFIG_INVALID',
    message: "An API key named '{name}' already exists.",
    suggestion: 'Choose another name, or revoke the old key first.',
  },
});

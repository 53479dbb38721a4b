import { defineMessages } from '@pro-context/plugin-kit';

/** The sqlite-cache plugin's sentences under the kernel's codes (its message catalog; its own codes: options.ts). */
export const sqliteCacheMessages = defineMessages({
  OPTIONS_INVALID: { code: 'PLUGIN_OPTIONS_INVALID', message: "Invalid options for plugin 'sqlite-cache':\n{lines}" },
  CANNOT_OPEN: {
    code: 'CONFIG_INVALID',
    message: 'Cannot open the cache database {file}: {why}',
    suggestion:
      'Point cache.directory (or PRO_CONTEXT_CACHE_DIR) at a writable directory; delete cache.db if it is not a SQLite database.',
  },
  NEWER_SCHEMA: {
    code: 'CONFIG_INVALID',
    message: 'The cache database {file} has schema version {found}, newer than this plugin understands ({supported}).',
    suggestion:
      'Upgrade @pro-context/plugin-sqlite-cache, or point cache.directory (PRO_CONTEXT_CACHE_DIR) at another directory.',
  },
  CLOSED: {
    code: 'KERNEL_STATE',
    message: 'The sqlite-cache store is closed.',
    suggestion: 'The kernel that owned this cache was stopped; use a cache store from a running kernel.',
  },
  NEWER_KEY_STORE: {
    code: 'CONFIG_INVALID',
    message: '{file} was written by a newer pro-context (schema {version}, this one knows {known}).',
    suggestion: 'Upgrade pro-context, or point cache.directory elsewhere.',
  },
  KEY_NAME_TAKEN: {
    code: 'CONFIG_INVALID',
    message: "An API key named '{name}' already exists.",
    suggestion: 'Choose another name, or revoke the old key first.',
  },
});

/**
 * @pro-context/plugin-packed-search: the `SearchBackend` on a packed inverted index (typed arrays), built
 * in a worker thread, bounded in memory, with binary snapshots. It ranks exactly like `orama-search`.
 *
 * Every export here is public API. Add exports deliberately.
 */
export type { PackedSearchBackendInput, PackedSearchBackendOptions } from './backend.js';
export { defaultPackedSearchBackendOptions, PackedSearchBackend } from './backend.js';
export { packedSearchErrors } from './errors.js';
export type { PackedSearchPluginInput, PackedSearchPluginOptions } from './options.js';
export { packedSearchPluginOptionsSchema } from './options.js';
export type { ChunkField } from './packed-index.js';
export { default, packedSearchPlugin } from './plugin.js';

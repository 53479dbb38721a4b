/**
 * @pro-context/plugin-codex7: Codex7's local/remote tools (seed 002) on the docs engine and Context7.
 *
 * Every export here is public API.
 */
export { codex7Errors } from './errors.js';
export type { LocalDocument } from './library.js';
export { documentsOf, GENERAL_TOPIC, isLocalLibrary, localIdOf, topicsOf } from './library.js';
export { codex7Plugin, default } from './plugin.js';
export { codex7Descriptions, codex7Tools, DEFAULT_TOKENS } from './tools.js';

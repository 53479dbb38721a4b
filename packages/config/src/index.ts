/**
 * @pro-context/config: the configuration file of pro-context — finding and reading `pro-context.config.yaml`
 * (`loadConfig`, with line numbers for errors) and the JSON Schema of the file for editors (`configJsonSchema`).
 * Validation against the kernel's and the plugins' schemas is `createKernel`'s (`@pro-context/kernel`).
 *
 * Every export here is public API; named exports only.
 */
export { buildConfigSchema, configJsonSchema } from './json-schema.js';
export type { LoadConfigOptions } from './load.js';
export { configFileNames, findConfigFile, loadConfig } from './load.js';

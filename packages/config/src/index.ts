/**
 * @pro-context/config: the configuration file of pro-context — finding and reading `pro-context.config.yaml`
 * (`loadConfig`, with line numbers for errors), validating it against the kernel's and the plugins' schemas
 * with the environment variables they declare (`validateConfig`, given to `createKernel`), and the JSON Schema of
 * the file for editors (`configJsonSchema`).
 *
 * Every export here is public API; named exports only.
 */
export { applyEnvironment, kernelEnvironment } from './environment.js';
export { buildConfigSchema, configJsonSchema } from './json-schema.js';
export type { LoadConfigOptions } from './load.js';
export { configFileNames, findConfigFile, loadConfig } from './load.js';
export { validateConfig } from './validate.js';

/**
 * @pro-context/logging: the logger the kernel is given (`createKernel({ createLogger })`) and the redaction of
 * secrets wherever text leaves the process. Loading it installs that redaction for every `ProContextError`
 * payload (the kernel's `setRedaction`).
 *
 * Every export here is public API; named exports only.
 */
export type { LoggerOptions } from './logger.js';
export { createLogger, createSilentLogger } from './logger.js';
export { isSecretParam, redact, redactAnswer, redactDeep, redactString, redactUrl } from './redact.js';

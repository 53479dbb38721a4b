/**
 * @pro-context/runtime: the runtime that wires plugins into a kernel — `createKernel`, the start-up order, the
 * registration of bindings, the kernel's own services (URL allowlist, event bus, HTTP client) and the validation of
 * the configuration's declared sections. What plugins and hosts build against (contracts, `definePlugin`,
 * `StartedKernel`) is `@pro-context/kernel`.
 *
 * Every export here is public API; named exports only. Add exports deliberately.
 */
export { createUrlAllowlist } from './allowlist.js';
export { createAnswerRevisions } from './answer-revisions.js';
export { httpConfigSchema, loggingConfigSchema, securityConfigSchema } from './config/kernel-schema.js';
export type { DeclaredConfigSection } from './config/validate.js';
export { declaredConfigSections, parseConfigSections } from './config/validate.js';
export { deepMerge, setPath } from './config/values.js';
export { createEventBus } from './events.js';
export { createKernel } from './kernel.js';
export { collectSecrets } from './secrets.js';
export { defaultAllowlist } from './start/services.js';

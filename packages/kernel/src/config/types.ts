import type { KernelConfig } from './kernel-schema.js';

/**
 * A validated, frozen configuration: the kernel's sections, typed, plus every plugin's section (read
 * them through the plugin's own options, which the kernel validates and passes to `register`).
 */
export interface ResolvedConfig extends KernelConfig {
  /** Every section, including plugin sections, as validated. */
  readonly raw: Readonly<Record<string, unknown>>;
  /** The file the configuration was read from, if any. */
  readonly sourceFile?: string;
}

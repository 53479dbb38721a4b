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

/** An environment variable and the dotted config key it sets (seed 001 §12.2). */
export interface EnvironmentVariable {
  readonly variable: string;
  readonly key: string;
  /** How the text is read: `number` for digits, `boolean` for true/false, yes/no, on/off, 1/0. Default string. */
  readonly type?: 'string' | 'number' | 'boolean';
  /**
   * Holds a credential: its value is never printed or logged (its key must be one logs mask (`isSecretKey`), such
   * as `token` or `apiKey`, which `definePlugin` checks).
   */
  readonly secret?: boolean;
}

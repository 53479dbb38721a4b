import type { LogLevel } from '../contracts/logger.js';
import type { HttpClientOptions } from '../http/types.js';

/**
 * The kernel's sections of a validated configuration, with their defaults (`@pro-context/runtime` parses them):
 * `logging` as the logger factory takes it, `security` (`urlAllowlist`: extra hosts, `*.suffixes` or URL prefixes
 * `read-page` may fetch), `http` as the HTTP client's options of the same names.
 */
export interface KernelConfig {
  logging: { level: LogLevel; format: 'json' | 'pretty' };
  security: { allowPrivateNetwork: boolean | string[]; urlAllowlist: string[] };
  http: Required<Pick<HttpClientOptions, HttpLimit>> & Pick<HttpClientOptions, 'userAgent' | 'proxy'>;
}

/** The `http` settings that always have a value. */
type HttpLimit =
  | 'timeoutMs'
  | 'connectTimeoutMs'
  | 'headersTimeoutMs'
  | 'bodyTimeoutMs'
  | 'retries'
  | 'retryDelaysMs'
  | 'maxBodyBytes'
  | 'maxRedirects';

/**
 * A validated, frozen configuration: the kernel's sections, typed, plus every plugin's section (read
 * them through the plugin's own options, which the kernel validates and passes to `register`).
 */
export interface ResolvedConfig extends KernelConfig {
  /** Every section, including plugin sections, as validated. */
  readonly raw: Readonly<Record<string, unknown>>;
  /** The file the configuration was read from, if any. */
  readonly sourceFile?: string;
  /**
   * Line (1-based) of each dotted key path in that file, for the errors of a plugin that validates a part of the
   * configuration later (the engine, a library's `sources` settings); absent when nothing was read from a file.
   */
  readonly sourceLines?: ReadonlyMap<string, number>;
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

/**
 * Configuration values before validation: the file's content with environment overrides applied, plus
 * what is needed to point at the exact line of a bad key (`@pro-context/config`'s `loadConfig` makes one).
 */
export interface ConfigSource {
  /** Merged values (file, then environment). */
  values: Record<string, unknown>;
  /** The file read, if any. */
  file?: string;
  /** Line (1-based) of each dotted key path in the file, for error messages. */
  lines: Map<string, number>;
  /** Keys set from the environment, with the variable that set them. */
  fromEnv: Map<string, string>;
  /** The environment read, for the variables plugins declare (applied by the validator, which knows the plugins). */
  env?: Readonly<Record<string, string | undefined>>;
  /** The `overrides` merged into `values`, which the plugins' variables do not replace. */
  overrides?: Record<string, unknown>;
}

/** One problem found in a configuration (`CONFIG_INVALID`'s `details.issues`). */
export interface ConfigIssue {
  /** Dotted key path, e.g. `cache.maxMemoryMB`. */
  path: string;
  message: string;
  /** Line in the config file, when the key came from it. */
  line?: number;
  /** The environment variable that set the key, if one did. */
  variable?: string;
}

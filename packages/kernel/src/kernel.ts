import type { ConfigSource, ResolvedConfig } from './config/types.js';
import type { ConfigValidator } from './config/validate.js';
import type { AnswerRevisions } from './contracts/answer-revisions.js';
import type { Logger, LoggerFactory } from './contracts/logger.js';
import type { HttpClient, HttpClientFactory, HttpClientOptions } from './http/types.js';
import type { AnyPlugin, Resolver } from './plugins/types.js';
import type { UrlAllowlist } from './util/allowlist.js';
import type { EventBus } from './util/events.js';

// The kernel's shape as hosts and embedders hold it; `createKernel` (`@pro-context/runtime`) builds one.

/** How a kernel gets its HTTP client (part of `KernelOptions`). */
export interface KernelHttpOptions {
  /** Use this HTTP client instead of one built from `http` and `security` config. */
  http?: HttpClient;
  /**
   * Builds the HTTP client from the `http` and `security` config: pass `createHttpClient` from
   * `@pro-context/http` (the kernel does not depend on it). With neither this nor `http`, the kernel starts,
   * and every request fails with `PLUGIN_DEPENDENCY_MISSING` naming `@pro-context/http`.
   */
  createHttpClient?: HttpClientFactory;
  /** Extra HTTP client options over the config (tests inject a DNS `lookup`). */
  httpOptions?: Partial<HttpClientOptions>;
}

/** Options of {@link createKernel}. */
export interface KernelOptions extends KernelHttpOptions {
  /**
   * Configuration: a {@link ConfigSource} from `loadConfig()` (file + environment, with line numbers for
   * errors), or plain values. Validated at `start()` against the kernel's and the plugins' schemas.
   */
  config?: ConfigSource | Record<string, unknown>;
  /**
   * Validates the configuration at `start()`: pass `validateConfig` from `@pro-context/config` (the plugins'
   * environment variables, errors naming the line or the variable, warnings for keys nobody reads). Without one,
   * each declared section is parsed by its schema, and nothing else is checked.
   */
  validateConfig?: ConfigValidator;
  /** Use this logger instead of one built from `logging` config. */
  logger?: Logger;
  /**
   * Builds the logger from the `logging` config: pass `createLogger` from `@pro-context/logging` (the kernel does
   * not depend on it). With neither this nor `logger`, the kernel logs nothing (stdout is never written either way).
   */
  createLogger?: LoggerFactory;
  /**
   * Leave the plugins' `background` phases (work no first answer needs: the project scan) to the host, which
   * calls {@link StartedKernel.background} once its first answers are out (the stdio CLI: after `tools/list`, or
   * at the first tool call). Default false: the kernel runs them itself on the next turn of the event loop
   * after `start()`.
   */
  deferBackground?: boolean;
}

/** A plugin as the kernel lists it. */
export interface PluginInfo {
  id: string;
  version?: string;
  description?: string;
}

/** A started kernel: every contract bound, every plugin started. */
export interface StartedKernel extends Resolver {
  readonly version: string;
  readonly config: ResolvedConfig;
  readonly logger: Logger;
  readonly http: HttpClient;
  readonly events: EventBus;
  readonly allowlist: UrlAllowlist;
  /** Bumped when anything an answer may come from changed (see `AnswerRevisions`). */
  readonly revisions: AnswerRevisions;
  readonly plugins: readonly PluginInfo[];
  /** Configuration warnings (keys for plugins that are not installed). */
  readonly warnings: readonly string[];
  /** The config keys environment variables set, with the variable (never its value). */
  readonly environment: readonly { variable: string; key: string; secret: boolean }[];
  /**
   * Runs every plugin's `background` phase (work no first answer needs, such as the project scan), once, in
   * start order; later calls return the same promise. Resolves when each phase has returned (the work it
   * started may go on: a provider's `settled()` says when that is done); a phase that throws is logged, not
   * rethrown. After `stop()` it runs nothing.
   */
  background(): Promise<void>;
  /** Stops plugins in reverse order, closes the HTTP client. Idempotent. */
  stop(): Promise<void>;
}

/** Collects plugins, then starts them. */
export interface KernelBuilder {
  /** Adds a plugin, with options over its config section. Checks its shape, id and kernel range now. */
  use(plugin: AnyPlugin, options?: unknown): KernelBuilder;
  /** Validates config and options, checks dependencies, registers every plugin, then starts them. */
  start(): Promise<StartedKernel>;
}

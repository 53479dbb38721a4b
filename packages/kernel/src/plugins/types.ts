import type * as z from 'zod';
import type { ConfigSection } from '../config/sections.js';
import type { EnvironmentVariable, ResolvedConfig } from '../config/types.js';
import type { Logger } from '../contracts/logger.js';
import type { LibrarySettingsDeclaration } from '../contracts/source-adapter.js';
import type { Token } from '../contracts/token.js';
import type { ErrorTable } from '../errors/catalog.js';
import type { HttpClient } from '../http/types.js';
import type { UrlAllowlist } from '../util/allowlist.js';
import type { EventBus } from '../util/events.js';

/** A class tsyringe can construct (decorate it with `@injectable()` and `@inject(token)` every parameter). */
// biome-ignore lint/suspicious/noExplicitAny: constructor parameters are injected by token, typed by the class itself
export type Constructor<T> = new (...args: any[]) => T;

/** Reads bindings: one provider, or every provider of a plural contract. */
export interface Resolver {
  /** The provider of a singular contract or service. Throws if nothing is bound. */
  resolve<T>(token: Token<T>): T;
  /** Every provider of a plural contract (empty when none). */
  resolveAll<T>(token: Token<T>): T[];
  isBound(token: Token<unknown>): boolean;
}

/** What `register` receives: binding only, no I/O. */
export interface PluginRegistrationContext {
  readonly pluginId: string;
  readonly config: ResolvedConfig;
  readonly logger: Logger;
  bindValue<T>(token: Token<T>, value: T): void;
  /** Binds a class; the kernel constructs it once, injecting its `@inject` parameters. */
  bindClass<T>(token: Token<T>, implementation: Constructor<T>): void;
  /** Binds a factory; called once, on first use. */
  bindFactory<T>(token: Token<T>, factory: (resolver: Resolver) => T): void;
}

/** What `start` and `stop` receive: everything is bound; I/O is allowed. */
export interface PluginStartContext extends Resolver {
  readonly pluginId: string;
  readonly config: ResolvedConfig;
  readonly logger: Logger;
  readonly http: HttpClient;
  readonly events: EventBus;
  readonly allowlist: UrlAllowlist;
}

/**
 * A plugin: data plus two phases. Create one with {@link definePlugin}.
 *
 * @typeParam O - the options `register`/`start` receive, after validation and defaults.
 * @typeParam I - the options a user writes (config section or `kernel.use(plugin, options)`).
 */
export interface PluginDefinition<O = unknown, I = O> {
  /** Unique id, kebab-case, equal to the plugin's folder name (`'llms-txt'`). */
  readonly id: string;
  /** The plugin's own version, for `pro-context://health` and error messages. */
  readonly version?: string;
  /** One line on what it does. */
  readonly description?: string;
  /** Semver range of kernels this plugin works with (`'^0.1.0'`). Checked before `register`. */
  readonly kernel: string;
  /** Ids of plugins that must also be installed. Checked before `register`; they start first. */
  readonly dependsOn?: readonly string[];
  /**
   * The tokens `register` binds, declared as data: plugins that `need` one start after this plugin, and a test
   * kernel binds its fakes only for tokens no plugin provides. A plugin may bind less when its options turn it
   * off. Undeclared (a third party's plugin): the kernel still takes what `register` binds.
   */
  readonly provides?: readonly Token<unknown>[];
  /**
   * The tokens this plugin resolves from others, declared as data: it starts after the plugins that provide
   * them, and the kernel refuses to start (`PLUGIN_DEPENDENCY_MISSING`, naming plugin and token) when, all
   * plugins registered, one of them is bound by none.
   */
  readonly needs?: readonly Token<unknown>[];
  /**
   * Dotted path of this plugin's section in `pro-context.config.yaml` (`'sources.llmsTxt'`, `'cache'`).
   * The section is validated by `optionsSchema` as part of the whole configuration.
   */
  readonly configKey?: string;
  /** zod schema of the options. Use strict objects, so a misspelt key is an error, not a silent no-op. */
  readonly optionsSchema?: z.ZodType<O, I>;
  /**
   * Sections this plugin owns besides `configKey` ({@link defineConfigSection}): validated with the whole
   * configuration, part of its JSON Schema, read back with `section.read(config)`.
   */
  readonly configSections?: readonly ConfigSection[];
  /** Environment variables this plugin reads, each setting one dotted config key (seed 001 §12.2). */
  readonly environment?: readonly EnvironmentVariable[];
  /**
   * Sections of other (first-party) plugins: set while no installed plugin declares them, they are a
   * warning instead of an error, and unknown keys directly below them too (a third-party source's section).
   */
  readonly reservedSections?: readonly string[];
  /** Error codes this plugin raises (see `defineErrors`); a code defined differently elsewhere stops start-up. */
  readonly errors?: ErrorTable;
  /**
   * The per-library settings bag its source adapter reads (`libraries[].sources.<key>`): declared here too so the
   * configuration's JSON Schema describes the bag's keys (editors complete them). The adapter's own
   * `librarySettings` stays what the engine validates with.
   */
  readonly librarySettings?: LibrarySettingsDeclaration;
  /** `read-page` allowlist entries this plugin needs (hosts, `*.suffixes` or URL prefixes), with why. */
  readonly allowlist?: readonly { readonly entry: string; readonly reason: string }[];
  /** Binds this plugin's implementations. No I/O here. */
  register(context: PluginRegistrationContext, options: O): void;
  /** Starts background work or opens resources, after every plugin registered. */
  start?(context: PluginStartContext, options: O): Promise<void> | void;
  /**
   * Work no first answer needs (a project scan, a warm-up): run after every plugin started, once the host has
   * answered its first requests (`StartedKernel.background()`; without a host that defers it, on the next turn
   * of the event loop after start). It should start the work and return; `stop` cancels what is still running.
   * A failure is logged, not fatal.
   */
  background?(context: PluginStartContext, options: O): Promise<void> | void;
  /** Releases what `start` (and `background`) acquired. Called in reverse start order. */
  stop?(context: PluginStartContext): Promise<void> | void;
}

/** A plugin of any options type. */
// biome-ignore lint/suspicious/noExplicitAny: heterogeneous plugin lists
export type AnyPlugin = PluginDefinition<any, any>;

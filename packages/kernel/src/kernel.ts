import semver from 'semver';
import { type DependencyContainer, instanceCachingFactory, Lifecycle, container as rootContainer } from 'tsyringe';
import { flattenZodIssues, mergeOptions, validateConfig } from './config/assemble.js';
import { type ConfigSource, getPath } from './config/load.js';
import { ONCE } from './config/once.js';
import type { ResolvedConfig } from './config/types.js';
import { type AnswerRevisions, createAnswerRevisions } from './contracts/answer-revisions.js';
import { createNullLogger, type Logger, type LoggerFactory } from './contracts/logger.js';
import { collectSecrets, registerSecrets } from './contracts/secrets.js';
import { kernelTokens } from './contracts/services.js';
import { type Token, tokenCardinality, tokenId } from './contracts/token.js';
import { kernelErrors, ProContextError, registerErrors } from './errors/pro-context-error.js';
import type { HttpClient, HttpClientFactory, HttpClientOptions } from './http/types.js';
import { assertPluginShape } from './plugins/define.js';
import type {
  AnyPlugin,
  Constructor,
  PluginRegistrationContext,
  PluginStartContext,
  Resolver,
} from './plugins/types.js';
import { createUrlAllowlist, type UrlAllowlist } from './util/allowlist.js';
import { createEventBus, type EventBus } from './util/events.js';
import { KERNEL_VERSION } from './version.js';

/**
 * The general documentation hosts of the default `read-page` allowlist (seed 001 §10.1). The hosts of a
 * source or registry (`github.com`, `pypi.org`) are declared by its plugin (`allowlist`).
 */
export const defaultAllowlist = ['*.github.io', '*.readthedocs.io'];

/** Options of {@link createKernel}. */
export interface KernelOptions {
  /**
   * Configuration: a {@link ConfigSource} from `loadConfig()` (file + environment, with line numbers for
   * errors), or plain values. Validated at `start()` against the kernel's and the plugins' schemas.
   */
  config?: ConfigSource | Record<string, unknown>;
  /** Use this logger instead of one built from `logging` config. */
  logger?: Logger;
  /**
   * Builds the logger from the `logging` config: pass `createLogger` from `@pro-context/logging` (the kernel does
   * not depend on it). With neither this nor `logger`, the kernel logs nothing (stdout is never written either way).
   */
  createLogger?: LoggerFactory;
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

function isConfigSource(value: unknown): value is ConfigSource {
  return (
    value !== null &&
    typeof value === 'object' &&
    'values' in value &&
    'lines' in value &&
    (value as ConfigSource).lines instanceof Map
  );
}

/**
 * The client of a kernel given none: it starts (kernels that never reach the network, such as tests of the
 * MCP binding or of a cache, need no client and no undici), and the first request fails loudly instead.
 */
function missingHttpClient(): HttpClient {
  const refuse = (url: string | URL): never => {
    throw new ProContextError(
      'PLUGIN_DEPENDENCY_MISSING',
      `No HTTP client: this kernel was created without one, so it cannot fetch ${String(url)}. Pass createHttpClient from @pro-context/http to createKernel().`,
      {
        suggestion:
          "Install @pro-context/http and call createKernel({ createHttpClient }) with its createHttpClient (the 'pro-context' preset does).",
      },
    );
  };
  return {
    request: async (url) => refuse(url),
    get: async (url) => refuse(url),
    stream: async (url) => refuse(url),
    close: async () => undefined,
  };
}

/** The plugins that may provide a token: those declaring it in `provides`. */
function declaredProviders(plugins: readonly AnyPlugin[], token: Token<unknown>): AnyPlugin[] {
  return plugins.filter((p) => p.provides?.includes(token));
}

/**
 * Orders plugins so each starts after the plugins it depends on: its `dependsOn`, and the plugins that declare
 * (`provides`) a token it `needs`. Registration order otherwise.
 */
function startOrder(plugins: readonly AnyPlugin[]): AnyPlugin[] {
  const byId = new Map(plugins.map((p) => [p.id, p]));
  const done = new Set<string>();
  const out: AnyPlugin[] = [];
  const before = (plugin: AnyPlugin): AnyPlugin[] => [
    ...(plugin.dependsOn ?? []).flatMap((dep) => byId.get(dep) ?? []),
    ...(plugin.needs ?? []).flatMap((token) => declaredProviders(plugins, token)).filter((p) => p !== plugin),
  ];
  const visit = (plugin: AnyPlugin, trail: string[]) => {
    if (done.has(plugin.id)) return;
    if (trail.includes(plugin.id)) {
      throw new ProContextError(
        'PLUGIN_DEPENDENCY_MISSING',
        `Plugins depend on each other in a cycle: ${[...trail, plugin.id].join(' -> ')}.`,
        { suggestion: 'Break the cycle: a plugin cannot (indirectly) depend on itself.' },
      );
    }
    for (const target of before(plugin)) visit(target, [...trail, plugin.id]);
    done.add(plugin.id);
    out.push(plugin);
  };
  for (const plugin of plugins) visit(plugin, []);
  return out;
}

/**
 * Creates a kernel: `createKernel({ config }).use(pluginA).use(pluginB, options).start()`.
 * Each kernel has its own child container, so two kernels in one process share nothing.
 */
export function createKernel(options: KernelOptions = {}): KernelBuilder {
  const entries: PluginEntry[] = [];
  let state: 'collecting' | 'starting' | 'started' = 'collecting';
  const builder: KernelBuilder = {
    use(plugin, pluginOptions) {
      if (state !== 'collecting') {
        throw new ProContextError('KERNEL_STATE', 'Plugins must be added before start().');
      }
      checkUse(entries, plugin);
      entries.push({ plugin, options: pluginOptions });
      return builder;
    },
    async start() {
      if (state !== 'collecting') throw new ProContextError('KERNEL_STATE', 'A kernel can be started once.');
      state = 'starting';
      try {
        const kernel = await startKernel(entries, options);
        state = 'started';
        return kernel;
      } catch (error) {
        state = 'collecting';
        throw error;
      }
    },
  };
  return builder;
}

/** A plugin added with `use()`, with the options given there. */
interface PluginEntry {
  plugin: AnyPlugin;
  options: unknown;
}

/** `use()`'s checks: the plugin's shape, a unique id, a kernel range this kernel satisfies. */
function checkUse(entries: readonly PluginEntry[], plugin: AnyPlugin): void {
  assertPluginShape(plugin, `kernel.use() #${entries.length + 1}`);
  if (entries.some((e) => e.plugin.id === plugin.id)) {
    throw kernelErrors.create('PLUGIN_DUPLICATE_ID', { plugin: plugin.id });
  }
  if (!semver.satisfies(KERNEL_VERSION, plugin.kernel, { includePrerelease: true })) {
    throw kernelErrors.create('PLUGIN_KERNEL_MISMATCH', {
      plugin: plugin.id,
      version: plugin.version ? ` ${plugin.version}` : '',
      range: plugin.kernel,
      kernelVersion: KERNEL_VERSION,
    });
  }
}

/** Validates, registers and starts the plugins of `entries`: the body of `KernelBuilder.start()`. */
async function startKernel(entries: readonly PluginEntry[], options: KernelOptions): Promise<StartedKernel> {
  const plugins = entries.map((e) => e.plugin);
  checkDependencies(plugins);
  const { config, sections, warnings, environment, source: validated } = validateConfig(configSource(options), plugins);
  registerErrors(plugins.map((p) => ({ owner: p.id, errors: p.errors ?? {} })));
  // every API key and token of the configuration (file and environment) and of explicit plugin options is
  // masked wherever it could be written: logs, error payloads, answers, metrics
  registerSecrets(collectSecrets(validated?.values ?? {}));
  for (const { options: explicit } of entries) if (explicit !== undefined) registerSecrets(collectSecrets(explicit));
  const pluginOptions = resolvePluginOptions(entries, sections, validated?.values ?? {});
  const logger =
    options.logger ??
    options.createLogger?.({ level: config.logging.level, format: config.logging.format }) ??
    createNullLogger();
  for (const warning of warnings) logger.warn(warning, { config: config.sourceFile });
  const services = createServices(config, options, plugins, logger);
  const resolver = resolverOf(services.container);
  registerPlugins(plugins, { config, logger, pluginOptions, container: services.container, resolver });
  checkNeeds(plugins, resolver);
  const startContext = (plugin: AnyPlugin): PluginStartContext => ({
    ...resolver,
    pluginId: plugin.id,
    config,
    logger: logger.child({ plugin: plugin.id }),
    http: services.http,
    events: services.events,
    allowlist: services.allowlist,
  });
  const lifecycle = await startPlugins(startOrder(plugins), startContext, pluginOptions, services);
  const kernel: StartedKernel = Object.freeze({
    ...resolver,
    version: KERNEL_VERSION,
    config,
    logger,
    http: services.http,
    events: services.events,
    allowlist: services.allowlist,
    revisions: services.revisions,
    warnings,
    environment,
    plugins: plugins.map((p) => ({
      id: p.id,
      ...(p.version ? { version: p.version } : {}),
      ...(p.description ? { description: p.description } : {}),
    })),
    background: lifecycle.background,
    stop: lifecycle.stop,
  });
  if (!options.deferBackground) setImmediate(() => void kernel.background());
  return kernel;
}

/** Every `dependsOn` names a plugin that was added: else `PLUGIN_DEPENDENCY_MISSING`, before anything registers. */
function checkDependencies(plugins: readonly AnyPlugin[]): void {
  const ids = new Set(plugins.map((p) => p.id));
  for (const plugin of plugins) {
    for (const dep of plugin.dependsOn ?? []) {
      if (ids.has(dep)) continue;
      throw kernelErrors.create(
        'PLUGIN_DEPENDENCY_MISSING',
        { dependency: dep, plugin: plugin.id },
        { suggestion: `Add the '${dep}' plugin with kernel.use(…) (before or after '${plugin.id}').` },
      );
    }
  }
}

/** The configuration as a {@link ConfigSource} (plain values get no line numbers); undefined when none. */
function configSource(options: KernelOptions): ConfigSource | undefined {
  if (isConfigSource(options.config)) return options.config;
  return options.config ? { values: options.config, lines: new Map(), fromEnv: new Map() } : undefined;
}

/**
 * Each plugin's options: its config section as validated, or the explicit options of `use()` over the raw
 * section, validated by its `optionsSchema` (`PLUGIN_OPTIONS_INVALID` naming each bad key).
 */
function resolvePluginOptions(
  entries: readonly PluginEntry[],
  sections: ReadonlyMap<string, unknown>,
  values: Record<string, unknown>,
): Map<string, unknown> {
  const resolved = new Map<string, unknown>();
  for (const { plugin, options: explicit } of entries) {
    if (explicit === undefined || !plugin.optionsSchema) {
      resolved.set(plugin.id, explicit ?? sections.get(plugin.id));
      continue;
    }
    const rawSection = plugin.configKey ? getPath(values, plugin.configKey) : undefined;
    const result = plugin.optionsSchema.safeParse(mergeOptions(rawSection ?? {}, explicit), ONCE);
    if (!result.success) {
      const issues = flattenZodIssues(result.error, plugin.id);
      throw new ProContextError(
        'PLUGIN_OPTIONS_INVALID',
        `Invalid options for plugin '${plugin.id}':\n${issues.map((i) => `  - ${i.path}: ${i.message}`).join('\n')}`,
        { details: { plugin: plugin.id, issues } },
      );
    }
    resolved.set(plugin.id, result.data);
  }
  return resolved;
}

/** The kernel's own services, bound in a fresh child container under `kernelTokens`. */
interface KernelServices {
  container: DependencyContainer;
  http: HttpClient;
  events: EventBus;
  revisions: AnswerRevisions;
  allowlist: UrlAllowlist;
}

function createServices(
  config: ResolvedConfig,
  options: KernelOptions,
  plugins: readonly AnyPlugin[],
  logger: Logger,
): KernelServices {
  const http =
    options.http ??
    options.createHttpClient?.(httpClientOptionsOf(config, options), logger.child({ component: 'http' })) ??
    missingHttpClient();
  const events = createEventBus();
  const revisions = createAnswerRevisions();
  const allowlist = createUrlAllowlist([
    ...defaultAllowlist.map((entry) => ({ entry, reason: 'default' })),
    ...plugins.flatMap((p) => p.allowlist ?? []),
    ...config.security.urlAllowlist.map((entry) => ({ entry, reason: 'config security.urlAllowlist' })),
  ]);
  const container: DependencyContainer = rootContainer.createChildContainer();
  container.register(kernelTokens.config, { useValue: config });
  container.register(kernelTokens.logger, { useValue: logger });
  container.register(kernelTokens.http, { useValue: http });
  container.register(kernelTokens.events, { useValue: events });
  container.register(kernelTokens.revisions, { useValue: revisions });
  container.register(kernelTokens.allowlist, { useValue: allowlist });
  return { container, http, events, revisions, allowlist };
}

/** The HTTP client's options: the `http` and `security` config, then `KernelOptions.httpOptions` over them. */
function httpClientOptionsOf(config: ResolvedConfig, options: KernelOptions): HttpClientOptions {
  return {
    timeoutMs: config.http.timeoutMs,
    connectTimeoutMs: config.http.connectTimeoutMs,
    headersTimeoutMs: config.http.headersTimeoutMs,
    bodyTimeoutMs: config.http.bodyTimeoutMs,
    retries: config.http.retries,
    retryDelaysMs: config.http.retryDelaysMs,
    maxBodyBytes: config.http.maxBodyBytes,
    maxRedirects: config.http.maxRedirects,
    userAgent: config.http.userAgent ?? `pro-context/${KERNEL_VERSION}`,
    allowPrivateNetwork: config.security.allowPrivateNetwork,
    ...(config.http.proxy === undefined ? {} : { proxy: config.http.proxy }),
    ...options.httpOptions,
  };
}

/** Reads a container's bindings; `resolve` of an unbound token is `PLUGIN_DEPENDENCY_MISSING`. */
function resolverOf(container: DependencyContainer): Resolver {
  return {
    resolve<T>(token: Token<T>): T {
      if (!container.isRegistered(token, false)) {
        throw new ProContextError(
          'PLUGIN_DEPENDENCY_MISSING',
          `Nothing provides '${tokenId(token)}'. Install a plugin that provides it.`,
        );
      }
      return container.resolve<T>(token);
    },
    resolveAll<T>(token: Token<T>): T[] {
      return container.isRegistered(token, false) ? container.resolveAll<T>(token) : [];
    },
    isBound(token) {
      return container.isRegistered(token, false);
    },
  };
}

/** What {@link registerPlugins} binds with. */
interface Registration {
  config: ResolvedConfig;
  logger: Logger;
  pluginOptions: ReadonlyMap<string, unknown>;
  container: DependencyContainer;
  resolver: Resolver;
}

/**
 * Calls every plugin's `register` in order, binding what it binds. A second provider of a singular contract is
 * `CONTRACT_CONFLICT`; binding after registration ended is `KERNEL_STATE`.
 */
function registerPlugins(plugins: readonly AnyPlugin[], r: Registration): void {
  const providers = new Map<symbol, string>();
  let frozen = false;
  for (const plugin of plugins) {
    const claim = (token: Token<unknown>) => {
      if (frozen) {
        throw new ProContextError(
          'KERNEL_STATE',
          `Plugin '${plugin.id}' tried to bind '${tokenId(token)}' after registration ended; bind only in register().`,
        );
      }
      if (tokenCardinality(token) !== 'single') return;
      const existing =
        providers.get(token) ?? (Object.values(kernelTokens).includes(token as never) ? 'kernel' : undefined);
      if (existing) {
        throw new ProContextError(
          'CONTRACT_CONFLICT',
          `Contract '${tokenId(token)}' is already provided by plugin '${existing}'; plugin '${plugin.id}' provides it too.`,
        );
      }
      providers.set(token, plugin.id);
    };
    const context: PluginRegistrationContext = {
      pluginId: plugin.id,
      config: r.config,
      logger: r.logger.child({ plugin: plugin.id }),
      bindValue(token, value) {
        claim(token);
        r.container.register(token, { useValue: value });
      },
      bindClass<T>(token: Token<T>, implementation: Constructor<T>) {
        claim(token);
        r.container.register<T>(token, { useClass: implementation }, { lifecycle: Lifecycle.ContainerScoped });
      },
      bindFactory(token, factory) {
        claim(token);
        r.container.register(token, { useFactory: instanceCachingFactory(() => factory(r.resolver)) });
      },
    };
    plugin.register(context, r.pluginOptions.get(plugin.id));
  }
  frozen = true;
}

/**
 * Every token a plugin `needs` is bound once all registered: else `PLUGIN_DEPENDENCY_MISSING` naming the
 * plugin, the token and the plugins that declare it (which were not added, or bound nothing with their options).
 */
function checkNeeds(plugins: readonly AnyPlugin[], resolver: Resolver): void {
  for (const plugin of plugins) {
    for (const token of plugin.needs ?? []) {
      if (resolver.isBound(token)) continue;
      const declared = declaredProviders(plugins, token).map((p) => `'${p.id}'`);
      throw new ProContextError(
        'PLUGIN_DEPENDENCY_MISSING',
        `Plugin '${plugin.id}' needs '${tokenId(token)}', which no plugin provides${declared.length > 0 ? ` (${declared.join(', ')} declares it but bound nothing: is it turned off?)` : ''}.`,
        {
          suggestion: `Add a plugin that provides '${tokenId(token)}' with kernel.use(…).`,
          details: { plugin: plugin.id, token: tokenId(token) },
        },
      );
    }
  }
}

/** A started kernel's lifecycle: its background phases and its stop. */
interface KernelLifecycle {
  background(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts the plugins in `order` (each awaited); if one fails, stops those started and rethrows. Returns the
 * background phases (run once, in the same order) and the idempotent stop (reverse order, then the HTTP client).
 */
async function startPlugins(
  order: readonly AnyPlugin[],
  contextOf: (plugin: AnyPlugin) => PluginStartContext,
  pluginOptions: ReadonlyMap<string, unknown>,
  services: KernelServices,
): Promise<KernelLifecycle> {
  const started: AnyPlugin[] = [];
  let stopped = false;
  const stopAll = async () => {
    stopped = true;
    for (const plugin of [...started].reverse()) {
      try {
        await plugin.stop?.(contextOf(plugin));
      } catch (error) {
        contextOf(plugin).logger.error('plugin stop failed', { plugin: plugin.id, error });
      }
    }
    started.length = 0;
    await services.http.close().catch(() => undefined);
  };
  try {
    for (const plugin of order) {
      await plugin.start?.(contextOf(plugin), pluginOptions.get(plugin.id));
      started.push(plugin);
    }
  } catch (error) {
    await stopAll();
    throw error;
  }
  let background: Promise<void> | undefined;
  let stopping: Promise<void> | undefined;
  return {
    background() {
      background ??= runBackground(order, contextOf, pluginOptions, () => stopped);
      return background;
    },
    stop() {
      stopping ??= stopAll().finally(() => services.container.dispose?.());
      return stopping;
    },
  };
}

/** Each plugin's `background` phase in start order, unless the kernel stopped; a failure is logged. */
async function runBackground(
  order: readonly AnyPlugin[],
  contextOf: (plugin: AnyPlugin) => PluginStartContext,
  pluginOptions: ReadonlyMap<string, unknown>,
  stopped: () => boolean,
): Promise<void> {
  for (const plugin of order) {
    if (stopped()) return;
    if (!plugin.background) continue;
    const context = contextOf(plugin);
    try {
      await plugin.background(context, pluginOptions.get(plugin.id));
    } catch (error) {
      context.logger.error('plugin background phase failed', { plugin: plugin.id, error });
    }
  }
}

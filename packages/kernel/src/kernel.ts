import semver from 'semver';
import { type DependencyContainer, instanceCachingFactory, Lifecycle, container as rootContainer } from 'tsyringe';
import { flattenZodIssues, mergeOptions, validateConfig } from './config/assemble.js';
import { type ConfigSource, getPath } from './config/load.js';
import { ONCE } from './config/once.js';
import type { ResolvedConfig } from './config/types.js';
import { type AnswerRevisions, createAnswerRevisions } from './contracts/answer-revisions.js';
import { kernelTokens } from './contracts/services.js';
import { type Token, tokenCardinality, tokenId } from './contracts/token.js';
import { kernelErrors, ProContextError, registerErrors } from './errors/pro-context-error.js';
import type { HttpClient, HttpClientFactory, HttpClientOptions } from './http/types.js';
import { createLogger, type Logger } from './logging/logger.js';
import { collectSecrets, registerSecrets } from './logging/redact.js';
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

/** Orders plugins so each starts after the plugins it depends on (registration order otherwise). */
function startOrder(plugins: AnyPlugin[]): AnyPlugin[] {
  const byId = new Map(plugins.map((p) => [p.id, p]));
  const done = new Set<string>();
  const out: AnyPlugin[] = [];
  const visit = (plugin: AnyPlugin, trail: string[]) => {
    if (done.has(plugin.id)) return;
    if (trail.includes(plugin.id)) {
      throw new ProContextError(
        'PLUGIN_DEPENDENCY_MISSING',
        `Plugins depend on each other in a cycle: ${[...trail, plugin.id].join(' -> ')}.`,
        { suggestion: 'Break the cycle: a plugin cannot (indirectly) depend on itself.' },
      );
    }
    for (const dep of plugin.dependsOn ?? []) {
      const target = byId.get(dep);
      if (target) visit(target, [...trail, plugin.id]);
    }
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
  const entries: { plugin: AnyPlugin; options: unknown }[] = [];
  let state: 'collecting' | 'starting' | 'started' = 'collecting';

  const builder: KernelBuilder = {
    use(plugin, pluginOptions) {
      if (state !== 'collecting') {
        throw new ProContextError('KERNEL_STATE', 'Plugins must be added before start().');
      }
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
      entries.push({ plugin, options: pluginOptions });
      return builder;
    },
    async start() {
      if (state !== 'collecting') throw new ProContextError('KERNEL_STATE', 'A kernel can be started once.');
      state = 'starting';
      try {
        const kernel = await startKernel();
        state = 'started';
        return kernel;
      } catch (error) {
        state = 'collecting';
        throw error;
      }
    },
  };

  async function startKernel(): Promise<StartedKernel> {
    const plugins = entries.map((e) => e.plugin);
    const ids = new Set(plugins.map((p) => p.id));
    for (const plugin of plugins) {
      for (const dep of plugin.dependsOn ?? []) {
        if (!ids.has(dep)) {
          throw kernelErrors.create(
            'PLUGIN_DEPENDENCY_MISSING',
            { dependency: dep, plugin: plugin.id },
            { suggestion: `Add the '${dep}' plugin with kernel.use(…) (before or after '${plugin.id}').` },
          );
        }
      }
    }

    const source: ConfigSource | undefined = isConfigSource(options.config)
      ? options.config
      : options.config
        ? { values: options.config, lines: new Map(), fromEnv: new Map() }
        : undefined;
    const { config, sections, warnings, environment, source: validated } = validateConfig(source, plugins);
    registerErrors(plugins.map((p) => ({ owner: p.id, errors: p.errors ?? {} })));
    // every API key and token of the configuration (file and environment) and of explicit plugin options is
    // masked wherever it could be written: logs, error payloads, answers, metrics
    registerSecrets(collectSecrets(validated?.values ?? {}));
    for (const { options: explicit } of entries) if (explicit !== undefined) registerSecrets(collectSecrets(explicit));

    const resolvedOptions = new Map<string, unknown>();
    for (const { plugin, options: explicit } of entries) {
      if (explicit === undefined || !plugin.optionsSchema) {
        resolvedOptions.set(plugin.id, explicit ?? sections.get(plugin.id));
        continue;
      }
      const rawSection = plugin.configKey ? getPath(validated?.values ?? {}, plugin.configKey) : undefined;
      const result = plugin.optionsSchema.safeParse(mergeOptions(rawSection ?? {}, explicit), ONCE);
      if (!result.success) {
        const issues = flattenZodIssues(result.error, plugin.id);
        throw new ProContextError(
          'PLUGIN_OPTIONS_INVALID',
          `Invalid options for plugin '${plugin.id}':\n${issues.map((i) => `  - ${i.path}: ${i.message}`).join('\n')}`,
          { details: { plugin: plugin.id, issues } },
        );
      }
      resolvedOptions.set(plugin.id, result.data);
    }

    const logger = options.logger ?? createLogger({ level: config.logging.level, format: config.logging.format });
    for (const warning of warnings) logger.warn(warning, { config: config.sourceFile });
    const httpClientOptions: HttpClientOptions = {
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
    const http =
      options.http ??
      options.createHttpClient?.(httpClientOptions, logger.child({ component: 'http' })) ??
      missingHttpClient();
    const events = createEventBus();
    const revisions = createAnswerRevisions();
    const allowlist = createUrlAllowlist([
      ...defaultAllowlist.map((entry) => ({ entry, reason: 'default' })),
      ...plugins.flatMap((p) => p.allowlist ?? []),
      ...config.security.urlAllowlist.map((entry) => ({ entry, reason: 'config security.urlAllowlist' })),
    ]);

    const child: DependencyContainer = rootContainer.createChildContainer();
    child.register(kernelTokens.config, { useValue: config });
    child.register(kernelTokens.logger, { useValue: logger });
    child.register(kernelTokens.http, { useValue: http });
    child.register(kernelTokens.events, { useValue: events });
    child.register(kernelTokens.revisions, { useValue: revisions });
    child.register(kernelTokens.allowlist, { useValue: allowlist });

    const providers = new Map<symbol, string>();
    const resolver: Resolver = {
      resolve<T>(token: Token<T>): T {
        if (!child.isRegistered(token, false)) {
          throw new ProContextError(
            'PLUGIN_DEPENDENCY_MISSING',
            `Nothing provides '${tokenId(token)}'. Install a plugin that provides it.`,
          );
        }
        return child.resolve<T>(token);
      },
      resolveAll<T>(token: Token<T>): T[] {
        return child.isRegistered(token, false) ? child.resolveAll<T>(token) : [];
      },
      isBound(token) {
        return child.isRegistered(token, false);
      },
    };

    let frozen = false;
    for (const { plugin } of entries) {
      const claim = (token: Token<unknown>) => {
        if (frozen) {
          throw new ProContextError(
            'KERNEL_STATE',
            `Plugin '${plugin.id}' tried to bind '${tokenId(token)}' after registration ended; bind only in register().`,
          );
        }
        if (tokenCardinality(token) === 'single') {
          const existing =
            providers.get(token) ?? (Object.values(kernelTokens).includes(token as never) ? 'kernel' : undefined);
          if (existing) {
            throw new ProContextError(
              'CONTRACT_CONFLICT',
              `Contract '${tokenId(token)}' is already provided by plugin '${existing}'; plugin '${plugin.id}' provides it too.`,
            );
          }
          providers.set(token, plugin.id);
        }
      };
      const context: PluginRegistrationContext = {
        pluginId: plugin.id,
        config,
        logger: logger.child({ plugin: plugin.id }),
        bindValue(token, value) {
          claim(token);
          child.register(token, { useValue: value });
        },
        bindClass<T>(token: Token<T>, implementation: Constructor<T>) {
          claim(token);
          child.register<T>(token, { useClass: implementation }, { lifecycle: Lifecycle.ContainerScoped });
        },
        bindFactory(token, factory) {
          claim(token);
          child.register(token, { useFactory: instanceCachingFactory(() => factory(resolver)) });
        },
      };
      plugin.register(context, resolvedOptions.get(plugin.id));
    }
    frozen = true;

    const startContext = (plugin: AnyPlugin): PluginStartContext => ({
      ...resolver,
      pluginId: plugin.id,
      config,
      logger: logger.child({ plugin: plugin.id }),
      http,
      events,
      allowlist,
    });
    const started: AnyPlugin[] = [];
    const stopAll = async () => {
      for (const plugin of [...started].reverse()) {
        try {
          await plugin.stop?.(startContext(plugin));
        } catch (error) {
          logger.error('plugin stop failed', { plugin: plugin.id, error });
        }
      }
      started.length = 0;
      await http.close().catch(() => undefined);
    };
    try {
      for (const plugin of startOrder(entries.map((e) => e.plugin))) {
        await plugin.start?.(startContext(plugin), resolvedOptions.get(plugin.id));
        started.push(plugin);
      }
    } catch (error) {
      await stopAll();
      throw error;
    }

    let stopping: Promise<void> | undefined;
    return Object.freeze({
      ...resolver,
      version: KERNEL_VERSION,
      config,
      logger,
      http,
      events,
      allowlist,
      revisions,
      warnings,
      environment,
      plugins: plugins.map((p) => ({
        id: p.id,
        ...(p.version ? { version: p.version } : {}),
        ...(p.description ? { description: p.description } : {}),
      })),
      stop() {
        stopping ??= stopAll().finally(() => child.dispose?.());
        return stopping;
      },
    });
  }
  return builder;
}

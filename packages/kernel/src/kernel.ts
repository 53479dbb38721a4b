import semver from 'semver';
import { ONCE } from './config/once.js';
import type { ConfigSource, ResolvedConfig } from './config/types.js';
import {
  type ConfigValidator,
  flattenZodIssues,
  mergeOptions,
  resolvedConfig,
  validateDeclaredSections,
} from './config/validate.js';
import { getPath } from './config/values.js';
import type { AnswerRevisions } from './contracts/answer-revisions.js';
import { createNullLogger, type Logger, type LoggerFactory } from './contracts/logger.js';
import { collectSecrets, registerSecrets } from './contracts/secrets.js';
import { kernelErrors, ProContextError, registerErrors } from './errors/pro-context-error.js';
import type { HttpClient } from './http/types.js';
import { assertPluginShape } from './plugins/define.js';
import type { AnyPlugin, PluginStartContext, Resolver } from './plugins/types.js';
import { startPlugins } from './start/lifecycle.js';
import { checkDependencies, checkNeeds, startOrder } from './start/plugin-order.js';
import { registerPlugins, resolverOf } from './start/registration.js';
import { createServices, type KernelHttpOptions } from './start/services.js';
import type { UrlAllowlist } from './util/allowlist.js';
import type { EventBus } from './util/events.js';
import { KERNEL_VERSION } from './version.js';

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
  const validate = options.validateConfig ?? validateDeclaredSections;
  const { raw, sections, warnings, environment, source: validated } = validate(configSource(options), plugins);
  const config = resolvedConfig(raw, validated);
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

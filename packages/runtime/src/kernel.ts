import {
  type AnyPlugin,
  type ConfigSource,
  createNullLogger,
  flattenZodIssues,
  getPath,
  KERNEL_VERSION,
  type KernelBuilder,
  type KernelOptions,
  type PluginStartContext,
  ProContextError,
  registerErrors,
  registerSecrets,
  type StartedKernel,
} from '@pro-context/kernel';
import semver from 'semver';
import { ONCE } from './config/once.js';
import { mergeOptions, resolvedConfig, validateDeclaredSections } from './config/validate.js';
import { runtimeErrors } from './errors.js';
import { assertPluginShape } from './plugin-shape.js';
import { collectSecrets } from './secrets.js';
import { startPlugins } from './start/lifecycle.js';
import { checkDependencies, checkNeeds, startOrder } from './start/plugin-order.js';
import { registerPlugins, resolverOf } from './start/registration.js';
import { createServices } from './start/services.js';

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
    throw runtimeErrors.create('PLUGIN_DUPLICATE_ID', { plugin: plugin.id });
  }
  if (!semver.satisfies(KERNEL_VERSION, plugin.kernel, { includePrerelease: true })) {
    throw runtimeErrors.create('PLUGIN_KERNEL_MISMATCH', {
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
  const {
    raw,
    sections,
    warnings,
    environment,
    source: validated,
  } = validate(configSource(options), entries.map(forValidation));
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

/**
 * A plugin as the configuration's validator sees it: one given options with `use()` keeps its section (no warning
 * that nobody reads it), without its schema, since the section alone may lack what the options give (a required
 * `baseUrl`): the options over the section are validated together by {@link resolvePluginOptions}.
 */
function forValidation({ plugin, options: explicit }: PluginEntry): AnyPlugin {
  return explicit !== undefined && plugin.optionsSchema ? { ...plugin, optionsSchema: undefined } : plugin;
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

import type { AnyPlugin, PluginStartContext } from '@pro-context/kernel';
import type { KernelServices } from './services.js';

/** A started kernel's lifecycle: its background phases and its stop. */
export interface KernelLifecycle {
  background(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts the plugins in `order` (each awaited); if one fails, stops those started and rethrows. Returns the
 * background phases (run once, in the same order) and the idempotent stop (reverse order, then the HTTP client).
 */
export async function startPlugins(
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

import type { PluginDefinition } from './types.js';

const DEFINED = Symbol.for('@pro-context/kernel:plugin');

/**
 * Returns a plugin definition frozen. `kernel.use()` (`@pro-context/runtime`) checks its shape when it is added
 * (`PLUGIN_INVALID` naming what is wrong), the same for a hand-written plugin object.
 */
export function definePlugin<O, I = O>(definition: PluginDefinition<O, I>): PluginDefinition<O, I> {
  return Object.freeze(Object.assign(Object.create(null), definition, { [DEFINED]: true }));
}

import { AsyncLocalStorage } from 'node:async_hooks';

// One flag per process, whatever the number of plugin-kit copies loaded (plugin-kit is a plain dependency: a
// plugin may bring its own version, and the engine must still see the flag it sets), as the kernel's secret
// registry is one per process.
const key = Symbol.for('@pro-context/plugin-kit:docs-fallback-suppressed');
const shared = globalThis as { [key]?: AsyncLocalStorage<boolean> };
shared[key] ??= new AsyncLocalStorage<boolean>();
const suppressed: AsyncLocalStorage<boolean> = shared[key];

/**
 * Runs `work` with the engine's `DocsFallback` off: a tool that consults the fallback itself (seed 004's
 * `search_documentation`) calls the engine's tools inside it, so that they answer only from the engine.
 */
export function withoutDocsFallback<T>(work: () => Promise<T>): Promise<T> {
  return suppressed.run(true, work);
}

/** Whether the current call runs inside {@link withoutDocsFallback} (of any copy of plugin-kit in the process). */
export function docsFallbackSuppressed(): boolean {
  return suppressed.getStore() === true;
}

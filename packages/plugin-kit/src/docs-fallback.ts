import { AsyncLocalStorage } from 'node:async_hooks';

const suppressed = new AsyncLocalStorage<boolean>();

/**
 * Runs `work` with the engine's `DocsFallback` off: a tool that consults the fallback itself (seed 004's
 * `search_documentation`) calls the engine's tools inside it, so that they answer only from the engine.
 */
export function withoutDocsFallback<T>(work: () => Promise<T>): Promise<T> {
  return suppressed.run(true, work);
}

/** Whether the current call runs inside {@link withoutDocsFallback}. */
export function docsFallbackSuppressed(): boolean {
  return suppressed.getStore() === true;
}

import type * as z from 'zod';
import { ONCE } from './once.js';
import type { ResolvedConfig } from './types.js';
import { getPath } from './values.js';

/**
 * A configuration section a plugin owns besides its `configKey` (the engine's `libraries`, a host's
 * `server`): validated with the rest of the file, part of the JSON Schema, read back typed with `read`.
 */
export interface ConfigSection<T = unknown> {
  /** Dotted path in `pro-context.config.yaml` (`'libraries'`, `'security.cors'`). */
  readonly key: string;
  readonly schema: z.ZodType<T>;
  /** The section's validated value; when no installed plugin declares it, the value written if valid, else the default. */
  read(config: ResolvedConfig): T;
}

/** Declares a configuration section; list it in a plugin definition's `configSections`. */
export function defineConfigSection<S extends z.ZodType>(key: string, schema: S): ConfigSection<z.output<S>> {
  return Object.freeze({
    key,
    schema: schema as z.ZodType<z.output<S>>,
    read(config: ResolvedConfig): z.output<S> {
      // validated already when a plugin declares it; checked here when not (a reserved section kept as written)
      const result = schema.safeParse(getPath(config.raw, key), ONCE);
      return (result.success ? result.data : schema.parse(undefined, ONCE)) as z.output<S>;
    },
  });
}

/**
 * Configuration values before validation and the environment variables that set keys: what `createKernel`
 * validates. Finding and reading the file is `@pro-context/config`'s `loadConfig`.
 */
import type { EnvironmentVariable } from './types.js';

/**
 * Configuration values before validation: the file's content with environment overrides applied, plus
 * what is needed to point at the exact line of a bad key.
 */
export interface ConfigSource {
  /** Merged values (file, then environment). */
  values: Record<string, unknown>;
  /** The file read, if any. */
  file?: string;
  /** Line (1-based) of each dotted key path in the file, for error messages. */
  lines: Map<string, number>;
  /** Keys set from the environment, with the variable that set them. */
  fromEnv: Map<string, string>;
  /**
   * The environment read, for the variables plugins declare: the kernel applies them at start-up, when it
   * knows its plugins (`values` holds only the kernel's own).
   */
  env?: Readonly<Record<string, string | undefined>>;
  /** The `overrides` merged into `values`, which the plugins' variables do not replace. */
  overrides?: Record<string, unknown>;
}

/** The kernel's own variables; `PRO_CONTEXT_DEBUG` and `PRO_CONTEXT_CONFIG` are read by `loadConfig`. */
export const kernelEnvironment: readonly EnvironmentVariable[] = [
  { variable: 'PRO_CONTEXT_LOG_LEVEL', key: 'logging.level' },
  { variable: 'PRO_CONTEXT_LOG_FORMAT', key: 'logging.format' },
];

function convert(raw: string, type: EnvironmentVariable['type']): unknown {
  const text = raw.trim();
  if (type === 'number' && /^\d+$/.test(text)) return Number(text);
  if (type === 'boolean' && /^(1|true|yes|on)$/i.test(text)) return true;
  if (type === 'boolean' && /^(0|false|no|off)$/i.test(text)) return false;
  return raw; // left as written: validation names the variable and what it expected
}

/**
 * Applies the declared variables set in `env` to `values` (in place), except keys `overrides` sets (flags
 * win over the environment), and records each key with the variable that set it in `fromEnv`.
 */
export function applyEnvironment(
  values: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>>,
  declared: readonly EnvironmentVariable[],
  fromEnv: Map<string, string>,
  overrides?: Record<string, unknown>,
): void {
  for (const { variable, key, type } of declared) {
    const raw = env[variable];
    if (raw === undefined || raw === '' || (overrides && getPath(overrides, key) !== undefined)) continue;
    setPath(values, key, convert(raw, type));
    fromEnv.set(key, variable);
  }
}

/** Sets `path` (dotted) in `target`, creating objects on the way. */
export function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let node: Record<string, unknown> = target;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (next === null || typeof next !== 'object' || Array.isArray(next)) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts[parts.length - 1] as string] = value;
}

/** Reads `path` (dotted) from `source`. */
export function getPath(source: unknown, path: string): unknown {
  let node = source;
  for (const part of path.split('.')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/** Deep-merges plain objects (arrays and scalars of `over` replace those of `base`). */
export function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue;
    const current = out[key];
    out[key] = isPlainObject(current) && isPlainObject(value) ? deepMerge(current, value) : value;
  }
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Uint8Array);
}

import { type EnvironmentVariable, getPath } from '@pro-context/kernel';
import { setPath } from '@pro-context/runtime';

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
    if (raw === undefined || raw.trim() === '' || (overrides && getPath(overrides, key) !== undefined)) continue;
    setPath(values, key, convert(raw, type));
    fromEnv.set(key, variable);
  }
}

import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { isMap, isSeq, LineCounter, parseDocument } from 'yaml';
import { ProContextError } from '../errors/pro-context-error.js';
import type { EnvironmentVariable } from './sections.js';

/** Names the config file may have, looked up in the working directory, then in `~/.pro-context/`. */
export const configFileNames = ['pro-context.config.yaml', 'pro-context.config.yml'] as const;

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

/** Options of {@link loadConfig}. */
export interface LoadConfigOptions {
  /** Explicit file; an error if it does not exist. Default: `PRO_CONTEXT_CONFIG`, then the usual places. */
  file?: string;
  /** Where to look for `pro-context.config.yaml` (default `process.cwd()`). */
  cwd?: string;
  /** Environment (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** Values to start from, below the file (e.g. a preset's defaults). */
  defaults?: Record<string, unknown>;
  /** Values above the file and the environment (e.g. command-line flags). */
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

/** Finds the config file: explicit, `PRO_CONTEXT_CONFIG`, `./pro-context.config.yaml`, `~/.pro-context/config.yaml`. */
export function findConfigFile(options: LoadConfigOptions = {}): string | undefined {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const explicit = options.file ?? env.PRO_CONTEXT_CONFIG;
  if (explicit) {
    const file = isAbsolute(explicit) ? explicit : resolve(cwd, explicit);
    if (!existsSync(file)) {
      throw new ProContextError('CONFIG_INVALID', `Configuration file ${file} does not exist.`, {
        suggestion: 'Check the path given with --config or PRO_CONTEXT_CONFIG.',
      });
    }
    return file;
  }
  for (const name of configFileNames) {
    const file = resolve(cwd, name);
    if (existsSync(file)) return file;
  }
  const home = resolve(homedir(), '.pro-context', 'config.yaml');
  return existsSync(home) ? home : undefined;
}

function collectLines(node: unknown, prefix: string, counter: LineCounter, lines: Map<string, number>): void {
  if (isMap(node)) {
    for (const pair of node.items) {
      const keyNode = pair.key as { value?: unknown; range?: [number, number, number] } | null;
      const key = keyNode && typeof keyNode === 'object' ? String(keyNode.value) : String(pair.key);
      const path = prefix ? `${prefix}.${key}` : key;
      if (keyNode?.range) lines.set(path, counter.linePos(keyNode.range[0]).line);
      collectLines(pair.value, path, counter, lines);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, index) => {
      const path = `${prefix}.${index}`;
      const range = (item as { range?: [number, number, number] } | null)?.range;
      if (range) lines.set(path, counter.linePos(range[0]).line);
      collectLines(item, path, counter, lines);
    });
  }
}

/**
 * Reads `pro-context.config.yaml` (if any) and applies the kernel's environment variables (plugins'
 * variables are applied when the kernel validates the configuration, see {@link ConfigSource.env}).
 * YAML syntax errors fail here with the line and column; values are validated later, against the schema
 * assembled from the kernel and the installed plugins.
 */
export function loadConfig(options: LoadConfigOptions = {}): ConfigSource {
  const env = options.env ?? process.env;
  const file = findConfigFile(options);
  const lines = new Map<string, number>();
  let values: Record<string, unknown> = { ...(options.defaults ?? {}) };
  if (file) {
    const counter = new LineCounter();
    const doc = parseDocument(readFileSync(file, 'utf8'), {
      lineCounter: counter,
      prettyErrors: true,
      uniqueKeys: true,
    });
    if (doc.errors.length > 0) {
      const first = doc.errors[0];
      const where = first?.linePos?.[0]
        ? `line ${first.linePos[0].line}, column ${first.linePos[0].col}`
        : 'unknown position';
      throw new ProContextError(
        'CONFIG_INVALID',
        `${file} is not valid YAML (${where}): ${first?.message.split('\n')[0] ?? 'parse error'}`,
        {
          details: { file },
          suggestion: /unique/i.test(first?.message ?? '')
            ? 'A key appears twice at the same level: merge the two blocks into one, then start again.'
            : 'Fix the YAML at the named line (indentation, a missing colon or quote), then start again.',
        },
      );
    }
    const parsed = doc.toJS({ maxAliasCount: 100 }) as unknown;
    if (parsed !== null && parsed !== undefined && !isPlainObject(parsed)) {
      throw new ProContextError('CONFIG_INVALID', `${file} must contain a mapping of settings at the top level.`, {
        details: { file },
      });
    }
    collectLines(doc.contents, '', counter, lines);
    values = deepMerge(values, (parsed as Record<string, unknown> | null) ?? {});
  }
  const fromEnv = new Map<string, string>();
  applyEnvironment(values, env, kernelEnvironment, fromEnv);
  const debug = env.PRO_CONTEXT_DEBUG;
  if (debug && /^(1|true|yes|on)$/i.test(debug.trim())) {
    setPath(values, 'logging.level', 'debug');
    fromEnv.set('logging.level', 'PRO_CONTEXT_DEBUG');
  }
  if (options.overrides) values = deepMerge(values, options.overrides);
  return { values, file, lines, fromEnv, env, ...(options.overrides ? { overrides: options.overrides } : {}) };
}

/** Expands a leading `~` to the home directory. */
export function expandHome(path: string): string {
  return path === '~' ? homedir() : path.startsWith('~/') ? resolve(homedir(), path.slice(2)) : path;
}

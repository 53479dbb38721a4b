import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { type ConfigSource, ProContextError } from '@pro-context/kernel';
import { deepMerge, setPath } from '@pro-context/runtime';
import type { LineCounter } from 'yaml';
import { applyEnvironment, kernelEnvironment } from './environment.js';

/** The YAML parser, imported only when there is a file to read (a start without one never loads it). */
type Yaml = typeof import('yaml');

/** Names the config file may have, looked up in the working directory, then in `~/.pro-context/`. */
export const configFileNames = ['pro-context.config.yaml', 'pro-context.config.yml'] as const;

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

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Uint8Array);

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

/**
 * The YAML parser's module. It is CommonJS: a bundle that inlines it (the `pro-context` command) gives the
 * module as the default export only, Node gives its names too.
 */
async function importYaml(): Promise<Yaml> {
  const loaded = await import('yaml');
  return typeof loaded.parseDocument === 'function' ? loaded : (loaded as unknown as { default: Yaml }).default;
}

function collectLines(
  yaml: Yaml,
  node: unknown,
  prefix: string,
  counter: LineCounter,
  lines: Map<string, number>,
): void {
  if (yaml.isMap(node)) {
    for (const pair of node.items) {
      const keyNode = pair.key as { value?: unknown; range?: [number, number, number] } | null;
      const key = keyNode && typeof keyNode === 'object' ? String(keyNode.value) : String(pair.key);
      const path = prefix ? `${prefix}.${key}` : key;
      if (keyNode?.range) lines.set(path, counter.linePos(keyNode.range[0]).line);
      collectLines(yaml, pair.value, path, counter, lines);
    }
  } else if (yaml.isSeq(node)) {
    node.items.forEach((item, index) => {
      const path = `${prefix}.${index}`;
      const range = (item as { range?: [number, number, number] } | null)?.range;
      if (range) lines.set(path, counter.linePos(range[0]).line);
      collectLines(yaml, item, path, counter, lines);
    });
  }
}

/**
 * Reads `pro-context.config.yaml` (if any) and applies the kernel's environment variables (plugins'
 * variables are applied when the kernel validates the configuration, see {@link ConfigSource.env}).
 * YAML syntax errors fail here with the line and column; values are validated later, against the schema
 * assembled from the kernel and the installed plugins. Asynchronous because the YAML parser is imported only
 * when a file is found: a start without a configuration file does not load it.
 */
export async function loadConfig(options: LoadConfigOptions = {}): Promise<ConfigSource> {
  const env = options.env ?? process.env;
  const file = findConfigFile(options);
  const lines = new Map<string, number>();
  let values: Record<string, unknown> = { ...(options.defaults ?? {}) };
  if (file) {
    const yaml = await importYaml();
    const counter = new yaml.LineCounter();
    const doc = yaml.parseDocument(readConfigFile(file), {
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
        `${file} is not valid YAML (${where}): ${firstLineOf(first?.message ?? 'parse error')}`,
        {
          details: { file },
          suggestion: /unique/i.test(first?.message ?? '')
            ? 'A key appears twice at the same level: merge the two blocks into one, then start again.'
            : 'Fix the YAML at the named line (indentation, a missing colon or quote), then start again.',
        },
      );
    }
    const parsed = toValues(doc, file);
    if (parsed !== null && parsed !== undefined && !isPlainObject(parsed)) {
      throw new ProContextError('CONFIG_INVALID', `${file} must contain a mapping of settings at the top level.`, {
        suggestion:
          'Write the settings as `section:` lines at the left margin (logging:, libraries:, server:…), not as a list (- …) or a single value.',
        details: { file },
      });
    }
    collectLines(yaml, doc.contents, '', counter, lines);
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

/** The configuration file's text; a folder or an unreadable file is `CONFIG_INVALID`, saying which. */
function readConfigFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === 'EISDIR'
        ? 'is a folder, not a file'
        : code === 'EACCES' || code === 'EPERM'
          ? 'cannot be read (permission denied)'
          : `cannot be read (${code ?? String(error)})`;
    throw new ProContextError('CONFIG_INVALID', `Configuration file ${file} ${why}.`, {
      details: { file },
      suggestion: 'Point --config (or PRO_CONTEXT_CONFIG) at a readable YAML file, or remove the path.',
    });
  }
}

/** The parser's first line, without the position it repeats (" at line 4, column 1:"): the message gives it. */
function firstLineOf(message: string): string {
  const line = message.split('\n')[0] ?? message;
  const at = line.lastIndexOf(' at line ');
  return (at > 0 ? line.slice(0, at) : line).trim();
}

/** The document's values; an alias expansion past the limit (a "billion laughs" file) is `CONFIG_INVALID`. */
function toValues(doc: { toJS(options: { maxAliasCount: number }): unknown }, file: string): unknown {
  try {
    return doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    throw new ProContextError(
      'CONFIG_INVALID',
      `${file} could not be read as settings: ${firstLineOf(error instanceof Error ? error.message : String(error))}.`,
      {
        details: { file },
        suggestion: 'Write the settings out instead of expanding YAML aliases (&name / *name) many times over.',
      },
    );
  }
}

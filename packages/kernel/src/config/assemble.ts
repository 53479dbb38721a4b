import type * as z from 'zod';
import { ProContextError } from '../errors/pro-context-error.js';
import type { AnyPlugin } from '../plugins/types.js';
import { type KernelConfig, kernelConfigShape } from './kernel-schema.js';
import { applyEnvironment, type ConfigSource, deepMerge, getPath, kernelEnvironment, setPath } from './load.js';
import { ONCE } from './once.js';
import type { EnvironmentVariable, ResolvedConfig } from './types.js';

/** One problem found in a configuration. */
export interface ConfigIssue {
  /** Dotted key path, e.g. `cache.maxMemoryMB`. */
  path: string;
  message: string;
  /** Line in the config file, when the key came from it. */
  line?: number;
  /** The environment variable that set the key, if one did. */
  variable?: string;
}

/** The outcome of validating a configuration against the kernel's and the plugins' schemas. */
export interface ValidatedConfig {
  config: ResolvedConfig;
  /** Each plugin's validated options from its config section (before explicit `use()` options). */
  sections: Map<string, unknown>;
  /** Keys set for plugins that are not installed. */
  warnings: string[];
  /** The values validated: the source's, with the plugins' environment variables applied. */
  source?: ConfigSource;
  /** Every declared environment variable that set a key. */
  environment: { variable: string; key: string; secret: boolean }[];
}

/** A section of the configuration file and who declared it. */
export interface DeclaredConfigSection {
  key: string;
  schema?: z.ZodType;
  owner: string;
  /** Set for a plugin's `configKey`: its validated value is that plugin's options. */
  optionsOf?: string;
  description?: string;
}

const conflict = (message: string) =>
  new ProContextError('CONTRACT_CONFLICT', message, {
    suggestion: 'Keep one of the two plugins, or give one of the two declarations another name.',
  });

/**
 * Every section of the configuration file: the kernel's, each plugin's `configKey` and `configSections`, one
 * declaration per key (`CONTRACT_CONFLICT` for a key declared twice), outer sections first.
 */
export function declaredConfigSections(plugins: readonly AnyPlugin[]): DeclaredConfigSection[] {
  const out: DeclaredConfigSection[] = Object.entries(kernelConfigShape).map(([key, schema]) => ({
    key,
    schema,
    owner: 'the kernel',
  }));
  for (const plugin of plugins) {
    if (plugin.configKey) {
      out.push({
        key: plugin.configKey,
        schema: plugin.optionsSchema,
        owner: `plugin '${plugin.id}'`,
        optionsOf: plugin.id,
        ...(plugin.description ? { description: `${plugin.description} (plugin '${plugin.id}')` } : {}),
      });
    }
    for (const section of plugin.configSections ?? []) {
      const existing = out.find((d) => d.key === section.key);
      if (existing) {
        throw conflict(
          `Config section '${section.key}' is declared by ${existing.owner} and by plugin '${plugin.id}'.`,
        );
      }
      out.push({ key: section.key, schema: section.schema, owner: `plugin '${plugin.id}'` });
    }
  }
  return out.sort((a, b) => a.key.split('.').length - b.key.split('.').length);
}

/** The kernel's variables and every plugin's; one key per variable. */
function declaredEnvironment(plugins: readonly AnyPlugin[]): (EnvironmentVariable & { owner: string })[] {
  const out = kernelEnvironment.map((v) => ({ ...v, owner: 'the kernel' }));
  for (const plugin of plugins) {
    for (const variable of plugin.environment ?? []) {
      const existing = out.find((v) => v.variable === variable.variable);
      if (existing && (existing.key !== variable.key || existing.type !== variable.type)) {
        throw conflict(
          `${variable.variable} sets '${existing.key}' for ${existing.owner} and '${variable.key}' for plugin '${plugin.id}'.`,
        );
      }
      if (!existing) out.push({ ...variable, owner: `plugin '${plugin.id}'` });
    }
  }
  return out;
}

const isMapping = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Flattens zod issues to `path: message` lines (unrecognized keys become one line per key). */
export function flattenZodIssues(error: z.ZodError, prefix: string): { path: string; message: string }[] {
  const out: { path: string; message: string }[] = [];
  for (const issue of error.issues) {
    const base = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        out.push({
          path: base ? `${base}.${key}` : key,
          message: 'Unrecognized key (check its spelling and indentation)',
        });
      }
    } else {
      out.push({ path: base || '(root)', message: issue.message });
    }
  }
  return out;
}

function describeIssues(source: ConfigSource | undefined, issues: ConfigIssue[]): string {
  // the file is named when it holds a bad key: a key missing from a section the environment set up (only
  // PRO_CONTEXT_EMBEDDINGS_URL) is not the file's fault, and the issue's own message names the variable to set
  const where = source?.file && issues.some((issue) => issue.line !== undefined) ? ` in ${source.file}` : '';
  const lines = issues.map((issue) => {
    const at = [issue.line ? `line ${issue.line}` : '', issue.variable ? `from ${issue.variable}` : '']
      .filter(Boolean)
      .join(', ');
    return `  - ${issue.path}${at ? ` (${at})` : ''}: ${issue.message}`;
  });
  return `Invalid configuration${where}:\n${lines.join('\n')}`;
}

function lineOf(source: ConfigSource | undefined, path: string): number | undefined {
  if (!source) return undefined;
  for (let p = path; p; p = p.includes('.') ? p.slice(0, p.lastIndexOf('.')) : '') {
    const line = source.lines.get(p);
    if (line !== undefined) return line;
  }
  return undefined;
}

function variableOf(source: ConfigSource | undefined, path: string): string | undefined {
  if (!source) return undefined;
  for (const [key, variable] of source.fromEnv) if (path === key || path.startsWith(`${key}.`)) return variable;
  return undefined;
}

/** Adds one problem, with the file line or the variable that set the key. */
type AddIssue = (path: string, message: string) => void;

/**
 * The source with the plugins' declared variables applied (the kernel's own were applied by `loadConfig`, with
 * `PRO_CONTEXT_DEBUG` after them), on a copy.
 */
function withPluginEnvironment(
  input: ConfigSource | undefined,
  variables: readonly (EnvironmentVariable & { owner: string })[],
): ConfigSource | undefined {
  if (!input?.env) return input;
  const values = structuredClone(input.values);
  const fromEnv = new Map(input.fromEnv);
  const declaredByPlugins = variables.filter((v) => v.owner !== 'the kernel');
  applyEnvironment(values, input.env, declaredByPlugins, fromEnv, input.overrides);
  return { ...input, values, fromEnv };
}

/** Each declared section validated by its schema: the validated values (`raw`) and each plugin's options. */
function validateSections(
  declared: readonly DeclaredConfigSection[],
  values: Record<string, unknown>,
  add: AddIssue,
): { raw: Record<string, unknown>; sections: Map<string, unknown> } {
  const raw: Record<string, unknown> = {};
  const sections = new Map<string, unknown>();
  for (const { key, schema, optionsOf } of declared) {
    let value = getPath(values, key);
    for (const inner of declared.filter((d) => d.key.startsWith(`${key}.`) && isMapping(value))) {
      // a section declared inside this one (`security.cors`) is validated on its own
      value = structuredClone(value);
      const path = inner.key.slice(key.length + 1);
      const parent = path.includes('.') ? getPath(value, path.slice(0, path.lastIndexOf('.'))) : value;
      if (isMapping(parent)) delete parent[path.slice(path.lastIndexOf('.') + 1)];
    }
    if (!schema) {
      if (optionsOf) sections.set(optionsOf, value);
      continue;
    }
    const result = schema.safeParse(optionsOf ? (value ?? {}) : value, ONCE);
    if (result.success) {
      if (optionsOf) sections.set(optionsOf, result.data);
      setPath(raw, key, result.data);
    } else {
      for (const issue of flattenZodIssues(result.error, key)) add(issue.path, issue.message);
    }
  }
  return { raw, sections };
}

/**
 * Keys no section claims: inside a reserved section (one the preset knows but no installed plugin declares) a
 * warning, kept as written in `raw`; a third party's section under a reserved one, a warning; anything else an
 * issue. Returns the warnings.
 */
function checkUnclaimed(
  values: Record<string, unknown>,
  claimed: ReadonlySet<string>,
  reserved: ReadonlySet<string>,
  raw: Record<string, unknown>,
  add: AddIssue,
): string[] {
  const warnings: string[] = [];
  const walk = (node: unknown, prefix: string) => {
    if (!isMapping(node)) return;
    for (const [key, value] of Object.entries(node)) {
      const path = prefix ? `${prefix}.${key}` : key;
      if (claimed.has(path)) continue;
      if ([...claimed].some((c) => c.startsWith(`${path}.`))) {
        if (isMapping(value)) walk(value, path);
        else add(path, 'Expected a mapping of settings');
        continue;
      }
      if ([...reserved].some((k) => k.startsWith(`${path}.`)) && isMapping(value)) {
        walk(value, path);
        continue;
      }
      if (reserved.has(path)) {
        warnings.push(`${path} is set but no installed plugin reads it.`);
        if (!(path in raw)) setPath(raw, path, value);
        continue;
      }
      // a third-party plugin's section (`sources.internalDocs`): not ours to judge, but worth a word when no
      // installed plugin reads it (a plugin not composed in, or a misspelt name)
      if (prefix !== '' && reserved.has(prefix) && !claimed.has(prefix)) {
        warnings.push(
          `${path} is set but no installed plugin reads it (check the plugin is installed and the name's spelling).`,
        );
        continue;
      }
      add(path, 'Unrecognized key (check its spelling and indentation)');
    }
  };
  walk(values, '');
  return warnings;
}

/**
 * Validates configuration values against the kernel's schema, every plugin's `optionsSchema` (at its
 * `configKey`) and `configSections`, after applying the plugins' environment variables. Throws one
 * `CONFIG_INVALID` error listing every bad key with its line in the file or the variable that set it.
 */
export function validateConfig(input: ConfigSource | undefined, plugins: readonly AnyPlugin[]): ValidatedConfig {
  const declared = declaredConfigSections(plugins);
  const variables = declaredEnvironment(plugins);
  const source = withPluginEnvironment(input, variables);
  const values = source?.values ?? {};
  const issues: ConfigIssue[] = [];
  const add: AddIssue = (path, message) =>
    issues.push({ path, message, line: lineOf(source, path), variable: variableOf(source, path) });
  const { raw, sections } = validateSections(declared, values, add);
  const reserved = new Set(plugins.flatMap((p) => p.reservedSections ?? []));
  const warnings = checkUnclaimed(values, new Set(declared.map((d) => d.key)), reserved, raw, add);
  if (issues.length > 0) {
    throw new ProContextError('CONFIG_INVALID', describeIssues(source, issues), {
      suggestion:
        issues.length === 1 ? `Fix ${issues[0]?.path} and start again.` : 'Fix the keys listed and start again.',
      details: { file: source?.file, issues },
    });
  }
  const kernelSections = Object.fromEntries(Object.keys(kernelConfigShape).map((key) => [key, raw[key]]));
  const config = Object.freeze({
    ...(kernelSections as unknown as KernelConfig),
    raw: Object.freeze(raw),
    ...(source?.file ? { sourceFile: source.file } : {}),
  }) as ResolvedConfig;
  const environment = [...(source?.fromEnv ?? [])].map(([key, variable]) => ({
    variable,
    key,
    secret: variables.some((v) => v.variable === variable && v.secret === true),
  }));
  return { config, sections, warnings, ...(source ? { source } : {}), environment };
}

/** Merges explicit plugin options over its config section (explicit wins). */
export function mergeOptions(section: unknown, explicit: unknown): unknown {
  if (explicit === undefined) return section;
  if (section && typeof section === 'object' && explicit && typeof explicit === 'object') {
    return deepMerge(section as Record<string, unknown>, explicit as Record<string, unknown>);
  }
  return explicit;
}

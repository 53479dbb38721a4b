import type * as z from 'zod';
import { ProContextError } from '../errors/pro-context-error.js';
import type { AnyPlugin } from '../plugins/types.js';
import { type KernelConfig, kernelConfigShape } from './kernel-schema.js';
import { ONCE } from './once.js';
import type { ConfigIssue, ConfigSource, ResolvedConfig } from './types.js';
import { deepMerge, getPath, isPlainObject, setPath } from './values.js';

/** What a {@link ConfigValidator} returns: the configuration validated against the kernel's and the plugins' schemas. */
export interface ValidatedConfig {
  /** Every declared section as validated, at its dotted key (plus what the validator keeps as written). */
  raw: Record<string, unknown>;
  /** Each plugin's validated options from its config section (before explicit `use()` options). */
  sections: Map<string, unknown>;
  /** What is set but read by nobody (keys for plugins that are not installed). */
  warnings: string[];
  /** The values validated: the source's, with the plugins' environment variables applied. */
  source?: ConfigSource;
  /** Every declared environment variable that set a key. */
  environment: { variable: string; key: string; secret: boolean }[];
}

/**
 * Validates the configuration at `start()`, knowing the plugins: `validateConfig` of `@pro-context/config` (the
 * plugins' environment variables, line numbers, keys no section claims). Throws {@link configInvalid}'s error
 * (`CONFIG_INVALID`) or `CONTRACT_CONFLICT`.
 */
export type ConfigValidator = (source: ConfigSource | undefined, plugins: readonly AnyPlugin[]) => ValidatedConfig;

/** A section of the configuration file and who declared it. */
export interface DeclaredConfigSection {
  key: string;
  schema?: z.ZodType;
  owner: string;
  /** Set for a plugin's `configKey`: its validated value is that plugin's options. */
  optionsOf?: string;
  description?: string;
}

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
        throw new ProContextError(
          'CONTRACT_CONFLICT',
          `Config section '${section.key}' is declared by ${existing.owner} and by plugin '${plugin.id}'.`,
          { suggestion: 'Keep one of the two plugins, or give one of the two declarations another name.' },
        );
      }
      out.push({ key: section.key, schema: section.schema, owner: `plugin '${plugin.id}'` });
    }
  }
  return out.sort((a, b) => a.key.split('.').length - b.key.split('.').length);
}

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
      out.push({ path: base || '(root)', message: personWording(issue.message) });
    }
  }
  return out;
}

const ARTICLE: Record<string, string> = { array: 'a list', object: 'a mapping', undefined: 'nothing', null: 'null' };
const withArticle = (type: string): string => ARTICLE[type] ?? (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

/**
 * zod's own sentence for a value of the wrong type, in a person's words ("Invalid input: expected string, received
 * undefined" → "required: expected a string"; "…expected number, received string" → "expected a number, got a
 * string"); any other message (a schema's own, a range) as it is.
 */
function personWording(message: string): string {
  const wrongType = /^Invalid input: expected (\w+), received (\w+)$/.exec(message);
  if (!wrongType) return message;
  const [, expected = '', received = ''] = wrongType;
  return received === 'undefined'
    ? `required: expected ${withArticle(expected)}`
    : `expected ${withArticle(expected)}, got ${withArticle(received)}`;
}

/**
 * Each declared section of `values` parsed by its schema (a section declared inside another, `security.cors`,
 * on its own): the validated values at their keys (`raw`), each plugin's options, and the problems found.
 */
export function parseConfigSections(
  declared: readonly DeclaredConfigSection[],
  values: Record<string, unknown>,
): { raw: Record<string, unknown>; sections: Map<string, unknown>; issues: ConfigIssue[] } {
  const raw: Record<string, unknown> = {};
  const sections = new Map<string, unknown>();
  const issues: ConfigIssue[] = [];
  for (const { key, schema, optionsOf } of declared) {
    let value = getPath(values, key);
    for (const inner of declared.filter((d) => d.key.startsWith(`${key}.`) && isPlainObject(value))) {
      value = structuredClone(value);
      const path = inner.key.slice(key.length + 1);
      const parent = path.includes('.') ? getPath(value, path.slice(0, path.lastIndexOf('.'))) : value;
      if (isPlainObject(parent)) delete parent[path.slice(path.lastIndexOf('.') + 1)];
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
      issues.push(...flattenZodIssues(result.error, key));
    }
  }
  return { raw, sections, issues };
}

/** The one `CONFIG_INVALID` error listing every bad key, with its line in `file` or the variable that set it. */
export function configInvalid(issues: readonly ConfigIssue[], file?: string): ProContextError {
  const lines = issues.map((issue) => {
    const at = [issue.line ? `line ${issue.line}` : '', issue.variable ? `from ${issue.variable}` : '']
      .filter(Boolean)
      .join(', ');
    return `  - ${issue.path}${at ? ` (${at})` : ''}: ${issue.message}`;
  });
  const where = file ? ` in ${file}` : '';
  return new ProContextError('CONFIG_INVALID', `Invalid configuration${where}:\n${lines.join('\n')}`, {
    suggestion:
      issues.length === 1 ? `Fix ${issues[0]?.path} and start again.` : 'Fix the keys listed and start again.',
    details: { file, issues },
  });
}

/**
 * The kernel's own validation, when `createKernel` is given no validator: each declared section parsed by its
 * schema (`CONFIG_INVALID`, `CONTRACT_CONFLICT` as with one). It applies no plugin's environment variables, gives
 * no line numbers and does not look at keys outside the declared sections.
 */
export const validateDeclaredSections: ConfigValidator = (source, plugins) => {
  const { raw, sections, issues } = parseConfigSections(declaredConfigSections(plugins), source?.values ?? {});
  if (issues.length > 0) throw configInvalid(issues, source?.file);
  return { raw, sections, warnings: [], ...(source ? { source } : {}), environment: [] };
};

/** The frozen, typed configuration of validated values. */
export function resolvedConfig(raw: Record<string, unknown>, source: ConfigSource | undefined): ResolvedConfig {
  const kernelSections = Object.fromEntries(Object.keys(kernelConfigShape).map((key) => [key, raw[key]]));
  return Object.freeze({
    ...(kernelSections as unknown as KernelConfig),
    raw: Object.freeze(raw),
    ...(source?.file ? { sourceFile: source.file } : {}),
    ...(source?.file && source.lines.size > 0 ? { sourceLines: source.lines } : {}),
  }) as ResolvedConfig;
}

/** Merges explicit plugin options over its config section (explicit wins). */
export function mergeOptions(section: unknown, explicit: unknown): unknown {
  if (explicit === undefined) return section;
  if (section && typeof section === 'object' && explicit && typeof explicit === 'object') {
    return deepMerge(section as Record<string, unknown>, explicit as Record<string, unknown>);
  }
  return explicit;
}

import * as z from 'zod';
import { ProContextError } from '../errors/pro-context-error.js';
import type { AnyPlugin } from '../plugins/types.js';
import { type KernelConfig, kernelConfigShape } from './kernel-schema.js';
import { type ConfigSource, deepMerge, getPath, setPath } from './load.js';
import type { ResolvedConfig } from './types.js';

/**
 * Sections named by the specification (seed 001 §12.1) or by plugins this project ships. Setting one
 * whose plugin is not installed is a warning, not an error; any other unknown key is an error.
 */
const knownSections = new Set([
  'server',
  'project',
  'cache',
  'sources',
  'sources.llmsTxt',
  'sources.github',
  'sources.custom',
  'sources.localDocs',
  'rateLimit',
  'logging',
  'security',
  'http',
  'libraries',
  'search',
  'registries',
  'registries.pypi',
  'registries.npm',
  'context7',
  'grounding',
  'exa',
  'auth',
  'embed',
  'metrics',
]);

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
      out.push({ path: base || '(root)', message: issue.message });
    }
  }
  return out;
}

function describeIssues(source: ConfigSource | undefined, issues: ConfigIssue[]): string {
  const where = source?.file ? ` in ${source.file}` : '';
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

/**
 * Validates configuration values against the kernel's schema and every plugin's `optionsSchema` (at its
 * `configKey`). Throws one `CONFIG_INVALID` error listing every bad key with its line in the file.
 */
export function validateConfig(source: ConfigSource | undefined, plugins: readonly AnyPlugin[]): ValidatedConfig {
  const values = source?.values ?? {};
  const issues: ConfigIssue[] = [];
  const add = (path: string, message: string) =>
    issues.push({ path, message, line: lineOf(source, path), variable: variableOf(source, path) });
  const raw: Record<string, unknown> = {};
  const kernelSections: Record<string, unknown> = {};

  for (const [key, schema] of Object.entries(kernelConfigShape)) {
    const result = (schema as z.ZodType).safeParse(values[key]);
    if (result.success) {
      kernelSections[key] = result.data;
      raw[key] = result.data;
    } else {
      for (const issue of flattenZodIssues(result.error, key)) add(issue.path, issue.message);
    }
  }

  const sections = new Map<string, unknown>();
  const claimed = new Set(Object.keys(kernelConfigShape));
  for (const plugin of plugins) {
    if (!plugin.configKey) continue;
    claimed.add(plugin.configKey);
    const section = getPath(values, plugin.configKey);
    if (!plugin.optionsSchema) {
      sections.set(plugin.id, section);
      continue;
    }
    const result = plugin.optionsSchema.safeParse(section ?? {});
    if (result.success) {
      sections.set(plugin.id, result.data);
      setPath(raw, plugin.configKey, result.data);
    } else {
      for (const issue of flattenZodIssues(result.error, plugin.configKey)) add(issue.path, issue.message);
    }
  }

  const warnings: string[] = [];
  const walk = (node: unknown, prefix: string) => {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return;
    for (const [key, value] of Object.entries(node)) {
      const path = prefix ? `${prefix}.${key}` : key;
      if (claimed.has(path)) continue;
      const isAncestor = [...claimed].some((c) => c.startsWith(`${path}.`));
      if (isAncestor) {
        if (value !== null && typeof value === 'object' && !Array.isArray(value)) walk(value, path);
        else add(path, 'Expected a mapping of settings');
        continue;
      }
      const isContainer = [...knownSections].some((k) => k.startsWith(`${path}.`));
      if (isContainer && value !== null && typeof value === 'object' && !Array.isArray(value)) {
        walk(value, path);
        continue;
      }
      if (knownSections.has(path)) {
        warnings.push(`${path} is set but no installed plugin reads it.`);
        if (!(path in raw)) setPath(raw, path, value);
        continue;
      }
      // a third-party plugin's section (`sources.internalDocs`): not ours to judge, but worth a word when no
      // installed plugin reads it (a plugin not composed in, or a misspelt name)
      const parentKnown = prefix !== '' && knownSections.has(prefix);
      if (parentKnown && !claimed.has(prefix)) {
        warnings.push(
          `${path} is set but no installed plugin reads it (check the plugin is installed and the name's spelling).`,
        );
        continue;
      }
      add(path, 'Unrecognized key (check its spelling and indentation)');
    }
  };
  walk(values, '');

  if (issues.length > 0) {
    throw new ProContextError('CONFIG_INVALID', describeIssues(source, issues), {
      suggestion:
        issues.length === 1 ? `Fix ${issues[0]?.path} and start again.` : 'Fix the keys listed and start again.',
      details: { file: source?.file, issues },
    });
  }

  const config = Object.freeze({
    ...(kernelSections as unknown as KernelConfig),
    raw: Object.freeze(raw),
    ...(source?.file ? { sourceFile: source.file } : {}),
  }) as ResolvedConfig;
  return { config, sections, warnings };
}

/**
 * One zod schema of the whole configuration file: the kernel's sections plus each plugin's options at its
 * `configKey`. Used to generate the JSON Schema that editors use to complete and check the file.
 */
export function buildConfigSchema(plugins: readonly AnyPlugin[]): z.ZodObject {
  type Node = { schema?: z.ZodType; children: Map<string, Node> };
  const root: Node = { children: new Map() };
  const place = (path: string, schema: z.ZodType) => {
    let node = root;
    for (const part of path.split('.')) {
      let child = node.children.get(part);
      if (!child) {
        child = { children: new Map() };
        node.children.set(part, child);
      }
      node = child;
    }
    node.schema = schema;
  };
  for (const [key, schema] of Object.entries(kernelConfigShape)) place(key, schema as z.ZodType);
  for (const plugin of plugins) {
    if (plugin.configKey && plugin.optionsSchema) {
      const described = plugin.description
        ? plugin.optionsSchema.describe(`${plugin.description} (plugin '${plugin.id}')`)
        : plugin.optionsSchema;
      place(plugin.configKey, described.optional());
    }
  }
  const toSchema = (node: Node): z.ZodType => {
    if (node.schema && node.children.size === 0) return node.schema;
    const shape: Record<string, z.ZodType> = {};
    for (const [key, child] of node.children) shape[key] = toSchema(child);
    return z.object(shape).optional();
  };
  const shape: Record<string, z.ZodType> = {};
  for (const [key, child] of root.children) shape[key] = toSchema(child);
  return z.object(shape);
}

/** JSON Schema (draft 2020-12) of the configuration file, for `# yaml-language-server: $schema=…`. */
export function configJsonSchema(plugins: readonly AnyPlugin[]): Record<string, unknown> {
  const schema = z.toJSONSchema(buildConfigSchema(plugins), { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return {
    ...schema,
    $id: 'https://pro-context.dev/schemas/pro-context.config.schema.json',
    title: 'pro-context configuration (pro-context.config.yaml)',
  };
}

/** Merges explicit plugin options over its config section (explicit wins). */
export function mergeOptions(section: unknown, explicit: unknown): unknown {
  if (explicit === undefined) return section;
  if (section && typeof section === 'object' && explicit && typeof explicit === 'object') {
    return deepMerge(section as Record<string, unknown>, explicit as Record<string, unknown>);
  }
  return explicit;
}

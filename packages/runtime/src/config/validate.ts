import {
  type AnyPlugin,
  type ConfigIssue,
  type ConfigSource,
  type ConfigValidator,
  configInvalid,
  flattenZodIssues,
  getPath,
  type KernelConfig,
  ProContextError,
  type ResolvedConfig,
  type z,
} from '@pro-context/kernel';
import { kernelConfigShape } from './kernel-schema.js';
import { ONCE } from './once.js';
import { deepMerge, isPlainObject, setPath } from './values.js';

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

import { type AnyPlugin, z } from '@pro-context/kernel';
import { settingsDeclarations } from '@pro-context/plugin-kit';
import { declaredConfigSections } from '@pro-context/runtime';

/** `schema` (an object, possibly with a default) with `shape` added, or undefined when it is not an object. */
function extendObject(schema: z.ZodType, shape: Record<string, z.ZodType>): z.ZodType | undefined {
  if (schema instanceof z.ZodObject) return schema.extend(shape);
  if (schema instanceof z.ZodPrefault || schema instanceof z.ZodDefault || schema instanceof z.ZodOptional) {
    const inner = extendObject(schema.unwrap() as z.ZodType, shape);
    if (!inner) return undefined;
    const wrapped =
      schema instanceof z.ZodOptional
        ? inner.optional()
        : schema instanceof z.ZodPrefault
          ? inner.prefault(schema.def.defaultValue as never)
          : inner.default(schema.def.defaultValue as never);
    return schema.description ? wrapped.describe(schema.description) : wrapped;
  }
  return undefined;
}

/**
 * One zod schema of the whole configuration file: the kernel's sections, each plugin's options at its
 * `configKey` and its `configSections`. Used to generate the JSON Schema editors use to complete and check the file.
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
  for (const { key, schema, optionsOf, description } of declaredConfigSections(plugins)) {
    if (!schema) continue;
    const described = description ? schema.describe(description) : schema;
    place(key, optionsOf ? described.optional() : described);
  }
  // as `validateConfig` judges a key no section claims: an error (so the editor flags it too), except inside a
  // section a plugin reserves (a warning there: `sources.internalDocs` of a third-party plugin)
  const reserved = new Set(plugins.flatMap((p) => p.reservedSections ?? []));
  const toSchema = (node: Node, path: string): z.ZodType => {
    if (node.schema && node.children.size === 0) return node.schema;
    const shape: Record<string, z.ZodType> = {};
    for (const [key, child] of node.children) shape[key] = toSchema(child, path ? `${path}.${key}` : key);
    if (node.schema) {
      const extended = extendObject(node.schema, shape);
      if (extended) return extended;
    }
    return (reserved.has(path) ? z.object(shape) : z.strictObject(shape)).optional();
  };
  const shape: Record<string, z.ZodType> = {};
  for (const [key, child] of root.children) shape[key] = toSchema(child, key);
  // a top-level section a plugin reserves but none installed declares (`auth`): a warning, not an error
  for (const key of reserved) {
    if (!key.includes('.') && !(key in shape))
      shape[key] = z
        .unknown()
        .optional()
        .describe('Read by a plugin that is not installed: set, it is a warning (no plugin reads it), not an error.');
  }
  return z.strictObject(shape);
}

/** JSON Schema (draft 2020-12) of the configuration file, for `# yaml-language-server: $schema=…`. */
export function configJsonSchema(plugins: readonly AnyPlugin[]): Record<string, unknown> {
  const schema = z.toJSONSchema(buildConfigSchema(plugins), { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  describeLibrarySettings(schema, plugins);
  return {
    ...schema,
    $id: 'https://pro-context.dev/schemas/pro-context.config.schema.json',
    title: 'pro-context configuration (pro-context.config.yaml)',
  };
}

type JsonObject = Record<string, unknown>;
const objectAt = (node: unknown, ...path: string[]): JsonObject | undefined => {
  let at = node;
  for (const key of path) at = at && typeof at === 'object' ? (at as JsonObject)[key] : undefined;
  return at && typeof at === 'object' ? (at as JsonObject) : undefined;
};

/**
 * Gives `libraries[].sources` the keys of the bags installed source plugins declare (`sources.llmsTxt`,
 * `sources.github`), each with its plugin's schema; other keys stay free-form (a third-party source's bag).
 */
function describeLibrarySettings(schema: JsonObject, plugins: readonly AnyPlugin[]): void {
  const declared = settingsDeclarations(plugins);
  const library = objectAt(schema, 'properties', 'libraries', 'items', 'properties');
  const sources = library ? objectAt(library, 'sources') : undefined;
  if (!library || !sources || declared.length === 0) return;
  const properties: JsonObject = {};
  for (const { key, schema: bag } of declared) {
    const json = z.toJSONSchema(bag, { io: 'input', unrepresentable: 'any' }) as JsonObject;
    delete json.$schema;
    properties[key] = json;
  }
  library.sources = {
    ...(sources.description ? { description: sources.description } : {}),
    type: 'object',
    properties,
    additionalProperties: { type: 'object' },
  };
}

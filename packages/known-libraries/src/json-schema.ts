import { z } from 'zod';
import { registryFileSchema } from './schema.js';

/** Where the JSON Schema is published in this package (`libraries.schema.json` beside package.json). */
export const librariesSchemaFile = 'libraries.schema.json';

/**
 * The JSON Schema (draft 2020-12) of `data/libraries.json`, generated from the zod schema. The committed
 * `libraries.schema.json` must equal it: `pnpm --filter @pro-context/known-libraries schema` rewrites the file and
 * a test fails when they drift apart.
 */
export function librariesJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(registryFileSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return {
    ...schema,
    $id: 'https://pro-context.dev/schemas/known-libraries.schema.json',
    title: 'pro-context known-libraries registry (data/libraries.json)',
  };
}

/** The file text of {@link librariesJsonSchema}: two-space JSON and a final newline. */
export function librariesJsonSchemaText(): string {
  return `${JSON.stringify(librariesJsonSchema(), null, 2)}\n`;
}

/**
 * @pro-context/known-libraries: the curated registry of well-known libraries, its schema, lookups and the
 * library provider plugin that serves it.
 *
 * Every export here is public API; named exports only.
 */
import { readFileSync } from 'node:fs';
import { librariesDataUrl } from './plugin.js';
import { KnownLibraryRegistry } from './registry.js';
import { type KnownLibrary, type RegistryFile, registryFileSchema } from './schema.js';

export { type DescriptorFields, toDescriptorFields } from './descriptor.js';
export { baseId, lookupKey, normalizePypiName, registryId, toLanguage } from './ids.js';
export { librariesJsonSchema, librariesJsonSchemaText, librariesSchemaFile } from './json-schema.js';
export {
  createKnownLibrariesPlugin,
  type KnownLibrariesOptions,
  type KnownLibrariesOptionsInput,
  KnownLibrariesProvider,
  knownLibrariesOptionsSchema,
  knownLibrariesPlugin,
  librariesDataUrl,
  loadKnownLibraries,
} from './plugin.js';
export { KnownLibraryRegistry, type RegistryProblem } from './registry.js';
export type {
  Category,
  KnownLibrary,
  KnownLibraryInput,
  Language,
  LlmsFile,
  RegistryFile,
  VersionedDocs,
  VersionFormat,
} from './schema.js';
export {
  categories,
  categorySchema,
  idPattern,
  knownLibrarySchema,
  languageSchema,
  languages,
  llmsFileSchema,
  packageNamePattern,
  registryFileSchema,
  registryOf,
  repositoryPattern,
  versionedDocsSchema,
  versionFormatSchema,
  versionFormats,
} from './schema.js';
export { formatVersion, versionedDocsUrlFor } from './versions.js';

/** Reads and validates a registry file (throws a `ZodError` naming the bad entry and field). */
export function parseRegistryFile(json: unknown): RegistryFile {
  return registryFileSchema.parse(json);
}

/** The shipped registry, validated (read once, on import). */
export const knownLibraries: readonly KnownLibrary[] = Object.freeze(
  parseRegistryFile(JSON.parse(readFileSync(librariesDataUrl, 'utf8'))).libraries,
);

/** Lookups over {@link knownLibraries}. */
export const knownLibraryRegistry = new KnownLibraryRegistry(knownLibraries);

/** The entry with this id (`fastapi`, `openai-js`, `tanstack-react-query`). */
export function getKnownLibrary(id: string): KnownLibrary | undefined {
  return knownLibraryRegistry.get(id);
}

/**
 * The entry `name` designates (an id, a package name or an alias, compared case-insensitively; PyPI names
 * PEP 503-normalized) in `language`, or in any language, Python first, when none is given.
 */
export function findKnownLibrary(name: string, language?: KnownLibrary['language']): KnownLibrary | undefined {
  return knownLibraryRegistry.find(name, language);
}

/** The entry publishing `packageName` on PyPI (`python`) or npm (`javascript`). */
export function findKnownLibraryByPackage(
  packageName: string,
  language: KnownLibrary['language'],
): KnownLibrary | undefined {
  return knownLibraryRegistry.findByPackage(packageName, language);
}

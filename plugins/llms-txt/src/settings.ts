import { type LibraryDescriptor, type LibrarySettingsDeclaration, z } from '@pro-context/kernel';

/**
 * llms-txt's settings of one library, in its `sources.llmsTxt` bag:
 * `libraries: [{ id: zod, name: Zod, docsUrl: …, sources: { llmsTxt: { versionedDocsUrl: … } } }]`.
 */
export const llmsTxtLibrarySettingsSchema = z.strictObject({
  llmsTxtUrl: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe('Explicit llms.txt URL, when it is not at {docsUrl}/llms.txt ({version} allowed).'),
  llmsFullTxtUrl: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe('Explicit llms-full.txt URL, when it is not beside the llms.txt ({version} allowed).'),
  versionedDocsUrl: z
    .string()
    .includes('{version}')
    .optional()
    .describe('Docs URL with a {version} placeholder, for version-specific documentation.'),
  versionFormat: z
    .enum(['exact', 'major.minor', 'major', 'majorminor'])
    .optional()
    .describe(
      'How the site writes a version in {version}: exact (2.10.6, the default), major.minor (2.10), major (2) or majorminor (210, as docs.sqlalchemy.org/en/20/).',
    ),
});

/** How a docs site writes a version in its URLs (`sources.llmsTxt.versionFormat`). */
export type VersionFormat = NonNullable<z.output<typeof llmsTxtLibrarySettingsSchema>['versionFormat']>;

/** A library's llms-txt settings. */
export type LlmsTxtLibrarySettings = z.output<typeof llmsTxtLibrarySettingsSchema>;

/** The keys llms-txt read at the top level of a library before the bag existed. */
const legacyKeys = ['llmsTxtUrl', 'llmsFullTxtUrl', 'versionedDocsUrl'] as const;

/** What the adapter declares: its bag key, schema, and the deprecated top-level keys the engine moves into it. */
export const llmsTxtLibrarySettings: LibrarySettingsDeclaration = {
  key: 'llmsTxt',
  schema: llmsTxtLibrarySettingsSchema,
  legacyKeys,
};

/**
 * A library's llms-txt settings: its `sources.llmsTxt` bag (validated by the engine when the library became
 * known), each missing key read from the deprecated top-level key of the same name.
 */
export function llmsTxtSettingsOf(library: LibraryDescriptor): LlmsTxtLibrarySettings {
  const bag = (library.sources?.llmsTxt ?? {}) as LlmsTxtLibrarySettings;
  const out: LlmsTxtLibrarySettings = {};
  for (const key of legacyKeys) {
    const value = bag[key] ?? library[key];
    if (value !== undefined) out[key] = value;
  }
  if (bag.versionFormat) out.versionFormat = bag.versionFormat;
  return out;
}

/** The setting's name as a user writes it (`sources.llmsTxt.llmsTxtUrl`), for suggestions. */
export const settingName = (key: keyof LlmsTxtLibrarySettings) => `sources.llmsTxt.${key}`;

import { type LibraryDescriptor, type LibrarySettingsDeclaration, z } from '@pro-context/kernel';

/**
 * github's settings of one library, in its `sources.github` bag:
 * `libraries: [{ id: httpx, name: HTTPX, sources: { github: { repo: encode/httpx, docsPath: docs } } }]`.
 */
export const githubLibrarySettingsSchema = z.strictObject({
  repo: z
    .string()
    .min(3)
    .optional()
    .describe('Repository holding the docs, owner/repo or a GitHub URL (default: the library’s repository).'),
  docsPath: z
    .string()
    .optional()
    .describe(
      'Folder of the docs inside the repository (default: the library’s docsPath, else the first of docs, doc, documentation that holds markdown; "" or "." for the README only).',
    ),
  ref: z
    .string()
    .min(1)
    .optional()
    .describe('Branch or tag read for the latest version (default: the repository’s default branch).'),
  tagFormat: z
    .string()
    .includes('{version}')
    .optional()
    .describe(
      'How the repository names the tag of a version, with {version} (default: tried in order v{version}, {version}, {name}@{version}, {name}-v{version}, {name}-{version}).',
    ),
});

/** A library's github settings. */
export type GithubLibrarySettings = z.output<typeof githubLibrarySettingsSchema>;

/** What the adapter declares: its bag key and schema. */
export const githubLibrarySettings: LibrarySettingsDeclaration = {
  key: 'github',
  schema: githubLibrarySettingsSchema,
};

/**
 * A library's github settings: its `sources.github` bag, `repo` defaulting to the library's `repository` and
 * `docsPath` to the library's `docsPath` (the curated registry and `libraries:` entries set both).
 */
export function githubSettingsOf(library: LibraryDescriptor): GithubLibrarySettings {
  const bag = (library.sources?.github ?? {}) as GithubLibrarySettings;
  const repo = bag.repo ?? library.repository;
  const docsPath = bag.docsPath ?? library.docsPath;
  return {
    ...bag,
    ...(repo ? { repo } : {}),
    ...(docsPath !== undefined ? { docsPath } : {}),
  };
}

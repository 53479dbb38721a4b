import type { KnownLibrary } from './schema.js';

/**
 * The fields of the kernel's `LibraryDescriptor` (packages/kernel/src/contracts/library.ts) an entry fills.
 * Declared here rather than imported, so this package depends on nothing but zod; the engine adapts it when
 * it wires the registry in as a library provider (the llms.txt fields are moving into a per-source settings
 * bag).
 */
export interface DescriptorFields {
  id: string;
  name: string;
  description: string;
  language: string;
  packageName: string;
  aliases: string[];
  categories: string[];
  docsUrl: string;
  llmsTxtUrl?: string;
  llmsFullTxtUrl?: string;
  versionedDocsUrl?: string;
  repository?: string;
  docsPath?: string;
}

/**
 * An entry as the descriptor fields of today's kernel, a pure mapping:
 *
 * - `packageName` is the primary package (`packages[0]`); the other package names join the `aliases`.
 * - `llmsTxtUrl` / `llmsFullTxtUrl` are the URLs of `llmsTxt` / `llmsFullTxt`, checked or not (an unchecked
 *   URL that fails costs one request before the adapter falls back to `{docsUrl}/llms.txt`).
 * - `versionedDocsUrl` is `versionedDocs.url` as written. Note: the llms-txt adapter fills `{version}` with the
 *   resolved release as is, while the entry says how the site writes it (`versionedDocs.version`, e.g.
 *   `major.minor` for docs.pydantic.dev/2.10/); use `versionedDocsUrlFor` to fill it in, or drop the
 *   field where the version format is not `exact` until the engine formats versions.
 * - `repository` is the repository holding the docs (`docsRepository`, else `repository`), since the GitHub
 *   adapter reads `docsPath` inside it.
 */
export function toDescriptorFields(library: KnownLibrary): DescriptorFields {
  const [packageName, ...otherPackages] = library.packages as [string, ...string[]];
  const aliases = [...new Set([...library.aliases, ...otherPackages])].filter((a) => a !== library.id);
  const repository = library.docsRepository ?? library.repository;
  return {
    id: library.id,
    name: library.name,
    description: library.description,
    language: library.language,
    packageName,
    aliases,
    categories: [...library.categories],
    docsUrl: library.docsUrl,
    ...(library.llmsTxt ? { llmsTxtUrl: library.llmsTxt.url } : {}),
    ...(library.llmsFullTxt ? { llmsFullTxtUrl: library.llmsFullTxt.url } : {}),
    ...(library.versionedDocs ? { versionedDocsUrl: library.versionedDocs.url } : {}),
    ...(repository ? { repository } : {}),
    ...(library.docsPath ? { docsPath: library.docsPath } : {}),
  };
}

import type { LibraryDescriptor } from '@pro-context/kernel';
import type { KnownLibrary } from './schema.js';
import { registryOf } from './schema.js';

/** The kernel's `LibraryDescriptor`, as an entry fills it. */
export type DescriptorFields = LibraryDescriptor & {
  description: string;
  language: string;
  packageName: string;
  aliases: string[];
  categories: string[];
  docsUrl: string;
  packages: Readonly<Record<string, string>>;
};

/**
 * Whether the site's llms.txt lives inside its versioned docs tree (`docs.pydantic.dev/latest/llms.txt` for
 * `docs.pydantic.dev/{version}/`): only then does each version's tree have an llms.txt the llms-txt adapter can
 * read. Other versioned trees (`v{version}.vite.dev`, `docs.djangoproject.com/en/{version}/`) are HTML sites
 * without one: handing them to the adapter would make even the latest release's docs fail where the
 * unversioned llms.txt or `{docsUrl}/llms.txt` works.
 */
function llmsTxtIsVersioned(library: KnownLibrary): boolean {
  if (!library.versionedDocs || !library.llmsTxt) return false;
  const latest = `${library.versionedDocs.url
    .split('{version}')
    .join('latest')
    .replace(/(?<!\/)\/+$/, '')}/llms.txt`;
  return library.llmsTxt.url === latest;
}

/**
 * An entry as a kernel `LibraryDescriptor`, a pure mapping:
 *
 * - `packages` is `{ pypi: packages[0] }` for Python, `{ npm: packages[0] }` for JavaScript (which registry
 *   resolves its versions); `packageName` is that primary package; the other package names join the `aliases`.
 * - `sources.llmsTxt` is the llms-txt adapter's bag: `llmsTxtUrl` / `llmsFullTxtUrl` (checked or not: an
 *   unchecked URL that fails costs one request before the adapter falls back to `{docsUrl}/llms.txt`), and
 *   `versionedDocsUrl` with its `versionFormat` (how the site writes a version: `major.minor` for
 *   docs.pydantic.dev/2.10/), which the adapter applies when it fills `{version}`: only for sites whose
 *   llms.txt lives inside the versioned tree (pydantic today); other entries keep `versionedDocs` as data.
 * - `repository` is the repository holding the docs (`docsRepository`, else `repository`), since the GitHub
 *   adapter reads `docsPath` inside it; `sources.github.docsPath` is the GitHub adapter's bag with that folder
 *   (the top-level `docsPath` stays for other readers).
 */
export function toDescriptorFields(library: KnownLibrary): DescriptorFields {
  const [packageName, ...otherPackages] = library.packages as [string, ...string[]];
  const aliases = [...new Set([...library.aliases, ...otherPackages])].filter((a) => a !== library.id);
  const repository = library.docsRepository ?? library.repository;
  const llmsTxt: Record<string, string> = {
    ...(library.llmsTxt ? { llmsTxtUrl: library.llmsTxt.url } : {}),
    ...(library.llmsFullTxt ? { llmsFullTxtUrl: library.llmsFullTxt.url } : {}),
    ...(library.versionedDocs && llmsTxtIsVersioned(library)
      ? { versionedDocsUrl: library.versionedDocs.url, versionFormat: library.versionedDocs.version }
      : {}),
  };
  return {
    id: library.id,
    name: library.name,
    description: library.description,
    language: library.language,
    packageName,
    packages: { [registryOf[library.language]]: packageName },
    aliases,
    categories: [...library.categories],
    docsUrl: library.docsUrl,
    ...(Object.keys(llmsTxt).length > 0 || library.docsPath
      ? {
          sources: {
            ...(Object.keys(llmsTxt).length > 0 ? { llmsTxt } : {}),
            ...(library.docsPath ? { github: { docsPath: library.docsPath } } : {}),
          },
        }
      : {}),
    ...(repository ? { repository } : {}),
    ...(library.docsPath ? { docsPath: library.docsPath } : {}),
  };
}

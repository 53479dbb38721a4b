import type { LibraryDescriptor } from '@pro-context/kernel';
import { cutQueryAndHash, replaceLastSegment, trimTrailingSlashes } from './scan.js';
import { llmsTxtSettingsOf, type VersionFormat } from './settings.js';

const VERSION = '{version}';

function hasTemplate(url: string | undefined): url is string {
  return url?.includes(VERSION) ?? false;
}

/**
 * A release written the way a docs site names it (`sources.llmsTxt.versionFormat`): `exact` keeps it,
 * `major.minor` → `2.10`, `major` → `2`, `majorminor` → `20`. Missing parts count as `0`; a leading `v` and
 * anything after the numeric core (`-beta.1`, `rc1`, `.post1`) are dropped for every format but `exact`;
 * `latest` (the unversioned docs) is kept as it is.
 */
export function formatVersion(version: string, format: VersionFormat = 'exact'): string {
  if (format === 'exact' || version === 'latest') return version;
  const core = /^v?(\d+)(?:\.(\d+))?/.exec(version.trim());
  if (!core) return version;
  const major = core[1] ?? '0';
  const minor = core[2] ?? '0';
  if (format === 'major') return major;
  return format === 'major.minor' ? `${major}.${minor}` : `${major}${minor}`;
}

function substitute(template: string, version: string, format?: VersionFormat): string {
  return template.split(VERSION).join(encodeURIComponent(formatVersion(version, format)));
}

/** `base` + `/file`, unless `base` already names a file of that kind. */
function joinFile(base: string, file: string): string {
  const clean = cutQueryAndHash(base);
  if (clean.endsWith(`/${file}`)) return clean;
  return `${trimTrailingSlashes(clean)}/${file}`;
}

/** The concrete version to put into `{version}` templates, or `undefined` for the unversioned docs. */
function concreteVersion(version: string): string | undefined {
  return version && version !== 'latest' ? version : undefined;
}

/**
 * Where a library's llms.txt lives for `version`: `versionedDocsUrl` (or a templated `llmsTxtUrl`) with
 * `{version}` substituted when a concrete version is asked for; else `llmsTxtUrl`, else
 * `{docsUrl}/llms.txt`. `undefined` when the library names no documentation site.
 */
export function llmsTxtUrlOf(library: LibraryDescriptor, version: string): string | undefined {
  const v = concreteVersion(version);
  const { llmsTxtUrl, versionedDocsUrl, versionFormat } = llmsTxtSettingsOf(library);
  if (v && hasTemplate(llmsTxtUrl)) return substitute(llmsTxtUrl, v, versionFormat);
  if (v && hasTemplate(versionedDocsUrl)) return joinFile(substitute(versionedDocsUrl, v, versionFormat), 'llms.txt');
  if (llmsTxtUrl) return substitute(llmsTxtUrl, 'latest');
  if (library.docsUrl) return joinFile(library.docsUrl, 'llms.txt');
  if (versionedDocsUrl) return joinFile(substitute(versionedDocsUrl, 'latest'), 'llms.txt');
  return undefined;
}

/** Whether the library's llms.txt (or llms-full.txt) URL names a version: then every version has its own docs. */
export function hasVersionedDocs(library: LibraryDescriptor): boolean {
  const { llmsTxtUrl, llmsFullTxtUrl, versionedDocsUrl } = llmsTxtSettingsOf(library);
  return [versionedDocsUrl, llmsTxtUrl, llmsFullTxtUrl].some(hasTemplate);
}

/**
 * Where a library's llms-full.txt lives: `llmsFullTxtUrl` (templated like {@link llmsTxtUrlOf}), else next
 * to the llms.txt actually read (`…/llms.txt` → `…/llms-full.txt`).
 */
export function llmsFullTxtUrlOf(library: LibraryDescriptor, version: string, llmsTxtUrl: string): string {
  const v = concreteVersion(version);
  const settings = llmsTxtSettingsOf(library);
  const full = settings.llmsFullTxtUrl;
  if (full) {
    if (hasTemplate(full)) return substitute(full, v ?? 'latest', settings.versionFormat);
    // An unversioned explicit llms-full.txt would serve another version than a versioned llms.txt.
    const versioned = v !== undefined && (hasTemplate(settings.llmsTxtUrl) || hasTemplate(settings.versionedDocsUrl));
    if (!versioned) return full;
  }
  const url = new URL(llmsTxtUrl);
  url.hash = '';
  url.search = '';
  url.pathname = /\/llms\.txt$/.test(url.pathname)
    ? url.pathname.replace(/llms\.txt$/, 'llms-full.txt')
    : replaceLastSegment(url.pathname, 'llms-full.txt');
  return url.href;
}

/** File extensions that are already the page itself (no markdown twin to look for). */
const DIRECT =
  /\.(md|mdx|markdown|txt|rst|py|js|mjs|cjs|ts|tsx|jsx|json|ya?ml|toml|ipynb|xml|csv|pdf|png|jpe?g|gif|svg|webp)$/i;

/**
 * URLs to try for a page, in order: its markdown twin first when `preferMarkdownVariant` (`{url}.md`;
 * `{url}index.md` and `{url}index.html.md` for a folder URL), then the URL itself. URLs that already end in
 * `.md`, `.txt` and the like are tried as they are.
 */
export function pageCandidates(pageUrl: string, preferMarkdownVariant: boolean): string[] {
  const url = new URL(pageUrl);
  url.hash = '';
  const direct = url.href;
  if (!preferMarkdownVariant || DIRECT.test(url.pathname)) return [direct];
  const variants: string[] = [];
  const twin = (pathname: string) => {
    const u = new URL(direct);
    u.pathname = pathname;
    variants.push(u.href);
  };
  if (url.pathname.endsWith('/')) {
    twin(`${url.pathname}index.md`);
    twin(`${url.pathname}index.html.md`);
  } else {
    twin(`${url.pathname}.md`);
  }
  return [...variants, direct];
}

/** The URL without its fragment. */
export function withoutHash(url: string): string {
  const at = url.indexOf('#');
  return at === -1 ? url : url.slice(0, at);
}

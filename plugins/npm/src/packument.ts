import { type PackageMetadata, type PackageVersion, z } from '@pro-context/kernel';
import hostedGitInfo from 'hosted-git-info';
import semver from 'semver';

/** A repository as package.json spells it. */
export type NpmRepository = string | { type?: string; url?: string; directory?: string };

/** One version's manifest in a packument (the fields read here). */
export interface NpmVersionManifest {
  name?: string;
  version?: string;
  description?: string;
  homepage?: string;
  repository?: NpmRepository;
  bugs?: string | { url?: string };
  deprecated?: string | boolean;
}

/**
 * A packument (the fields read here): the full document (`application/json`) has `time`, `description`,
 * `homepage`, `repository`; the abbreviated one (`application/vnd.npm.install-v1+json`) has only `name`,
 * `modified`, `dist-tags` and `versions` (with `deprecated`).
 */
export interface NpmPackument {
  name: string;
  'dist-tags'?: Record<string, string>;
  versions?: Record<string, NpmVersionManifest>;
  time?: Record<string, string>;
  description?: string;
  homepage?: string;
  repository?: NpmRepository;
  bugs?: string | { url?: string };
}

/**
 * The shape of a packument that {@link npmMetadata} relies on, checked before it reads one: a registry or proxy
 * answering JSON of another shape (an error object, a portal's API) is a registry that failed, not a package
 * that does not exist. Fields not read are let through.
 */
const npmPackumentShape = z.looseObject({
  name: z.string().min(1),
  'dist-tags': z.record(z.string(), z.unknown()).nullish(),
  versions: z.record(z.string(), z.looseObject({})).nullish(),
  time: z.record(z.string(), z.unknown()).nullish(),
});

/** Why `doc` is not a packument (the first problem, with its path), or `undefined` when it is one. */
export function notAPackument(doc: unknown): string | undefined {
  const checked = npmPackumentShape.safeParse(doc);
  if (checked.success) return undefined;
  const issue = checked.error.issues[0];
  const path = issue?.path.length ? issue.path.join('.') : 'the document';
  return `${path}: ${issue?.message ?? 'unexpected shape'}`;
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() ? value.trim() : undefined;

/** A repository as a browsable URL: `git+https://github.com/o/r.git` and `github:o/r` → `https://github.com/o/r`. */
export function repositoryUrl(repository: NpmRepository | undefined): string | undefined {
  const raw = text(typeof repository === 'string' ? repository : repository?.url);
  if (!raw) return undefined;
  const hosted = hostedGitInfo.fromUrl(raw);
  if (hosted) return hosted.browse();
  const plain = raw.replace(/^git\+/, '').replace(/\.git$/, '');
  return /^https?:\/\//.test(plain) ? plain : undefined;
}

/** Whether a URL is a page of a hosted git repository (a README rather than a documentation site). */
function isRepositoryPage(url: string): boolean {
  return hostedGitInfo.fromUrl(url) !== undefined;
}

/** The dist-tags of a packument that name a version it has. */
export function distTagsOf(doc: NpmPackument): Record<string, string> {
  const versions = doc.versions ?? {};
  return Object.fromEntries(
    Object.entries(doc['dist-tags'] ?? {}).filter(([, v]) => typeof v === 'string' && v in versions),
  );
}

/**
 * Latest stable: `dist-tags.latest` unless it is a pre-release or deprecated; otherwise the newest version
 * that is neither. `undefined` when every version is one or the other.
 */
function latestStableOf(doc: NpmPackument, versions: readonly PackageVersion[]): string | undefined {
  const tagged = distTagsOf(doc).latest;
  const entry = tagged ? versions.find((v) => v.version === tagged) : undefined;
  if (entry && !entry.prerelease && !entry.yanked) return entry.version;
  return versions.find((v) => !v.prerelease && !v.yanked)?.version;
}

/** A packument (full or abbreviated) as {@link PackageMetadata}: versions newest first, deprecated ones `yanked`. */
export function npmMetadata(doc: NpmPackument, ecosystem: string): PackageMetadata {
  const manifests = doc.versions ?? {};
  const versions: PackageVersion[] = Object.keys(manifests)
    .filter((v) => semver.valid(v) !== null)
    .sort(semver.rcompare)
    .map((version) => {
      const published = text(doc.time?.[version]);
      const deprecated = manifests[version]?.deprecated;
      return {
        version,
        ...(published && !Number.isNaN(Date.parse(published))
          ? { publishedAt: new Date(Date.parse(published)).toISOString() }
          : {}),
        prerelease: semver.prerelease(version) !== null,
        ...(deprecated ? { yanked: true } : {}),
      };
    });
  const latestStable = latestStableOf(doc, versions);
  const latest = manifests[distTagsOf(doc).latest ?? latestStable ?? ''] ?? {};
  const summary = text(doc.description) ?? text(latest.description);
  const homepage = text(doc.homepage) ?? text(latest.homepage);
  const repository = repositoryUrl(doc.repository ?? latest.repository);
  const bugs = doc.bugs ?? latest.bugs;
  const bugsUrl = text(typeof bugs === 'string' ? bugs : bugs?.url);
  // npm has no documentation field: a homepage that is not the repository's own page is the docs site.
  const documentationUrl = homepage && !isRepositoryPage(homepage) ? homepage : undefined;
  return {
    name: doc.name,
    ecosystem,
    ...(summary ? { summary } : {}),
    ...(homepage ? { homepage } : {}),
    ...(repository ? { repository } : {}),
    ...(documentationUrl ? { documentationUrl } : {}),
    ...(bugsUrl ? { urls: { bugs: bugsUrl } } : {}),
    ...(latestStable ? { latestStable } : {}),
    versions,
  };
}

/**
 * The version a spec selects, the way npm picks one: a dist-tag (`next`), an exact version (deprecated or
 * not), or a semver range (`^18`, `18.2.x`, `>=2 <3`, also `>=2,<3`) — `dist-tags.latest` when it satisfies
 * the range, else the newest match that is not deprecated, else the newest deprecated match; pre-releases
 * only when the range names one.
 */
export function selectNpmVersion(
  doc: NpmPackument,
  versions: readonly PackageVersion[],
  spec: string,
): string | undefined {
  const wanted = spec.trim();
  const tags = distTagsOf(doc);
  if (Object.hasOwn(tags, wanted)) return tags[wanted];
  const exact = semver.valid(semver.clean(wanted) ?? '');
  if (exact) return versions.find((v) => v.version === exact)?.version;
  const range = semver.validRange(commasToSpaces(wanted));
  if (!range) return undefined;
  const latest = tags.latest ? versions.find((v) => v.version === tags.latest) : undefined;
  if (latest && !latest.yanked && semver.satisfies(latest.version, range)) return latest.version;
  const live = versions.filter((v) => !v.yanked).map((v) => v.version);
  return (
    semver.maxSatisfying(live, range) ??
    semver.maxSatisfying(
      versions.map((v) => v.version),
      range,
    ) ??
    undefined
  );
}

/** Up to `count` stable, not deprecated versions nearest to the version a spec names, newest first. */
export function nearestNpmVersions(
  versions: readonly PackageVersion[],
  spec: string | undefined,
  count = 10,
): string[] {
  const available = versions.filter((v) => !v.yanked && !v.prerelease).map((v) => v.version);
  const pool = available.length > 0 ? available : versions.map((v) => v.version);
  const anchor = spec ? semver.coerce(spec)?.version : undefined;
  if (!anchor || pool.length <= count) return pool.slice(0, count);
  let index = pool.findIndex((v) => semver.lt(v, anchor));
  if (index === -1) index = pool.length;
  const start = Math.min(Math.max(0, index - Math.floor(count / 2)), pool.length - count);
  return pool.slice(start, start + count);
}

/**
 * Each comma with the whitespace around it becomes one space (`>=1, <2` → `>=1 <2`): what
 * the regex `\s*,\s*` (global, replaced by a space) gave, without its quadratic retries over a long run of spaces
 * (issue #25).
 */
export function commasToSpaces(text: string): string {
  const parts = text.split(',');
  const last = parts.length - 1;
  return parts
    .map((part, i) => {
      let p = part;
      if (i > 0) p = p.trimStart();
      if (i < last) p = p.trimEnd();
      return p;
    })
    .join(' ');
}

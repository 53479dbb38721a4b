import { type PackageMetadata, type PackageVersion, z } from '@pro-context/kernel';
import { isPrerelease, latestStableOf, sortNewestFirst } from './versions.js';

/** One file of a release, as the PyPI JSON API lists it (the fields read here). */
export interface PypiReleaseFile {
  packagetype?: string;
  upload_time_iso_8601?: string;
  upload_time?: string;
  yanked?: boolean;
  yanked_reason?: string | null;
}

/** The answer of `GET /pypi/{project}/json` (the fields read here). */
export interface PypiProjectJson {
  info: {
    name: string;
    version?: string;
    summary?: string | null;
    home_page?: string | null;
    docs_url?: string | null;
    project_url?: string | null;
    project_urls?: Record<string, string> | null;
    yanked?: boolean;
  };
  releases?: Record<string, PypiReleaseFile[]>;
  urls?: PypiReleaseFile[];
}

/**
 * The shape of `GET /pypi/{project}/json` that {@link pypiMetadata} relies on, checked before it reads the answer:
 * a mirror or proxy answering JSON of another shape (an error object, a portal's API) is a registry that failed,
 * not a project that does not exist. Fields not read are let through.
 */
const pypiProjectShape = z.looseObject({
  info: z.looseObject({
    name: z.string().min(1),
    project_urls: z.record(z.string(), z.unknown()).nullish(),
  }),
  releases: z.record(z.string(), z.array(z.looseObject({}))).nullish(),
  urls: z.array(z.looseObject({})).nullish(),
});

/** Why `data` is not a PyPI project's JSON (the first problem, with its path), or `undefined` when it is one. */
export function notAPypiProject(data: unknown): string | undefined {
  const checked = pypiProjectShape.safeParse(data);
  if (checked.success) return undefined;
  const issue = checked.error.issues[0];
  const path = issue?.path.length ? issue.path.join('.') : 'the document';
  return `${path}: ${issue?.message ?? 'unexpected shape'}`;
}

const text = (value: string | null | undefined): string | undefined => {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
};

/** A `project_urls` label reduced for matching: `Source Code` → `sourcecode`. */
const labelKey = (label: string) => label.toLowerCase().replace(/[^a-z0-9]/g, '');

const documentationLabels = ['documentation', 'docs', 'doc', 'documentations', 'onlinedocumentation', 'docsite'];
const repositoryLabels = [
  'source',
  'sourcecode',
  'repository',
  'repo',
  'code',
  'github',
  'gitlab',
  'sourcerepository',
  'git',
];
const homepageLabels = ['homepage', 'home', 'website', 'web', 'homepageurl'];
const forges = /^https?:\/\/(www\.)?(github\.com|gitlab\.com|bitbucket\.org|codeberg\.org)\/[^/]+\/[^/#?]+/i;

/** The first URL whose label (in `labels`' order) appears in `urls`. */
function byLabel(urls: Record<string, string>, labels: readonly string[]): string | undefined {
  const keyed = new Map(Object.entries(urls).map(([label, url]) => [labelKey(label), text(url)]));
  for (const label of labels) {
    const url = keyed.get(label);
    if (url) return url;
  }
  return undefined;
}

/** A repository URL trimmed to the repository itself (`https://github.com/o/r/tree/main` → `…/o/r`). */
function repositoryOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  const forge = forges.exec(url);
  return forge ? forge[0].replace(/\.git$/, '') : url;
}

/** The earliest upload time of a release's files (when the release was published). */
function publishedAt(files: readonly PypiReleaseFile[]): string | undefined {
  const times = files
    .map((f) => f.upload_time_iso_8601 ?? (f.upload_time ? `${f.upload_time}Z` : undefined))
    .filter((t): t is string => typeof t === 'string' && !Number.isNaN(Date.parse(t)))
    .sort((a, b) => Date.parse(a) - Date.parse(b));
  return times[0] ? new Date(Date.parse(times[0])).toISOString() : undefined;
}

/** A project's JSON as {@link PackageMetadata}: versions newest first, dates from the files' upload times. */
export function pypiMetadata(data: PypiProjectJson, ecosystem: string): PackageMetadata {
  const info = data.info;
  const releases = data.releases ?? (info.version ? { [info.version]: data.urls ?? [] } : {});
  const versions: PackageVersion[] = sortNewestFirst(
    Object.entries(releases).map(([version, files]) => {
      const date = publishedAt(files);
      // A release is yanked when every one of its files is (PEP 592); a release without files is not.
      const yanked = files.length > 0 && files.every((f) => f.yanked === true);
      return {
        version,
        ...(date ? { publishedAt: date } : {}),
        prerelease: isPrerelease(version),
        ...(yanked ? { yanked: true } : {}),
      };
    }),
  );
  const urls = Object.fromEntries(
    Object.entries(info.project_urls ?? {}).filter((entry): entry is [string, string] => Boolean(text(entry[1]))),
  );
  const homepage = text(info.home_page) ?? byLabel(urls, homepageLabels);
  const repository = repositoryOf(
    byLabel(urls, repositoryLabels) ?? (homepage && forges.test(homepage) ? homepage : undefined),
  );
  const documentationUrl = byLabel(urls, documentationLabels) ?? text(info.docs_url);
  const summary = text(info.summary);
  const latestStable = latestStableOf(versions);
  return {
    name: info.name,
    ecosystem,
    ...(summary ? { summary } : {}),
    ...(homepage ? { homepage } : {}),
    ...(repository ? { repository } : {}),
    ...(documentationUrl ? { documentationUrl } : {}),
    ...(Object.keys(urls).length > 0 ? { urls } : {}),
    ...(latestStable ? { latestStable } : {}),
    versions,
  };
}

import { compareLoosely, type FakeAnswer, type FakeRegistry, fakeDigest, json, startFakeRegistry } from './server.js';

/** One release of a fake PyPI project. */
export interface FakePypiRelease {
  version: string;
  /** ISO date-time the files were uploaded. */
  uploadedAt: string;
  /** Yanked (PEP 592): `true`, or the reason. */
  yanked?: boolean | string;
  /** Which files the release has (default an sdist and a wheel; `[]` for a release without files). */
  files?: ('sdist' | 'wheel')[];
  requiresPython?: string;
}

/** A fake PyPI project. */
export interface FakePypiProject {
  /** The name as the project spells it (`typing_extensions`, `Django`); requests use any PEP 503 spelling. */
  name: string;
  summary?: string;
  homePage?: string;
  docsUrl?: string;
  projectUrls?: Record<string, string>;
  requiresPython?: string;
  license?: string;
  author?: string;
  /** Releases in upload order, oldest first. */
  releases: FakePypiRelease[];
}

/** PEP 503 normalization. */
const normalize = (name: string) => name.toLowerCase().replace(/[-_.]+/g, '-');
const isPrerelease = (version: string) => /(a|b|c|rc|alpha|beta|pre|preview|dev)\d*/i.test(version);

function fileOf(project: FakePypiProject, release: FakePypiRelease, kind: 'sdist' | 'wheel', origin: string) {
  const stem = `${project.name.replace(/[-.]+/g, '_').toLowerCase()}-${release.version}`;
  const filename = kind === 'sdist' ? `${stem}.tar.gz` : `${stem}-py3-none-any.whl`;
  const sha256 = fakeDigest(filename);
  const uploaded = new Date(Date.parse(release.uploadedAt) + (kind === 'wheel' ? 0 : 2000)).toISOString();
  const reason = typeof release.yanked === 'string' ? release.yanked : null;
  return {
    comment_text: '',
    digests: { blake2b_256: fakeDigest(filename, 'blake2b512').slice(0, 64), md5: fakeDigest(filename, 'md5'), sha256 },
    downloads: -1,
    filename,
    has_sig: false,
    md5_digest: fakeDigest(filename, 'md5'),
    packagetype: kind === 'sdist' ? 'sdist' : 'bdist_wheel',
    python_version: kind === 'sdist' ? 'source' : 'py3',
    requires_python: release.requiresPython ?? project.requiresPython ?? null,
    size: 10_000 + (Number.parseInt(sha256.slice(0, 4), 16) % 90_000),
    upload_time: uploaded.slice(0, 19),
    upload_time_iso_8601: uploaded.replace(/Z$/, '000Z'),
    url: `${origin}/packages/${sha256.slice(0, 2)}/${sha256.slice(2, 4)}/${sha256.slice(4)}/${filename}`,
    yanked: Boolean(release.yanked),
    yanked_reason: reason,
  };
}

/** What PyPI calls the project's version: its newest final release that is not yanked. */
function latestOf(project: FakePypiProject): FakePypiRelease | undefined {
  const candidates = project.releases.filter((r) => !r.yanked && !isPrerelease(r.version));
  return [...(candidates.length > 0 ? candidates : project.releases)].sort((a, b) =>
    compareLoosely(b.version, a.version),
  )[0];
}

function infoOf(project: FakePypiProject, release: FakePypiRelease | undefined, origin: string) {
  const version = release?.version ?? '';
  return {
    author: project.author ?? null,
    author_email: null,
    bugtrack_url: null,
    classifiers: ['Programming Language :: Python :: 3'],
    description: `# ${project.name}\n\n${project.summary ?? ''}\n`,
    description_content_type: 'text/markdown',
    docs_url: project.docsUrl ?? null,
    download_url: null,
    downloads: { last_day: -1, last_month: -1, last_week: -1 },
    dynamic: null,
    home_page: project.homePage ?? null,
    keywords: null,
    license: null,
    license_expression: project.license ?? null,
    license_files: null,
    maintainer: null,
    maintainer_email: null,
    name: project.name,
    package_url: `${origin}/project/${project.name}/`,
    platform: null,
    project_url: `${origin}/project/${project.name}/`,
    project_urls: project.projectUrls ?? null,
    provides_extra: null,
    release_url: `${origin}/project/${project.name}/${version}/`,
    requires_dist: null,
    requires_python: release?.requiresPython ?? project.requiresPython ?? null,
    summary: project.summary ?? null,
    version,
    yanked: Boolean(release?.yanked),
    yanked_reason: typeof release?.yanked === 'string' ? release.yanked : null,
  };
}

const filesOf = (project: FakePypiProject, release: FakePypiRelease, origin: string) =>
  (release.files ?? ['sdist', 'wheel']).map((kind) => fileOf(project, release, kind, origin));

const notFound = (): FakeAnswer => json(404, { message: 'Not Found' });

/**
 * Starts a loopback PyPI serving the JSON API for `projects`:
 * `GET /pypi/{project}/json` (`info`, `last_serial`, `releases`, `urls`, `vulnerabilities`) and
 * `GET /pypi/{project}/{version}/json` (`info`, `urls` of that release), `404 {"message": "Not Found"}` for
 * unknown projects and versions, and a `301` to the project's own spelling for another spelling of its name
 * (`/pypi/Typing-Extensions/json` → `/pypi/typing_extensions/json`), as PyPI does. `url` is the index root
 * to configure (`registries.pypi.url`).
 *
 * @example
 * const pypi = await startFakePypi(fakePypiProjects);
 * const resolver = new PypiRegistryResolver({ url: pypi.url, reuseSeconds: 0, enabled: true }, http);
 * expect(pypi.count('/pypi/pydantic/json')).toBe(1);
 */
export async function startFakePypi(projects: readonly FakePypiProject[]): Promise<FakeRegistry> {
  const byName = new Map(projects.map((p) => [normalize(p.name), p]));
  return startFakeRegistry(
    (path, _accept, origin) => {
      const match = /^\/pypi\/([^/?#]+)\/(?:([^/?#]+)\/)?json\/?(?:\?.*)?$/.exec(path);
      if (!match) return notFound();
      const requested = decodeURIComponent(match[1] as string);
      const project = byName.get(normalize(requested));
      if (!project) return notFound();
      const version = match[2] === undefined ? undefined : decodeURIComponent(match[2]);
      if (requested !== project.name) {
        const target = `/pypi/${project.name}/${version === undefined ? '' : `${version}/`}json`;
        return { status: 301, body: '', headers: { location: `${origin}${target}` } };
      }
      const serial = 20_000_000 + project.releases.length;
      if (version !== undefined) {
        const release = project.releases.find((r) => r.version === version);
        if (!release) return notFound();
        return json(200, {
          info: infoOf(project, release, origin),
          last_serial: serial,
          urls: filesOf(project, release, origin),
          vulnerabilities: [],
        });
      }
      const latest = latestOf(project);
      return json(200, {
        info: infoOf(project, latest, origin),
        last_serial: serial,
        releases: Object.fromEntries(project.releases.map((r) => [r.version, filesOf(project, r, origin)])),
        urls: latest ? filesOf(project, latest, origin) : [],
        vulnerabilities: [],
      });
    },
    (origin) => origin,
  );
}

import {
  compareLoosely,
  type FakeAnswer,
  type FakeRegistry,
  fakeDigest,
  fakeIntegrity,
  json,
  startFakeRegistry,
} from './server.js';

/** One published version of a fake npm package. */
export interface FakeNpmVersion {
  version: string;
  /** ISO date-time of the publish (the packument's `time[version]`). */
  publishedAt: string;
  /** `npm deprecate` message. */
  deprecated?: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  engines?: Record<string, string>;
}

/** A fake npm package. */
export interface FakeNpmPackage {
  /** `react`, `@tanstack/react-query`. */
  name: string;
  description?: string;
  homepage?: string;
  /** As package.json spells it: `{ type, url, directory? }` or a shorthand (`github:owner/repo`). */
  repository?: string | { type: string; url: string; directory?: string };
  bugs?: { url: string };
  license?: string;
  keywords?: string[];
  /** Default: `latest` is the newest version without a pre-release tag. */
  distTags?: Record<string, string>;
  /** Versions in publish order, oldest first. */
  versions: FakeNpmVersion[];
  readme?: string;
}

/** The media type of npm's abbreviated ("corgi") metadata. */
export const NPM_ABBREVIATED_MEDIA_TYPE = 'application/vnd.npm.install-v1+json';

const isPrerelease = (version: string) => version.includes('-');

function distTagsOf(pkg: FakeNpmPackage): Record<string, string> {
  if (pkg.distTags) return pkg.distTags;
  const stable = pkg.versions.filter((v) => !isPrerelease(v.version)).map((v) => v.version);
  const latest = stable.sort((a, b) => compareLoosely(b, a))[0] ?? pkg.versions.at(-1)?.version;
  return latest ? { latest } : {};
}

function distOf(pkg: FakeNpmPackage, version: string, origin: string) {
  const base = pkg.name.split('/').pop() as string;
  const tarball = `${origin}/${pkg.name}/-/${base}-${version}.tgz`;
  return {
    integrity: fakeIntegrity(tarball),
    shasum: fakeDigest(tarball, 'sha1'),
    tarball,
    fileCount: 20 + (Number.parseInt(fakeDigest(tarball).slice(0, 2), 16) % 200),
    unpackedSize: 50_000 + (Number.parseInt(fakeDigest(tarball).slice(0, 5), 16) % 500_000),
  };
}

const maintainers = [{ name: 'fixture-maintainer', email: 'maintainer@example.test' }];

function fullPackument(pkg: FakeNpmPackage, origin: string) {
  const times = pkg.versions.map((v) => v.publishedAt).sort();
  return {
    _id: pkg.name,
    _rev: `${pkg.versions.length}-${fakeDigest(pkg.name, 'md5')}`,
    name: pkg.name,
    ...(pkg.description ? { description: pkg.description } : {}),
    'dist-tags': distTagsOf(pkg),
    versions: Object.fromEntries(
      pkg.versions.map((v) => [
        v.version,
        {
          name: pkg.name,
          version: v.version,
          ...(pkg.description ? { description: pkg.description } : {}),
          ...(pkg.keywords ? { keywords: pkg.keywords } : {}),
          ...(pkg.homepage ? { homepage: pkg.homepage } : {}),
          ...(pkg.bugs ? { bugs: pkg.bugs } : {}),
          ...(pkg.license ? { license: pkg.license } : {}),
          ...(pkg.repository ? { repository: pkg.repository } : {}),
          main: 'index.js',
          ...(v.engines ? { engines: v.engines } : {}),
          ...(v.dependencies ? { dependencies: v.dependencies } : {}),
          ...(v.peerDependencies ? { peerDependencies: v.peerDependencies } : {}),
          _id: `${pkg.name}@${v.version}`,
          _nodeVersion: '20.18.1',
          _npmVersion: '10.8.2',
          dist: distOf(pkg, v.version, origin),
          _npmUser: maintainers[0],
          maintainers,
          ...(v.deprecated ? { deprecated: v.deprecated } : {}),
          _hasShrinkwrap: false,
        },
      ]),
    ),
    time: {
      created: times[0],
      modified: times.at(-1),
      ...Object.fromEntries(pkg.versions.map((v) => [v.version, v.publishedAt])),
    },
    maintainers,
    ...(pkg.homepage ? { homepage: pkg.homepage } : {}),
    ...(pkg.keywords ? { keywords: pkg.keywords } : {}),
    ...(pkg.repository ? { repository: pkg.repository } : {}),
    ...(pkg.bugs ? { bugs: pkg.bugs } : {}),
    ...(pkg.license ? { license: pkg.license } : {}),
    readme: pkg.readme ?? `# ${pkg.name}\n\n${pkg.description ?? ''}\n`,
    readmeFilename: 'README.md',
  };
}

/** npm's abbreviated metadata: what `npm install` needs, without `time`, `repository`, `homepage` or readme. */
function abbreviatedPackument(pkg: FakeNpmPackage, origin: string) {
  return {
    name: pkg.name,
    modified: pkg.versions
      .map((v) => v.publishedAt)
      .sort()
      .at(-1),
    'dist-tags': distTagsOf(pkg),
    versions: Object.fromEntries(
      pkg.versions.map((v) => [
        v.version,
        {
          name: pkg.name,
          version: v.version,
          ...(v.dependencies ? { dependencies: v.dependencies } : {}),
          ...(v.peerDependencies ? { peerDependencies: v.peerDependencies } : {}),
          ...(v.engines ? { engines: v.engines } : {}),
          ...(v.deprecated ? { deprecated: v.deprecated } : {}),
          dist: distOf(pkg, v.version, origin),
          _hasShrinkwrap: false,
        },
      ]),
    ),
  };
}

const notFound = (): FakeAnswer => json(404, { error: 'Not found' });

/** The package name a request path names: `/react`, `/@scope%2fname`, `/@scope%2Fname`, `/@scope/name`. */
function nameOf(path: string): { name: string; rest: string } | undefined {
  const match = /^\/((?:@[^/%]+(?:%2f|%2F|\/))?[^/@][^/]*)(\/.*)?$/.exec(path);
  if (!match) return undefined;
  return { name: decodeURIComponent(match[1] as string).replace(/%2f/i, '/'), rest: match[2] ?? '' };
}

function search(packages: readonly FakeNpmPackage[], query: URLSearchParams, origin: string) {
  const words = (query.get('text') ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  const size = Math.min(250, Number(query.get('size') ?? 20) || 20);
  const hits = packages.filter((p) => {
    const haystack = `${p.name} ${p.description ?? ''} ${(p.keywords ?? []).join(' ')}`.toLowerCase();
    return words.length > 0 && words.every((w) => haystack.includes(w));
  });
  return {
    objects: hits.slice(0, size).map((p, index) => {
      const latest = distTagsOf(p).latest as string;
      return {
        package: {
          name: p.name,
          ...(p.name.startsWith('@') ? { scope: p.name.slice(1).split('/')[0] } : { scope: 'unscoped' }),
          version: latest,
          ...(p.description ? { description: p.description } : {}),
          ...(p.keywords ? { keywords: p.keywords } : {}),
          date: p.versions.find((v) => v.version === latest)?.publishedAt,
          links: {
            npm: `${origin}/package/${p.name}`,
            ...(p.homepage ? { homepage: p.homepage } : {}),
          },
          publisher: { username: 'fixture-maintainer', email: 'maintainer@example.test' },
          maintainers: [{ username: 'fixture-maintainer', email: 'maintainer@example.test' }],
        },
        score: { final: 1 - index / 100, detail: { quality: 0.9, popularity: 0.9, maintenance: 0.9 } },
        searchScore: 100 - index,
      };
    }),
    total: hits.length,
    time: new Date(0).toUTCString(),
  };
}

/** Options of {@link startFakeNpm}. */
export interface FakeNpmOptions {
  /** A path the registry lives under, as on Artifactory or Nexus (`/api/npm/npm-remote`). Default: none. */
  basePath?: string;
}

/**
 * Starts a loopback npm registry serving `packages`: `GET {url}{name}` answers the full packument
 * (`application/json`: `dist-tags`, `versions` with `deprecated`, `time`, `repository`, `homepage`, readme),
 * or the abbreviated one when the request accepts `application/vnd.npm.install-v1+json`; scoped names as
 * `@scope%2fname` (or `@scope/name`); `GET {url}{name}/{version|tag}` one version's manifest;
 * `GET {url}-/v1/search?text=` search; `404 {"error":"Not found"}` otherwise. `url` is the registry URL
 * as npm's `registry` setting spells it (with a trailing slash).
 */
export async function startFakeNpm(
  packages: readonly FakeNpmPackage[],
  options: FakeNpmOptions = {},
): Promise<FakeRegistry> {
  const byName = new Map(packages.map((p) => [p.name, p]));
  const base = (options.basePath ?? '').replace(/\/+$/, '');
  return startFakeRegistry(
    (rawPath, accept, origin) => {
      if (!rawPath.startsWith(`${base}/`)) return notFound();
      const url = new URL(rawPath.slice(base.length), origin);
      if (url.pathname === '/-/v1/search') return json(200, search(packages, url.searchParams, origin));
      const named = nameOf(url.pathname);
      const pkg = named ? byName.get(named.name) : undefined;
      if (!named || !pkg) return notFound();
      if (named.rest && named.rest !== '/') {
        const wanted = decodeURIComponent(named.rest.slice(1));
        const version = distTagsOf(pkg)[wanted] ?? wanted;
        const manifest = (fullPackument(pkg, origin).versions as Record<string, unknown>)[version];
        return manifest ? json(200, manifest) : json(404, `version not found: ${wanted}`);
      }
      const abbreviated = (accept ?? '').includes(NPM_ABBREVIATED_MEDIA_TYPE);
      return abbreviated
        ? json(200, abbreviatedPackument(pkg, origin), NPM_ABBREVIATED_MEDIA_TYPE)
        : json(200, fullPackument(pkg, origin));
    },
    (origin) => `${origin}${base}/`,
  );
}

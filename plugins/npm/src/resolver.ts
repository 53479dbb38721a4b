import {
  type FetchContext,
  type HttpClient,
  type HttpResponse,
  inject,
  injectable,
  isProContextError,
  kernelTokens,
  type PackageMetadata,
  type ProContextError,
  type RegistryResolver,
  type RegistrySearchHit,
  type ResolvedVersion,
} from '@pro-context/kernel';
import {
  registryFailure,
  registryStatusError,
  TtlMemo,
  upstreamFailureOf,
  versionNotFoundDetails,
} from '@pro-context/plugin-kit';
import { npmMessages } from './messages.js';
import { type NpmEnvironment, type NpmPluginOptions, npmEnvironmentToken, npmOptionsToken } from './options.js';
import {
  distTagsOf,
  type NpmPackument,
  nearestNpmVersions,
  notAPackument,
  npmMetadata,
  selectNpmVersion,
} from './packument.js';
import { discoverNpmRegistry, type NpmRegistrySettings } from './registry-config.js';

/** The media type of npm's abbreviated metadata, with the fallbacks npm itself sends. */
const ABBREVIATED_ACCEPT = 'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*';
const FULL_ACCEPT = 'application/json';

/** A package's metadata as read, with the dist-tags version resolution needs. */
interface Known {
  metadata: PackageMetadata;
  doc: NpmPackument;
  /** From the full packument (dates, description, links), or only the abbreviated one. */
  full: boolean;
}

/** The registry path of a package name (`react`, `@scope%2fname`), or `undefined` for a name npm cannot have. */
export function npmPackagePath(name: string): string | undefined {
  const match = /^(?:@([^/@\s]+)\/)?([^/@\s]+)$/.exec(name.trim());
  if (!match) return undefined;
  const scope = match[1];
  const base = match[2] as string;
  const urlSafe = (part: string) => encodeURIComponent(part) === part && !/^[._]/.test(part) && part.length <= 214;
  if (!urlSafe(base) || (scope !== undefined && !urlSafe(scope))) return undefined;
  return scope === undefined ? base : `@${scope}%2f${base}`;
}

/**
 * A {@link RegistryResolver} over the npm registry of the user's npm configuration. `lookup` reads the full
 * packument (it alone has publish dates, description, homepage and repository), falling back to the
 * abbreviated one when the full one is over the HTTP client's size cap; `resolveVersion` needs only versions,
 * dist-tags and deprecations, so it reads the abbreviated packument unless a lookup just read the full one.
 */
@injectable()
export class NpmRegistryResolver implements RegistryResolver {
  readonly id = 'npm';
  readonly ecosystem = 'npm';
  /**
   * Answers kept for `reuseSeconds`, so the lookup and version resolution of one `resolve-library` call make one
   * request (bounded; the engine keeps the long-lived, stale-tolerant version cache). `value` may be `null`: known
   * to be missing.
   */
  private readonly reuse: TtlMemo<{ value: Known | null }>;
  private settings?: Promise<NpmRegistrySettings>;

  constructor(
    @inject(npmOptionsToken) private readonly options: NpmPluginOptions,
    @inject(kernelTokens.http) private readonly http: HttpClient,
    @inject(npmEnvironmentToken) private readonly environment: NpmEnvironment,
  ) {
    this.reuse = new TtlMemo({ max: 200, ttlMs: options.reuseSeconds * 1000 });
  }

  /** The registries in use, found once (on first use) from the options and the npm configuration. */
  registries(): Promise<NpmRegistrySettings> {
    this.settings ??= discoverNpmRegistry(this.environment, {
      ...(this.options.url ? { url: this.options.url } : {}),
      npmConfigTimeoutMs: this.options.npmConfigTimeoutMs,
    });
    return this.settings;
  }

  async lookup(name: string, context?: FetchContext): Promise<PackageMetadata | null> {
    return (await this.read(name, true, context))?.metadata ?? null;
  }

  async resolveVersion(name: string, spec?: string, context?: FetchContext): Promise<ResolvedVersion> {
    const known = await this.read(name, false, context);
    if (!known) {
      throw npmMessages.create('NO_PACKAGE', { name }, { details: { registry: this.id, name } });
    }
    const { metadata, doc } = known;
    const wanted = spec?.trim();
    const version =
      !wanted || wanted === 'latest'
        ? // Every version deprecated (a retired package) or only pre-releases: what `npm install` would get.
          (metadata.latestStable ?? distTagsOf(doc).latest ?? metadata.versions[0]?.version)
        : selectNpmVersion(doc, metadata.versions, wanted);
    if (!version) throw this.versionNotFound(metadata, wanted);
    return { version, ...(spec === undefined ? {} : { requested: spec }), metadata };
  }

  /** The registry's search (`/-/v1/search`); an empty list where the registry does not offer it. */
  async search(query: string, context?: FetchContext): Promise<RegistrySearchHit[]> {
    const { registry } = await this.registries();
    const url = new URL('-/v1/search', registry);
    url.searchParams.set('text', query);
    url.searchParams.set('size', '20');
    const data = await this.getJson<{
      objects?: { package?: { name?: string; description?: string; version?: string } }[];
    }>(url.href, FULL_ACCEPT, context).catch((error: unknown) => {
      const status = isProContextError(error) ? Number(error.details?.status) : Number.NaN;
      // A registry without the search endpoint (405, 501…); a failing one (5xx) is reported.
      if (status >= 400 && status < 500) return null;
      throw error;
    });
    return (data?.objects ?? []).flatMap(({ package: hit }) =>
      hit?.name
        ? [
            {
              name: hit.name,
              ...(hit.description ? { summary: hit.description } : {}),
              ...(hit.version ? { version: hit.version } : {}),
            },
          ]
        : [],
    );
  }

  /** A package's packument: reused when fresh enough, the full one when `full`, else whatever is at hand. */
  private async read(name: string, full: boolean, context?: FetchContext): Promise<Known | null> {
    const path = npmPackagePath(name);
    if (!path) return null;
    const reused = this.reuse.get(path)?.value;
    if (reused === null || (reused && (reused.full || !full))) return reused;
    const { registry, scopes } = await this.registries();
    const scope = path.startsWith('@') ? path.slice(0, path.indexOf('%2f')).toLowerCase() : undefined;
    const url = new URL(path, (scope && scopes[scope]) ?? registry).href;
    let doc: NpmPackument | null;
    let isFull = full;
    try {
      doc = await this.getJson<NpmPackument>(url, full ? FULL_ACCEPT : ABBREVIATED_ACCEPT, context);
    } catch (error) {
      // A full packument over the size cap (thousands of versions with readmes): the abbreviated one is smaller.
      if (!(full && upstreamFailureOf(error) === 'too-large')) {
        throw error;
      }
      doc = await this.getJson<NpmPackument>(url, ABBREVIATED_ACCEPT, context);
      isFull = false;
    }
    const why = doc === null ? undefined : notAPackument(doc);
    if (why) {
      const host = new URL(url).host;
      throw npmMessages.create(
        'NOT_A_PACKUMENT',
        { host, url, why },
        { details: { registry: this.id, host, failure: 'invalid-body' } },
      );
    }
    const known = doc ? { metadata: npmMetadata(doc, this.ecosystem), doc, full: isFull || 'time' in doc } : null;
    this.reuse.set(path, { value: known });
    return known;
  }

  private versionNotFound(metadata: PackageMetadata, spec: string | undefined): ProContextError {
    const nearest = nearestNpmVersions(metadata.versions, spec);
    const details = versionNotFoundDetails(this.id, metadata, spec, nearest);
    const versions = nearest.join(', ') || 'none';
    return spec
      ? npmMessages.create('NO_MATCHING_VERSION', { name: metadata.name, spec, versions }, { details })
      : npmMessages.create('NO_VERSION', { name: metadata.name, versions }, { details });
  }

  /** GETs a JSON document: `null` on 404, catalog errors for everything that is not an answer. */
  private async getJson<T>(url: string, accept: string, context?: FetchContext): Promise<T | null> {
    const host = new URL(url).host;
    const subject = { registry: this.id, label: 'The npm registry', host, timeoutMs: this.options.timeoutMs };
    const checkUrl = npmMessages.messages.NOT_JSON.suggestion;
    let response: HttpResponse;
    try {
      response = await this.http.get(url, {
        timeoutMs: this.options.timeoutMs,
        headers: { accept },
        ...(context?.signal ? { signal: context.signal } : {}),
      });
    } catch (error) {
      if (context?.signal?.aborted) throw error;
      // refused by policy, DNS, refused, reset, TLS: REGISTRY_UNREACHABLE; a timeout: REGISTRY_TIMEOUT
      throw registryFailure(error, subject);
    }
    if (response.status === 404 || response.status === 410) return null;
    if (response.status < 200 || response.status >= 300) {
      const auth = response.status === 401 || response.status === 403;
      throw registryStatusError(response.status, response.retryAfter, {
        ...subject,
        url,
        suggestion: auth
          ? 'This registry wants credentials, which pro-context does not send: set registries.npm.url to a registry that answers without them.'
          : checkUrl,
      });
    }
    try {
      return response.json<T>();
    } catch (error) {
      throw npmMessages.create(
        'NOT_JSON',
        { host, url },
        { details: { registry: this.id, host, status: response.status, failure: 'invalid-body' }, cause: error },
      );
    }
  }
}

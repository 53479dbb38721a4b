import {
  type FetchContext,
  type HttpClient,
  type HttpResponse,
  inject,
  injectable,
  kernelTokens,
  type PackageMetadata,
  type ProContextError,
  type RegistryResolver,
  type ResolvedVersion,
} from '@pro-context/kernel';
import { registryFailure, registryStatusError, TtlMemo, versionNotFoundDetails } from '@pro-context/plugin-kit';
import { pypiMessages } from './messages.js';
import { notAPypiProject, type PypiProjectJson, pypiMetadata } from './metadata.js';
import { type PypiPluginOptions, pypiOptionsToken } from './options.js';
import { isPypiName, nearestVersions, normalizePypiName, selectVersion } from './versions.js';

/**
 * A {@link RegistryResolver} over the PyPI JSON API (`{url}/pypi/{name}/json`): PEP 503 names, PEP 440
 * versions and specifiers, yanked releases (PEP 592) never chosen by a range or as latest stable.
 */
@injectable()
export class PypiRegistryResolver implements RegistryResolver {
  readonly id = 'pypi';
  readonly ecosystem = 'pypi';
  private readonly root: string;
  /**
   * Answers kept for `reuseSeconds`, so the lookup and version resolution of one `resolve-library` call make one
   * request (bounded; the engine keeps the long-lived, stale-tolerant version cache). `value` may be `null`: known
   * to be missing.
   */
  private readonly reuse: TtlMemo<{ value: PackageMetadata | null }>;

  constructor(
    @inject(pypiOptionsToken) private readonly options: PypiPluginOptions,
    @inject(kernelTokens.http) private readonly http: HttpClient,
  ) {
    this.root = options.url.replace(/(?<!\/)\/+$/, '');
    this.reuse = new TtlMemo({ max: 200, ttlMs: options.reuseSeconds * 1000 });
  }

  /** The project's metadata, or `null` when the index has no project of that (normalized) name. */
  async lookup(name: string, context?: FetchContext): Promise<PackageMetadata | null> {
    if (!isPypiName(name)) return null;
    const normalized = normalizePypiName(name);
    const reused = this.reuse.get(normalized);
    if (reused) return reused.value;
    const url = `${this.root}/pypi/${encodeURIComponent(normalized)}/json`;
    const data = await this.getJson<unknown>(url, context);
    const why = data === null ? undefined : notAPypiProject(data);
    if (why) {
      const host = new URL(url).host;
      throw pypiMessages.create(
        'NOT_A_PROJECT',
        { host, url, why, index: this.options.url },
        { details: { registry: this.id, host, failure: 'invalid-body' } },
      );
    }
    const metadata = data === null ? null : pypiMetadata(data as PypiProjectJson, this.ecosystem);
    this.reuse.set(normalized, { value: metadata });
    return metadata;
  }

  async resolveVersion(name: string, spec?: string, context?: FetchContext): Promise<ResolvedVersion> {
    const metadata = await this.lookup(name, context);
    if (!metadata) {
      throw pypiMessages.create('NO_PROJECT', { name }, { details: { registry: this.id, name } });
    }
    const wanted = spec?.trim();
    let version: string | undefined;
    if (!wanted || wanted.toLowerCase() === 'latest') {
      // Only pre-releases (or only yanked ones): serve the newest installable one rather than nothing.
      version = metadata.latestStable ?? metadata.versions.find((v) => !v.yanked)?.version;
    } else {
      version = selectVersion(metadata.versions, wanted);
    }
    if (!version) throw this.versionNotFound(metadata, wanted);
    return { version, ...(spec === undefined ? {} : { requested: spec }), metadata };
  }

  private versionNotFound(metadata: PackageMetadata, spec: string | undefined): ProContextError {
    const nearest = nearestVersions(metadata.versions, spec);
    const details = versionNotFoundDetails(this.id, metadata, spec, nearest);
    const versions = nearest.join(', ') || 'none';
    return spec
      ? pypiMessages.create('NO_MATCHING_RELEASE', { name: metadata.name, spec, versions }, { details })
      : pypiMessages.create('NO_RELEASE', { name: metadata.name, versions }, { details });
  }

  /** GETs a JSON document: `null` on 404, catalog errors for everything that is not an answer. */
  private async getJson<T>(url: string, context?: FetchContext): Promise<T | null> {
    const host = new URL(url).host;
    const subject = { registry: this.id, label: 'PyPI', host, timeoutMs: this.options.timeoutMs };
    let response: HttpResponse;
    try {
      response = await this.http.get(url, {
        timeoutMs: this.options.timeoutMs,
        headers: { accept: 'application/json' },
        ...(context?.signal ? { signal: context.signal } : {}),
      });
    } catch (error) {
      if (context?.signal?.aborted) throw error;
      // refused by policy, DNS, refused, reset, TLS: REGISTRY_UNREACHABLE; a timeout: REGISTRY_TIMEOUT
      throw registryFailure(error, subject);
    }
    if (response.status === 404 || response.status === 410) return null;
    if (response.status < 200 || response.status >= 300) {
      throw registryStatusError(response.status, response.retryAfter, {
        ...subject,
        url,
        suggestion: `Check registries.pypi.url (${this.options.url}).`,
      });
    }
    try {
      return response.json<T>();
    } catch (error) {
      throw pypiMessages.create(
        'NOT_JSON',
        { host, url, index: this.options.url },
        { details: { registry: this.id, host, status: response.status, failure: 'invalid-body' }, cause: error },
      );
    }
  }
}

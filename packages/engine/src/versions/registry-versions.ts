import { isProContextError, type PackageMetadata, type RegistryResolver } from '@pro-context/kernel';
import { describeUpstreamFailure, upstreamFailureOf } from '@pro-context/plugin-kit';
import { ns } from '../indexing/keys.js';
import { engineMessages } from '../tools/render-errors.js';
import { matchVersion, type VersionScheme } from './match.js';
import type { VersionSources } from './types.js';

/** A version list as cached: the registry's metadata and when it was read. */
interface CachedVersions {
  metadata: PackageMetadata;
  fetchedAt: number;
}

/** Answers of a registry about the package itself, not failures to ask it. */
const REGISTRY_ANSWERS = new Set(['LIBRARY_NOT_FOUND', 'VERSION_NOT_FOUND', 'INVALID_INPUT']);

/**
 * Whether an error means the registry could not be asked, of any kind: refused by policy (a DNS sinkhole answers
 * public hosts with an address the guard refuses), DNS, refused, reset, TLS, timeout, 5xx, 429, an unreadable
 * answer. Its last list, or the library's own versions, serve instead.
 */
export const unreachable = (error: unknown) => isProContextError(error) && !REGISTRY_ANSWERS.has(error.code);

/** Why a registry could not be asked, in words. */
export function reasonOf(error: unknown): string {
  const failure = describeUpstreamFailure(upstreamFailureOf(error));
  if (failure) return failure;
  if (isProContextError(error) && error.code === 'REGISTRY_TIMEOUT') return 'it did not answer in time';
  return 'it could not be asked';
}

/** How long a registry that could not be reached is not asked again (the curated data and caches answer). */
export const REGISTRY_RETRY_AFTER_MS = 60_000;
/** Registries that could not be reached, with the error and when. */
const unreachableRegistries = new WeakMap<RegistryResolver, { at: number; error: unknown }>();

/**
 * Asks the registry unless it could not be reached within the last {@link REGISTRY_RETRY_AFTER_MS}: then its
 * last error is thrown at once, so a firewall that drops packets costs one registry deadline a minute, not
 * one per call.
 */
async function askRegistry<T>(registry: RegistryResolver, ask: () => Promise<T>, retryAfterMs: number): Promise<T> {
  const down = unreachableRegistries.get(registry);
  if (down && Date.now() - down.at < retryAfterMs) throw down.error;
  try {
    const answer = await ask();
    unreachableRegistries.delete(registry);
    return answer;
  } catch (error) {
    if (unreachable(error)) unreachableRegistries.set(registry, { at: Date.now(), error });
    throw error;
  }
}

/**
 * The version a spec names in a registry's metadata, evaluated here (a cached list): latest stable without
 * a spec, else {@link matchVersion} over the stable releases, then over every release.
 */
async function fromMetadata(
  metadata: PackageMetadata,
  spec: string | undefined,
  scheme: VersionScheme,
  registry: RegistryResolver,
  name: string,
): Promise<string> {
  const stable = metadata.versions.filter((v) => !v.prerelease && !v.yanked).map((v) => v.version);
  if (!spec || spec === 'latest' || spec === 'stable') {
    const latest = metadata.latestStable ?? stable[0];
    if (latest) return latest;
  } else {
    const found =
      (await matchVersion(scheme, spec, stable)) ??
      (await matchVersion(
        scheme,
        spec,
        metadata.versions.map((v) => v.version),
      ));
    if (found) return found;
  }
  throw engineMessages.create(
    'NO_MATCHING_VERSION',
    { name, spec: String(spec), registry: registry.id, versions: stable.slice(0, 10).join(', ') },
    { details: { requested: spec, availableVersions: stable.slice(0, 10) } },
  );
}

/**
 * Asks the registry (the spec as written), caching the version list it returns; a list cached within the
 * TTL answers without asking, and an unreachable registry is answered from the last list (marked stale).
 */
export async function resolveInRegistry(
  registry: RegistryResolver,
  name: string,
  spec: string | undefined,
  scheme: VersionScheme,
  sources: VersionSources,
): Promise<{ version: string; metadata: PackageMetadata; stale: boolean; reason?: string }> {
  const key = `${registry.id}:${name.toLowerCase()}`;
  const cached = await sources.cache
    ?.get<CachedVersions>(ns.versions, key, { allowStale: true })
    .catch(() => undefined);
  const ttl = sources.versionsTtlMs ?? 3_600_000;
  if (cached && Date.now() - cached.value.fetchedAt < ttl) {
    const version = await fromMetadata(cached.value.metadata, spec, scheme, registry, name);
    return { version, ...cached.value, stale: false };
  }
  try {
    const resolved = await askRegistry(
      registry,
      () => registry.resolveVersion(name, spec, sources.context),
      sources.registryRetryAfterMs ?? REGISTRY_RETRY_AFTER_MS,
    );
    const entry: CachedVersions = { metadata: resolved.metadata, fetchedAt: Date.now() };
    // kept without expiry: an expired list is still the fallback when the registry is down
    await sources.cache?.set(ns.versions, key, entry, { ttlMs: 0 }).catch((error: unknown) => {
      sources.logger?.warn('could not cache a version list', { registry: registry.id, name, error });
    });
    return { version: resolved.version, metadata: resolved.metadata, stale: false };
  } catch (error) {
    if (!cached || !unreachable(error) || sources.context?.signal?.aborted) throw error;
    sources.logger?.debug('registry unreachable: serving its last version list', { registry: registry.id, name });
    let version: string;
    try {
      version = await fromMetadata(cached.value.metadata, spec, scheme, registry, name);
    } catch (notFound) {
      throw unrefreshed(notFound, registry.id, reasonOf(error));
    }
    return { version, ...cached.value, stale: true, reason: reasonOf(error) };
  }
}

/**
 * A `VERSION_NOT_FOUND` from a version list that could not be refreshed: it lists the versions known and says
 * the list is not the registry's current one (the version may exist).
 */
export function unrefreshed(error: unknown, registry: string, reason: string): unknown {
  if (!isProContextError(error) || error.code !== 'VERSION_NOT_FOUND') return error;
  const known = (error.details?.availableVersions as string[] | undefined) ?? [];
  const requested = String(error.details?.requested ?? '');
  const values = {
    message: error.message.replace(/\.$/, ''),
    registry,
    reason,
    known: known.length > 0 ? `Known versions: ${known.join(', ')}. ` : '',
    check: requested ? ` to check '${requested}'` : '',
  };
  return engineMessages.create('UNREFRESHED_VERSIONS', values, {
    details: { ...error.details, availableVersions: known, unrefreshed: true, unreachable: registry },
    cause: error,
  });
}

import { isProContextError, kernelErrors, type PackageMetadata, ProContextError } from '@pro-context/kernel';
import { isUnreachableFailure, upstreamFailureOf, upstreamFailureOfStatus } from './upstream-failure.js';

/** Who a registry error is about: `registry` id (`'pypi'`), how to name it (`'PyPI'`) and its host. */
export interface RegistryFailureSubject {
  registry: string;
  label: string;
  host: string;
  /** The request's deadline, ms, stated in a timeout's message. */
  timeoutMs?: number;
  /** Replaces the code's generic suggestion. */
  suggestion?: string;
}

/**
 * A package registry's transport failure (what the HTTP client threw) as the code that names its cause: a timeout
 * is `REGISTRY_TIMEOUT` stating the deadline; refused by policy, DNS, connection refused or reset, TLS are
 * `REGISTRY_UNREACHABLE`; an answer that cannot be read (too large, a redirect loop) is `REGISTRY_ERROR`. The
 * classification stays in `details.failure`. Anything else (an abort) is returned as it is.
 */
export function registryFailure(error: unknown, subject: RegistryFailureSubject): unknown {
  const failure = upstreamFailureOf(error);
  if (!failure || !isProContextError(error)) return error;
  // the HTTP client holding a host back after its 429/503 with Retry-After (nothing was sent): already coded
  // (RATE_LIMITED / SOURCE_UNAVAILABLE) with the seconds left in `retryAfter`, which a REGISTRY_ERROR would drop
  if (error.retryAfter !== undefined && (failure === 'rate-limited' || failure === 'http-5xx')) return error;
  const { registry, label, host } = subject;
  const details = { registry, host, failure, ...(error.details?.status ? { status: error.details.status } : {}) };
  if (failure === 'timeout') {
    const ms = subject.timeoutMs ?? (error.details?.timeoutMs as number | undefined);
    return kernelErrors.create(
      'REGISTRY_TIMEOUT',
      { registry: `${label} (${host})`, deadline: ms ? `within ${Math.round(ms / 100) / 10} s` : 'in time' },
      { details: { ...details, ...(ms ? { timeoutMs: ms } : {}) }, cause: error },
    );
  }
  const reason = error.message.replace(/\.$/, '');
  const options = { ...(subject.suggestion ? { suggestion: subject.suggestion } : {}), details, cause: error };
  if (isUnreachableFailure(failure)) {
    return kernelErrors.create('REGISTRY_UNREACHABLE', { registry: `${label} (${host})`, reason }, options);
  }
  // REGISTRY_ERROR has two shapes (an unreadable answer here, a failing status below): no template
  return new ProContextError('REGISTRY_ERROR', `${label} (${host}) did not answer usefully: ${reason}.`, options);
}

/** A registry's failing response status as a catalog error (`RATE_LIMITED` for a 429, else `REGISTRY_ERROR`). */
export function registryStatusError(
  status: number,
  retryAfter: number | undefined,
  subject: RegistryFailureSubject & { url: string },
): ProContextError {
  const { registry, label, host } = subject;
  const failure = upstreamFailureOfStatus(status) ?? 'http-4xx';
  if (status === 429) {
    return new ProContextError('RATE_LIMITED', `${label} (${host}) is rate limiting requests.`, {
      ...(retryAfter === undefined ? {} : { retryAfter }),
      details: { registry, host, status, failure },
    });
  }
  return new ProContextError('REGISTRY_ERROR', `${label} (${host}) answered HTTP ${status} for ${subject.url}.`, {
    recoverable: status >= 500,
    ...(status >= 500 || !subject.suggestion ? {} : { suggestion: subject.suggestion }),
    details: { registry, host, status, failure },
  });
}

/** The details of a registry's "no version matches" error (`registryFailure`'s companion for a package found). */
export type VersionNotFoundDetails = {
  registry: string;
  name: string;
  /** The version or range asked for, when one was. */
  requested?: string;
  /** The versions nearest to the one asked for (the message lists them too). */
  availableVersions: string[];
  latestStable?: string;
};

/**
 * The details every registry's "no version matches" error carries, built one way for all (npm's
 * `NO_MATCHING_VERSION`, PyPI's `NO_MATCHING_RELEASE`…): the registry, the package's name, the version asked for
 * (when one was), the nearest versions the registry has, and its latest stable version (when it has one).
 */
export function versionNotFoundDetails(
  registry: string,
  metadata: Pick<PackageMetadata, 'name' | 'latestStable'>,
  requested: string | undefined,
  nearest: readonly string[],
): VersionNotFoundDetails {
  return {
    registry,
    name: metadata.name,
    ...(requested ? { requested } : {}),
    availableVersions: [...nearest],
    ...(metadata.latestStable ? { latestStable: metadata.latestStable } : {}),
  };
}

import { isProContextError } from '@pro-context/kernel';

/**
 * Why a request to an upstream (a docs site, a registry, a remote API) failed, as the HTTP client classifies it.
 * Thrown failures carry it in `details.failure` of their catalog error ({@link upstreamFailureOf}); a response
 * that came back with a failing status is classified by {@link upstreamFailureOfStatus}.
 */
export type UpstreamFailure =
  /** The SSRF guard refused the target (a private, loopback or documentation-only address; a DNS sinkhole). */
  | 'refused-by-policy'
  /** The host name does not resolve (`ENOTFOUND`, `EAI_AGAIN`). */
  | 'dns'
  /** Nothing listens there (`ECONNREFUSED`). */
  | 'connection-refused'
  /** The connection was reset or closed mid-exchange. */
  | 'connection-reset'
  /** The network or host is unreachable (`ENETUNREACH`, `EHOSTUNREACH`). */
  | 'network-unreachable'
  /** The TLS handshake or the certificate failed. */
  | 'tls'
  /** The call's deadline passed: connecting, waiting for headers or for the body (`details.phase`). */
  | 'timeout'
  /** More redirects than the cap (a loop). */
  | 'redirect-loop'
  /** The body is over the size cap. */
  | 'too-large'
  /** The body is not what was asked for (malformed JSON, wrong content type, truncated). */
  | 'invalid-body'
  | 'http-4xx'
  | 'http-5xx'
  /** `429 Too Many Requests`. */
  | 'rate-limited'
  /** Any other transport failure. */
  | 'network';

const FAILURES = new Set<string>([
  'refused-by-policy',
  'dns',
  'connection-refused',
  'connection-reset',
  'network-unreachable',
  'tls',
  'timeout',
  'redirect-loop',
  'too-large',
  'invalid-body',
  'http-4xx',
  'http-5xx',
  'rate-limited',
  'network',
]);

/** The classification of a failed request (the HTTP client's errors, or an error caused by one), if any. */
export function upstreamFailureOf(error: unknown): UpstreamFailure | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    if (isProContextError(current)) {
      const failure = current.details?.failure;
      if (typeof failure === 'string' && FAILURES.has(failure)) return failure as UpstreamFailure;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The classification of a response status, or `undefined` for a success (2xx, 3xx). */
export function upstreamFailureOfStatus(status: number): UpstreamFailure | undefined {
  if (status === 429) return 'rate-limited';
  if (status >= 500) return 'http-5xx';
  if (status >= 400) return 'http-4xx';
  return undefined;
}

/** Failures where the upstream was never reached (or never answered): nothing it said is known. */
export function isUnreachableFailure(failure: UpstreamFailure | undefined): boolean {
  return (
    failure === 'refused-by-policy' ||
    failure === 'dns' ||
    failure === 'connection-refused' ||
    failure === 'connection-reset' ||
    failure === 'network-unreachable' ||
    failure === 'tls' ||
    failure === 'network'
  );
}

/** A sentence naming the failure, for messages ("could not be reached: the host name does not resolve"). */
export function describeUpstreamFailure(failure: UpstreamFailure | undefined): string | undefined {
  switch (failure) {
    case 'refused-by-policy':
      return 'the address it resolves to is refused by the network policy';
    case 'dns':
      return 'its host name does not resolve';
    case 'connection-refused':
      return 'the connection was refused';
    case 'connection-reset':
      return 'the connection was reset';
    case 'network-unreachable':
      return 'the network is unreachable';
    case 'tls':
      return 'the TLS connection failed';
    case 'timeout':
      return 'it did not answer in time';
    case 'redirect-loop':
      return 'it redirects in a loop';
    case 'too-large':
      return 'its answer is over the size cap';
    case 'invalid-body':
      return 'its answer could not be read';
    case 'http-4xx':
      return 'it refused the request';
    case 'http-5xx':
      return 'it answered with a server error';
    case 'rate-limited':
      return 'it is rate limiting requests';
    case 'network':
      return 'the request failed';
    default:
      return undefined;
  }
}

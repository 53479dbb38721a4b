import type { ProContextError, ResolvedConfig } from '@pro-context/kernel';
import { embeddingsErrors } from './errors.js';
import type { EmbeddingsOptions } from './options.js';

/** Where a server the guard refuses is, as `EMBEDDINGS_NOT_ALLOWED` says: a private one (allowed by a setting)… */
export const PRIVATE_NETWORK = 'on this machine or a private network';
/** … or one no setting allows. */
export const NEVER_FETCHED = 'on an address pro-context never fetches (link-local, cloud metadata)';
/** … or one that redirected to a URL the HTTP client never fetches (a user name or password in it, another scheme). */
export const REDIRECTED_AWAY =
  'redirecting to a URL pro-context never fetches (one with a user name or password, or not http:// or https://)';
/** How much sooner than the engine's `interactiveTimeoutMs` the plugin gives up, so that its own code is the note's. */
export const ENGINE_GRACE_MS = 250;

/** Whether a URL's host is written as this machine or a private network (the network guard refuses it unless allowed). */
export function isLocalHost(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '::1' ||
    /^127\./.test(host) ||
    /^10\./.test(host) ||
    /^192\.168\./.test(host) ||
    /^172\.(1[6-9]|2\d|3[01])\./.test(host) ||
    host === 'host.docker.internal'
  );
}

/** `baseUrl` with a user name or password: refused before any request (`EMBEDDINGS_URL_CREDENTIALS`). */
export function credentialsRefusal(baseUrl: string): ProContextError | undefined {
  const url = new URL(baseUrl);
  return url.username || url.password
    ? embeddingsErrors.create('EMBEDDINGS_URL_CREDENTIALS', {}, { details: { failure: 'refused-by-policy' } })
    : undefined;
}

/** `EMBEDDINGS_NOT_ALLOWED` for a server the network guard refused: `where` it is. */
export function notAllowed(where: string, cause?: unknown): ProContextError {
  return embeddingsErrors.create(
    'EMBEDDINGS_NOT_ALLOWED',
    { where },
    {
      ...(cause === undefined ? {} : { cause }),
      ...(where === NEVER_FETCHED
        ? {
            suggestion:
              'Give embeddings.baseUrl the address of a server on this machine, a private network or the internet.',
          }
        : where === REDIRECTED_AWAY
          ? {
              suggestion:
                'Set embeddings.baseUrl to the address the embeddings server answers at without a redirect (the log at level debug names the redirect refused).',
            }
          : {}),
      details: { failure: 'refused-by-policy' },
    },
  );
}

/** The engine's `interactiveTimeoutMs` (how long a tool call waits), when the engine's section is there. */
export function interactiveTimeoutOf(config: ResolvedConfig): number | undefined {
  const value = (config.raw.engine as { interactiveTimeoutMs?: unknown } | undefined)?.interactiveTimeoutMs;
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** How long one get-docs call waits for the model: `timeoutMs`, but less than the engine's `interactiveTimeoutMs`. */
export function effectiveTimeoutMs(timeoutMs: number, interactiveTimeoutMs: number | undefined): number {
  if (interactiveTimeoutMs === undefined || timeoutMs + ENGINE_GRACE_MS <= interactiveTimeoutMs) return timeoutMs;
  return Math.max(100, interactiveTimeoutMs - ENGINE_GRACE_MS);
}

/** What a `timeoutMs` past the engine's cap means (undefined when it is not past it). */
export function timeoutCapWarning(timeoutMs: number, interactiveTimeoutMs: number | undefined): string | undefined {
  const effective = effectiveTimeoutMs(timeoutMs, interactiveTimeoutMs);
  if (effective === timeoutMs) return undefined;
  return `embeddings.timeoutMs (${timeoutMs} ms) is past engine.interactiveTimeoutMs (${interactiveTimeoutMs} ms), how long a tool call waits: get-docs waits for the model ${effective} ms at most. Lower embeddings.timeoutMs, or raise engine.interactiveTimeoutMs.`;
}

/** An error as a warning line: `CODE: message. Suggestion` (the note's words, without the fallback around them). */
const asWarning = (error: ProContextError) =>
  `${error.code}: ${error.message}.${error.suggestion ? ` ${error.suggestion}` : ''}`;

/**
 * What the configuration alone shows to be wrong with the plugin's options, each as the server says it (at start,
 * on stderr, and in the note of the first get-docs call): a `baseUrl` with a user name or password, a server on
 * this machine or a private network without `security.allowPrivateNetwork: true` (as written: a name that only
 * resolves to a private address is found at the first call), a `timeoutMs` past the engine's
 * `interactiveTimeoutMs`. `pro-context config check` prints them; empty when the plugin is off.
 */
export function embeddingsConfigurationWarnings(options: EmbeddingsOptions, config: ResolvedConfig): string[] {
  if (!options.enabled || options.baseUrl === undefined) return [];
  const out: string[] = [];
  const credentials = credentialsRefusal(options.baseUrl);
  if (credentials) out.push(asWarning(credentials));
  else if (isLocalHost(new URL(options.baseUrl)) && !config.security.allowPrivateNetwork) {
    out.push(asWarning(notAllowed(PRIVATE_NETWORK)));
  }
  const cap = timeoutCapWarning(options.timeoutMs, interactiveTimeoutOf(config));
  if (cap) out.push(cap);
  return out;
}

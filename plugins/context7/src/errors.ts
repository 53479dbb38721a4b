import { defineErrors, type ProContextError } from '@pro-context/kernel';
import { defineMessages } from '@pro-context/plugin-kit';

/** The message an agent gets when no key is configured (seed 000, exact). */
export const KEY_MISSING_MESSAGE = '[Context7 API key not configured]';

/** The context7 plugin's error codes. Their messages are what the tools answer, as plain text (seed 000). */
export const context7Errors = defineErrors({
  CONTEXT7_KEY_MISSING: {
    recoverable: false,
    message: KEY_MISSING_MESSAGE,
    suggestion: 'Set CONTEXT7_API_KEY in the environment of the pro-context server (a key from context7.com).',
  },
  CONTEXT7_HTTP_ERROR: {
    recoverable: true,
    message: '[Context7 error {status}: {detail}]',
    suggestion: 'Check the library key (context7.search lists them), or try again later.',
  },
  CONTEXT7_TIMEOUT: {
    recoverable: true,
    message: '[Context7 request timed out after {seconds}s]',
    suggestion: 'Try again later, or ask for a narrower topic.',
  },
  CONTEXT7_UNAVAILABLE: {
    recoverable: true,
    message: '[Context7 unreachable: {detail}]',
    suggestion: 'Check the network (and PRO_CONTEXT_CONTEXT7_URL), then try again.',
  },
  CONTEXT7_LIBRARY_NOT_FOUND: {
    recoverable: true,
    message: "[Context7 has no library matching '{name}']",
    suggestion: 'Call context7.search with the library name and use one of the keys it lists.',
  },
});

/** The sentences the plugin answers under the kernel's codes (its message catalog). */
export const context7Messages = defineMessages({
  NO_CACHE: {
    code: 'PLUGIN_DEPENDENCY_MISSING',
    message: "Plugin 'context7' needs a cache store (sqlite-cache).",
    suggestion: 'Install a CacheStore plugin such as @pro-context/plugin-sqlite-cache.',
  },
});

const OWN_CODES = new Set(Object.keys(context7Errors.errors));

/**
 * The text of a Context7 tool's error result: the plugin's own codes as their plain message (the seed's
 * `[Context7 API key not configured]`), anything else (refused arguments) as the usual JSON payload.
 */
export function renderContext7Error(error: ProContextError): string {
  return ownErrorText(error) ?? JSON.stringify(error.toPayload(), null, 2);
}

/** The plain text of one of the plugin's own errors (its message, and when to retry); undefined for others. */
export function ownErrorText(error: ProContextError): string | undefined {
  if (!OWN_CODES.has(error.code)) return undefined;
  return error.retryAfter === undefined ? error.message : `${error.message} Retry after ${error.retryAfter}s.`;
}

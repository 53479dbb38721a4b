/**
 * Parses a `Retry-After` header (delay in seconds, or an HTTP date) into milliseconds from `now`.
 * Returns `undefined` when the header is absent or malformed; a date in the past gives `0`. The one parser of
 * the project: the HTTP client (`@pro-context/http`, which re-exports it) and `postWithRetries` both use it.
 */
export function parseRetryAfterMs(value: string | undefined, now: number = Date.now()): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Only real HTTP dates: Date.parse alone would also accept "1.5" or "tomorrow"-ish strings.
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

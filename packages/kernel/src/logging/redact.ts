/** Field names whose values are never logged (`githubToken`, `apiKey`, `authorization`; not `maxTokens`). */
const SECRET_KEY =
  /(password|passwd|secret|token|api[-_]?key|secret[-_]?key|private[-_]?key|authorization|cookie|credentials?)$/i;

/** Secrets recognisable by their shape, wherever they appear in a string. */
const SECRET_VALUE_PATTERNS: RegExp[] = [
  /\bpc_[A-Za-z0-9_-]{20,}/g, // pro-context API keys
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bsk-[A-Za-z0-9_-]{20,}/g, // OpenAI-style keys
  /\bAIza[0-9A-Za-z_-]{30,}/g, // Google API keys
  /\bctx7sk-[A-Za-z0-9_-]{10,}/g, // Context7 keys
  /(Bearer\s+)[A-Za-z0-9._~+/-]{8,}=*/gi,
  /([?&](?:api[_-]?key|key|token|access_token|auth)=)[^&#\s]+/gi,
];

/** The placeholder written instead of a secret. */
export const REDACTED = '[REDACTED]';

/** Masks secret-looking substrings of a string. */
export function redactString(value: string): string {
  let out = value;
  for (const pattern of SECRET_VALUE_PATTERNS) {
    out = out.replace(pattern, (match, prefix?: string) =>
      typeof prefix === 'string' && match.startsWith(prefix) ? `${prefix}${REDACTED}` : REDACTED,
    );
  }
  return out;
}

/**
 * A deep copy of `value` with secrets masked: values under secret-sounding keys, and secret-shaped
 * substrings anywhere. Cycles and depth are bounded.
 */
export function redact(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === 'string') return redactString(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth > 8) return '[…]';
  if (seen.has(value)) return '[circular]';
  seen.add(value);
  if (value instanceof Error) {
    return {
      name: value.name,
      message: redactString(value.message),
      ...(redact({ ...value }, depth + 1, seen) as object),
    };
  }
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1, seen));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] =
      SECRET_KEY.test(key) && item !== undefined && item !== null && item !== ''
        ? REDACTED
        : redact(item, depth + 1, seen);
  }
  return out;
}

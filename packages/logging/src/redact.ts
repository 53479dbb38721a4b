import { isSecretKey, maskSecretValues, REDACTED, secretsGeneration, setRedaction } from '@pro-context/kernel';

/**
 * Query parameter names whose values are secrets (compared lower-case, `-` read as `_`): `?token=`, `?api_key=`,
 * `?X-Amz-Signature=`… Besides these, any name ending in `_token`, `_key`, `_secret`, `_signature`, `_password`
 * or `_credential` (`refresh_token`, `client_secret`, `x_goog_signature`).
 */
const SECRET_PARAMS = new Set([
  'token',
  'key',
  'apikey',
  'api_key',
  'access_token',
  'accesstoken',
  'auth',
  'auth_token',
  'authorization',
  'sig',
  'signature',
  'password',
  'passwd',
  'pwd',
  'pass',
  'secret',
  'credential',
  'credentials',
  'sessionid',
  'session_id',
  'x_amz_security_token',
  'x_amz_credential',
]);
const SECRET_PARAM_SUFFIX =
  /(?:_token|(?:api|access|secret|private|client|signing|auth)_key|_secret|_signature|_sig|_password|_credential)$/;

/** Whether a query parameter of this name carries a secret. */
export function isSecretParam(name: string): boolean {
  let decoded = name;
  try {
    decoded = decodeURIComponent(name);
  } catch {
    // a malformed escape: judge the name as written
  }
  const normal = decoded.toLowerCase().replace(/-/g, '_');
  return SECRET_PARAMS.has(normal) || SECRET_PARAM_SUFFIX.test(normal);
}

/**
 * Secrets recognisable by their shape, wherever they appear in a string. Every pattern is linear: a bounded
 * prefix, then one character class run (no nested or overlapping quantifiers).
 */
const SECRET_VALUE_PATTERNS: RegExp[] = [
  /\bpc_[A-Za-z0-9_-]{20,}/g, // pro-context API keys
  /\bgh[pousr]_[A-Za-z0-9]{20,}/g, // GitHub tokens
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bsk-[A-Za-z0-9_-]{20,}/g, // OpenAI-style keys
  /\bAIza[0-9A-Za-z_-]{30,}/g, // Google API keys
  /\bctx7sk-[A-Za-z0-9_-]{10,}/g, // Context7 keys
  /(Bearer\s{1,8})[A-Za-z0-9._~+/-]{8,}=*/gi,
];

/**
 * A query parameter: `?` or `&`, a name, `=`, a value. The value stops at the next parameter and at characters
 * that end a URL in text (space, quotes, brackets, `<>`, backtick), so `[page](https://x/?token=abc)` keeps its
 * `)`. Linear: the name is at most 100 characters and the value's class excludes the separators, so no two
 * attempts scan the same run.
 */
const QUERY_PARAM = /([?&])([A-Za-z0-9_.%~-]{1,100})=([^?&#\s"'<>()[\]{}`\\|^]*)/g;

/**
 * The user-info of a URL (`https://user:pass@host`, `https://token@host`), after its `//`: anything up to an
 * `@` that comes before the host ends. Linear: the class excludes `/`, so runs from two `//` never overlap.
 * Masked when it holds a password (`:`) or is long enough to be a token (16 characters or more); a bare user
 * name (`ssh://git@github.com`) is not a secret and stays.
 */
const USERINFO = /\/\/([^\s/?#@"'<>()[\]{}`\\]{1,1000})@/g;

function maskUrlParts(value: string): string {
  let out = value;
  if (out.includes('@')) {
    out = out.replace(USERINFO, (match, info: string) =>
      info === REDACTED || (!info.includes(':') && info.length < 16) ? match : `//${REDACTED}@`,
    );
  }
  if (out.includes('=')) {
    out = out.replace(QUERY_PARAM, (match, sep: string, name: string, val: string) => {
      if (val === '' || val === REDACTED || !isSecretParam(name)) return match;
      // a sentence's full stop or comma after the URL is not part of the value
      let end = val.length;
      while (end > 0 && '.,:;!'.includes(val.charAt(end - 1))) end--;
      const tail = val.slice(end);
      return `${sep}${name}=${REDACTED}${tail}`;
    });
  }
  return out;
}

/**
 * Masks the secrets of a text that shows URLs and messages but is not documentation (an error message, a log
 * line, a note): the registered secret values, a URL's user-info, secret-named query parameters, and
 * secret-shaped tokens (`ghp_…`, `Bearer …`, `sk-…`).
 */
export function redactString(value: string): string {
  let out = maskUrlParts(maskSecretValues(value));
  for (const pattern of SECRET_VALUE_PATTERNS) {
    out = out.replace(pattern, (match, prefix?: string) =>
      typeof prefix === 'string' && match.startsWith(prefix) ? `${prefix}${REDACTED}` : REDACTED,
    );
  }
  return out;
}

/**
 * Masks the secrets in an answer that carries documentation: the registered secret values, and the user-info
 * and secret-named query parameters of URLs. Not the shape patterns of {@link redactString}: documentation
 * shows example keys (`sk-…`, `Bearer …`) that an agent needs to read as written.
 */
export function redactAnswer(value: string): string {
  if (value.length < ANSWER_MEMO_MIN_CHARS) return maskUrlParts(maskSecretValues(value));
  if (answerMemo.generation !== secretsGeneration()) {
    answerMemo.masked.clear();
    answerMemo.chars = 0;
    answerMemo.generation = secretsGeneration();
  }
  // a cached answer is served again and again as the same string: V8 keeps a string's hash, so this lookup
  // costs no pass over the text (a linear mask of a 13 KB answer is ~50 µs, a fifth of a cached call on HTTP)
  const known = answerMemo.masked.get(value);
  if (known !== undefined) return known;
  const masked = maskUrlParts(maskSecretValues(value));
  if (answerMemo.chars + value.length > ANSWER_MEMO_MAX_CHARS) {
    answerMemo.masked.clear();
    answerMemo.chars = 0;
  }
  answerMemo.masked.set(value, masked);
  answerMemo.chars += value.length;
  return masked;
}

/** Answers shorter than this are masked each time (cheaper than remembering them). */
const ANSWER_MEMO_MIN_CHARS = 1024;
/** Characters of answers remembered with their masked form (~8 MB of strings at most, both forms shared). */
const ANSWER_MEMO_MAX_CHARS = 4_000_000;
const answerMemo = { masked: new Map<string, string>(), chars: 0, generation: -1 };

/**
 * A URL as it may be shown: without user-info, and with the values of secret-named query parameters masked.
 * Fetch with the real URL; show this one.
 */
export function redactUrl(url: string | URL): string {
  return redactAnswer(typeof url === 'string' ? url : url.href);
}

/**
 * A deep copy of `value` with every string passed through `mask` (objects, arrays; cycles and depth bounded).
 * Keys are kept as they are.
 */
export function redactDeep(value: unknown, mask: (text: string) => string = redactAnswer, depth = 0): unknown {
  if (typeof value === 'string') return mask(value);
  if (value === null || typeof value !== 'object' || depth > 32) return value;
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, mask, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = redactDeep(item, mask, depth + 1);
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
  if (value instanceof URL) return redactString(value.href);
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
      isSecretKey(key) && item !== undefined && item !== null && item !== '' ? REDACTED : redact(item, depth + 1, seen);
  }
  return out;
}

// error payloads (`ProContextError.toPayload()`) mask through the kernel's hook: from now on, with all of the above
setRedaction({ text: redactString, value: (value) => redact(value) });

/**
 * What is a secret and how text leaving the process is masked. The masking itself (URLs, key shapes, log records)
 * is `@pro-context/logging`'s, which installs it with {@link setRedaction} when it is loaded; the kernel keeps the
 * rule for secret names, the registry of secret values, and a fallback that masks those values.
 */

/** Field names whose values are secrets (`githubToken`, `apiKey`, `authorization`; not `maxTokens`). */
const SECRET_KEY =
  /(password|passwd|secret|token|api[-_]?key|secret[-_]?key|private[-_]?key|authorization|cookie|credentials?)$/i;

/** Whether a field or config key of this name holds a secret (logs and error payloads mask its value). */
export function isSecretKey(name: string): boolean {
  return SECRET_KEY.test(name);
}

/** The placeholder written instead of a secret. */
export const REDACTED = '[REDACTED]';

/** Configured secrets shorter than this are not searched for in text (they would mask ordinary words). */
const MIN_SECRET_LENGTH = 8;

/** How text and values leaving the process are masked (logs, error payloads, answers). */
export interface Redaction {
  /** An error message, a log line, a note. */
  text(value: string): string;
  /** A deep copy with values under secret-named keys and secrets in strings masked. */
  value(value: unknown): unknown;
}

interface SecretStore {
  values: Set<string>;
  /** Bumped whenever `values` changes: answers masked before are masked again. */
  generation: number;
  redaction?: Redaction;
}

/**
 * The secret values of this process, shared by every copy of the kernel loaded in it (a bundle and a plugin's own
 * install), so a secret registered once is masked by all.
 */
const store: SecretStore = (() => {
  const key = Symbol.for('pro-context.redact.secrets');
  const global = globalThis as { [key]?: SecretStore };
  global[key] ??= { values: new Set(), generation: 0 };
  return global[key];
})();

/**
 * Registers secret values (API keys, tokens, passwords) to be masked wherever they appear in logs, errors,
 * answers and metrics, also URL-encoded. Values shorter than 8 characters are ignored. The kernel registers
 * every value under a secret-named key of its configuration and of every plugin's options at `start()`.
 */
export function registerSecrets(values: Iterable<unknown>): void {
  for (const value of values) {
    if (typeof value !== 'string') continue;
    const secret = value.trim();
    if (secret.length < MIN_SECRET_LENGTH) continue;
    store.values.add(secret);
    // `Bearer abc…`, `token abc…`: the credential alone may appear elsewhere too
    const scheme = /^[A-Za-z]{1,20}\s{1,8}(\S{8,})$/.exec(secret);
    if (scheme?.[1]) store.values.add(scheme[1]);
    const encoded = encodeURIComponent(secret);
    if (encoded !== secret) store.values.add(encoded);
  }
  store.generation += 1;
}

/** Changes whenever a secret is registered (a memo of masked text is stale then). */
export function secretsGeneration(): number {
  return store.generation;
}

/** `value` with every registered secret value replaced by {@link REDACTED}. */
export function maskSecretValues(value: string): string {
  if (store.values.size === 0) return value;
  let out = value;
  for (const secret of store.values) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  return out;
}

/** Until `@pro-context/logging` is loaded: registered values and secret-named fields only. */
const fallback: Redaction = {
  text: maskSecretValues,
  value: function mask(value: unknown, depth = 0): unknown {
    if (typeof value === 'string') return maskSecretValues(value);
    if (value === null || typeof value !== 'object' || depth > 8) return value;
    if (Array.isArray(value)) return value.map((item) => mask(item, depth + 1));
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, isSecretKey(key) && item ? REDACTED : mask(item, depth + 1)]),
    );
  } as Redaction['value'],
};

/** Installs the process's masking (`@pro-context/logging` does, when loaded). */
export function setRedaction(redaction: Redaction): void {
  store.redaction = redaction;
}

/** The process's masking: the installed one, else a fallback masking registered values and secret-named fields. */
export function redaction(): Redaction {
  return store.redaction ?? fallback;
}

import { redaction } from '../contracts/secrets.js';
import { type ErrorCode, type ErrorDefinition, type ErrorTable, errorCatalog, fillTemplate } from './catalog.js';

/** The shape every error takes on the wire (seed 001 §11.1). */
export interface ErrorPayload {
  code: ErrorCode;
  message: string;
  recoverable: boolean;
  suggestion: string;
  /** Seconds to wait before retrying, for `RATE_LIMITED`, `INDEXING_IN_PROGRESS` and upstream 429s. */
  retryAfter?: number;
  /** Extra structured facts (fuzzy suggestions, available versions, the offending key). */
  details?: Record<string, unknown>;
}

/** Options when raising a catalog error. */
export interface ProContextErrorOptions {
  /** Replaces the catalog's generic suggestion with a specific one. */
  suggestion?: string;
  retryAfter?: number;
  /** Overrides the catalog's `recoverable`. */
  recoverable?: boolean;
  details?: Record<string, unknown>;
  cause?: unknown;
}

const registered = new Map<string, { definition: ErrorDefinition; owner: string }>(
  Object.entries(errorCatalog).map(([code, definition]) => [code, { definition, owner: 'the kernel' }]),
);
const errorDefinition = (code: string) => registered.get(code)?.definition;

/**
 * Registers plugins' error codes for this process. Throws `CONTRACT_CONFLICT`, registering none, when a code
 * is already defined differently (by the kernel or another plugin); an equal definition is fine.
 */
export function registerErrors(tables: readonly { owner: string; errors: ErrorTable }[]): void {
  const seen = new Map(registered);
  const conflicts: string[] = [];
  for (const { owner, errors } of tables) {
    for (const [code, definition] of Object.entries(errors)) {
      const known = seen.get(code)?.definition;
      if (!known) seen.set(code, { definition, owner: `plugin '${owner}'` });
      else if (
        ['recoverable', 'suggestion', 'message'].some((f) => known[f as 'message'] !== definition[f as 'message'])
      ) {
        conflicts.push(
          `Error code '${code}' is defined by ${seen.get(code)?.owner} and, differently, by plugin '${owner}'.`,
        );
      }
    }
  }
  if (conflicts.length > 0) {
    throw new ProContextError('CONTRACT_CONFLICT', conflicts.join('\n'), {
      suggestion: "Rename one plugin's code (prefix it with the plugin's name), or make the two definitions equal.",
    });
  }
  for (const [code, entry] of seen) registered.set(code, entry);
}

/** An error with a catalog code: what went wrong, whether to retry, and what to do next. */
export class ProContextError extends Error {
  readonly code: ErrorCode;
  readonly recoverable: boolean;
  readonly suggestion: string;
  readonly retryAfter?: number;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: ProContextErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ProContextError';
    this.code = code;
    const entry = errorDefinition(code) ?? { recoverable: false, suggestion: '' };
    this.recoverable = options.recoverable ?? entry.recoverable;
    this.retryAfter = options.retryAfter;
    this.suggestion = (options.suggestion ?? entry.suggestion).replace('{retryAfter}', String(options.retryAfter ?? 1));
    this.details = options.details;
  }

  /**
   * The wire form (seed 001 §11.1), with secrets masked by the process's `redaction()` (with `@pro-context/logging`
   * loaded: a URL's user-info, secret query parameters, key shapes; always: the registered secret values and
   * secret-named fields). The error itself keeps the real text.
   */
  toPayload(): ErrorPayload {
    const mask = redaction();
    return {
      code: this.code,
      message: mask.text(this.message),
      recoverable: this.recoverable,
      suggestion: mask.text(this.suggestion),
      ...(this.retryAfter === undefined ? {} : { retryAfter: this.retryAfter }),
      ...(this.details === undefined ? {} : { details: mask.value(this.details) as Record<string, unknown> }),
    };
  }
}

/** Whether `value` is a {@link ProContextError} (also across two installed copies of the kernel). */
export function isProContextError(value: unknown): value is ProContextError {
  return (
    value instanceof ProContextError ||
    (value instanceof Error &&
      value.name === 'ProContextError' &&
      typeof (value as Error & { code?: unknown }).code === 'string' &&
      errorDefinition(String((value as Error & { code?: unknown }).code)) !== undefined)
  );
}

/** The `{placeholder}` names of a message template. */
export type TemplatePlaceholders<S extends string> = S extends `${string}{${infer P}}${infer Rest}`
  ? P | TemplatePlaceholders<Rest>
  : never;

/** Codes of `T` whose definition has a message template. */
export type TemplatedCode<T extends ErrorTable> = {
  [C in keyof T & string]: T[C]['message'] extends string ? C : never;
}[keyof T & string];

/** Raises the codes of one error table from their message templates. */
export interface ErrorFactory<T extends ErrorTable> {
  /** The table, for a plugin definition's `errors`. */
  readonly errors: T;
  /**
   * A {@link ProContextError} whose message is the code's template filled from `values` (every placeholder
   * is required), with the table's `recoverable` and suggestion unless `options` says otherwise.
   */
  create<C extends TemplatedCode<T>>(
    code: C,
    values: Record<TemplatePlaceholders<T[C]['message'] & string>, string | number>,
    options?: ProContextErrorOptions,
  ): ProContextError;
}

/**
 * Typed raising of a table of error codes: `const errors = defineErrors({ CONTEXT7_KEY_MISSING: {
 * recoverable: false, suggestion: 'Set CONTEXT7_API_KEY.', message: 'Context7 needs an API key for {libraryId}.' } })`,
 * then `throw errors.create('CONTEXT7_KEY_MISSING', { libraryId })`. Declare `errors.errors` in the plugin's
 * definition so the kernel registers the codes at start-up.
 */
export function defineErrors<const T extends ErrorTable>(errors: T): ErrorFactory<T> {
  return {
    errors,
    create(code, values, options = {}) {
      const definition = errors[code] as ErrorTable[string];
      return new ProContextError(code, fillTemplate(definition.message ?? code, values), {
        ...options,
        recoverable: options.recoverable ?? definition.recoverable,
        suggestion: options.suggestion ?? fillTemplate(definition.suggestion, values),
      });
    },
  };
}

/** Any thrown value as a catalog error: unknown failures become `INTERNAL_ERROR` (the cause is kept). */
export function toProContextError(value: unknown): ProContextError {
  if (isProContextError(value)) return value;
  return new ProContextError('INTERNAL_ERROR', 'An unexpected error occurred.', { cause: value });
}

/** Raises the kernel's own codes from their templates. */
export const kernelErrors: ErrorFactory<typeof errorCatalog> = defineErrors(errorCatalog);

import { type ErrorCode, errorCatalog } from './catalog.js';

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
    const entry = errorCatalog[code];
    this.recoverable = options.recoverable ?? entry.recoverable;
    this.retryAfter = options.retryAfter;
    this.suggestion = (options.suggestion ?? entry.suggestion).replace('{retryAfter}', String(options.retryAfter ?? 1));
    this.details = options.details;
  }

  /** The wire form (seed 001 §11.1). */
  toPayload(): ErrorPayload {
    return {
      code: this.code,
      message: this.message,
      recoverable: this.recoverable,
      suggestion: this.suggestion,
      ...(this.retryAfter === undefined ? {} : { retryAfter: this.retryAfter }),
      ...(this.details === undefined ? {} : { details: this.details }),
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
      String((value as Error & { code?: unknown }).code) in errorCatalog)
  );
}

/** Any thrown value as a catalog error: unknown failures become `INTERNAL_ERROR` (the cause is kept). */
export function toProContextError(value: unknown): ProContextError {
  if (isProContextError(value)) return value;
  return new ProContextError('INTERNAL_ERROR', 'An unexpected error occurred.', { cause: value });
}

import { type ErrorCode, ProContextError, type ProContextErrorOptions } from '@pro-context/kernel';

/** One message of a plugin's catalog: a code (the kernel's or the plugin's own) and its message template. */
export interface MessageDefinition {
  code: ErrorCode;
  /** `{name}` placeholders are filled by `create`. */
  message: string;
  /** Default: the code's catalog suggestion. `{name}` placeholders are filled too. */
  suggestion?: string;
  /** Default: the code's catalog value. */
  recoverable?: boolean;
}

type Placeholders<S extends string> = S extends `${string}{${infer P}}${infer Rest}` ? P | Placeholders<Rest> : never;

/** Raises the messages of one {@link defineMessages} table. */
export interface MessageCatalog<T extends Record<string, MessageDefinition>> {
  readonly messages: T;
  /** The error of message `name`, its placeholders filled from `values` (every one required). */
  create<K extends keyof T & string>(
    name: K,
    values: Record<Placeholders<T[K]['message']> | Placeholders<T[K]['suggestion'] & string>, string | number>,
    options?: ProContextErrorOptions,
  ): ProContextError;
}

const fill = (template: string, values: Readonly<Record<string, unknown>>) =>
  template.replace(/\{([A-Za-z][A-Za-z0-9]*)\}/g, (whole, name: string) =>
    values[name] === undefined ? whole : String(values[name]),
  );

/**
 * A plugin's catalog of messages for codes it raises, its own or the kernel's (`SOURCE_UNAVAILABLE`,
 * `RATE_LIMITED`…, whose catalog entries carry no message of their own): every sentence the plugin answers
 * with in one table, raised by name instead of `new ProContextError(...)` inline. The codes stay the catalog's
 * (the kernel's, or the plugin's `defineErrors` table): nothing new is registered.
 */
export function defineMessages<const T extends Record<string, MessageDefinition>>(messages: T): MessageCatalog<T> {
  return {
    messages,
    create(name, values, options = {}) {
      const definition = messages[name] as MessageDefinition;
      return new ProContextError(definition.code, fill(definition.message, values), {
        ...options,
        ...(options.recoverable === undefined && definition.recoverable !== undefined
          ? { recoverable: definition.recoverable }
          : {}),
        ...(options.suggestion === undefined && definition.suggestion !== undefined
          ? { suggestion: fill(definition.suggestion, values) }
          : {}),
      });
    },
  };
}

/**
 * `error` with a sentence that would let another service answer (`Set CONTEXT7_API_KEY to answer from
 * Context7.`) added to its message and before its suggestion; code, retry and details kept, `error` the cause.
 */
export function withEnableHint(error: ProContextError, hint: string): ProContextError {
  return new ProContextError(error.code, `${error.message.trimEnd()} ${hint}`, {
    recoverable: error.recoverable,
    suggestion: `${hint} ${error.suggestion}`.trim(),
    ...(error.retryAfter === undefined ? {} : { retryAfter: error.retryAfter }),
    ...(error.details ? { details: error.details } : {}),
    cause: error,
  });
}

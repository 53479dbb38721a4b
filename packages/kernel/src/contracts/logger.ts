/** Log levels, lowest first. */
export const logLevels = ['debug', 'info', 'warn', 'error'] as const;
/** One of {@link logLevels}. */
export type LogLevel = (typeof logLevels)[number];

/** One log record, as every sink receives it (already redacted). */
export interface LogRecord {
  /** ISO date-time. */
  time: string;
  level: LogLevel;
  msg: string;
  /** Name of the span, for span records. */
  span?: string;
  /** Span duration in ms. */
  durationMs?: number;
  success?: boolean;
  [field: string]: unknown;
}

/** Receives every record at or above its threshold (see {@link LogSinkOptions}). */
export type LogSink = (record: LogRecord) => void;

/** Which records a sink receives. */
export interface LogSinkOptions {
  /**
   * Routes to the sink only the records of this session (`sessionId` equal to it) and server-wide records
   * (no `sessionId`), never another session's. Default: every record.
   */
  sessionId?: string;
  /** The sink's own threshold, independent of the logger's level. Default: the logger's level. */
  level?: LogLevel;
}

/** What {@link Logger.addSink} returns: call it to remove the sink. */
export interface LogSinkHandle {
  (): void;
  /** Changes the sink's own threshold (`undefined`: follow the logger's level again). */
  setLevel(level: LogLevel | undefined): void;
}

/** A finished span, as {@link Logger.onSpan} hooks receive it whatever the log level (redacted). */
export interface SpanEvent {
  name: string;
  durationMs: number;
  success: boolean;
  /** The bindings, the span's fields and what the work added (`errorCode` and `error` on failure). */
  fields: Record<string, unknown>;
}

/** A running span: add fields as they become known (`resultLen`, `resolvedKey`…). */
export interface Span {
  set(field: string, value: unknown): void;
  set(fields: Record<string, unknown>): void;
}

/**
 * Structured logger. `@pro-context/logging`'s `createLogger` is the implementation the preset hands to
 * `createKernel` (JSON lines on stderr, every record redacted); whatever the implementation, stdout is never
 * written (stdio MCP owns it).
 */
export interface Logger {
  readonly level: LogLevel;
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** A logger whose records all carry `bindings`. */
  child(bindings: Record<string, unknown>): Logger;
  /**
   * Runs `fn` as a span: one record named `name` with `fields`, whatever `fn` added with `span.set`,
   * `durationMs` and `success` (and the error's code and message on failure). Rethrows `fn`'s error.
   */
  span<T>(name: string, fields: Record<string, unknown>, fn: (span: Span) => Promise<T> | T): Promise<T>;
  /**
   * Runs `fn` so that every record written while it runs, by any logger of this family and in any work it
   * starts (promises, timers), carries `bindings` (`{ sessionId }` routes them to that session's sinks).
   */
  withBindings<T>(bindings: Record<string, unknown>, fn: () => T): T;
  /** Adds a sink (for example an MCP session's log); the returned handle removes it or changes its level. */
  addSink(sink: LogSink, options?: LogSinkOptions): LogSinkHandle;
  /** Calls `hook` with every finished span, whatever the level (metrics); returns a function that removes it. */
  onSpan(hook: (span: SpanEvent) => void): () => void;
  /** Changes the level of the stream (stderr) and of sinks without their own level. */
  setLevel(level: LogLevel): void;
}

/** Builds the kernel's logger from the `logging` config: pass `createLogger` of `@pro-context/logging`. */
export type LoggerFactory = (options: { level: LogLevel; format: 'json' | 'pretty' }) => Logger;

/**
 * The logger of a kernel given neither a logger nor a factory: it writes nothing (no stream, no sinks, no span
 * hooks; spans just run their work), so no unredacted line can leave a kernel that has no redaction.
 */
export function createNullLogger(): Logger {
  const logger: Logger = {
    level: 'error',
    debug: () => undefined,
    info: () => undefined,
    warn: () => undefined,
    error: () => undefined,
    child: () => logger,
    span: async (_name, _fields, fn) => fn({ set: () => undefined }),
    withBindings: (_bindings, fn) => fn(),
    addSink: () => Object.assign(() => undefined, { setLevel: () => undefined }),
    onSpan: () => () => undefined,
    setLevel: () => undefined,
  };
  return logger;
}

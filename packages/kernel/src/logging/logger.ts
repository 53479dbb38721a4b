import { AsyncLocalStorage } from 'node:async_hooks';
import { redact } from './redact.js';

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
  /** Whether the span's work succeeded. */
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

/** Structured logger. Records are JSON lines on stderr by default; stdout is never written. */
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

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  level?: LogLevel;
  /** `json` (default): one JSON object per line. `pretty`: a short human line. */
  format?: 'json' | 'pretty';
  /** Where lines go. Default: `process.stderr`. Never stdout, which stdio MCP owns. */
  stream?: { write(chunk: string): unknown };
  bindings?: Record<string, unknown>;
}

interface SinkEntry {
  sink: LogSink;
  sessionId?: string;
  level?: LogLevel;
}

interface SharedState {
  level: LogLevel;
  /** The lowest threshold of the stream and every sink: below it a call returns at once. */
  floor: number;
  format: 'json' | 'pretty';
  stream: { write(chunk: string): unknown };
  sinks: Set<SinkEntry>;
  spanHooks: Set<(span: SpanEvent) => void>;
  scope: AsyncLocalStorage<Record<string, unknown>>;
}

const rank = (level: LogLevel) => logLevels.indexOf(level);

function updateFloor(shared: SharedState): void {
  shared.floor = Math.min(rank(shared.level), ...[...shared.sinks].map((s) => rank(s.level ?? shared.level)));
}

function prettyLine(record: LogRecord): string {
  const { time, level, msg, span, durationMs, success, ...rest } = record;
  const head = `${time.slice(11, 23)} ${level.toUpperCase().padEnd(5)} ${span ? `${span} ` : ''}${msg}`;
  const timing = durationMs === undefined ? '' : ` ${durationMs}ms${success === false ? ' FAILED' : ''}`;
  const extra = Object.entries(rest)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  return `${head}${timing}${extra ? ` ${extra}` : ''}\n`;
}

class StructuredLogger implements Logger {
  constructor(
    private readonly shared: SharedState,
    private readonly bindings: Record<string, unknown>,
  ) {}

  get level(): LogLevel {
    return this.shared.level;
  }

  setLevel(level: LogLevel): void {
    this.shared.level = level;
    updateFloor(this.shared);
  }

  addSink(sink: LogSink, options: LogSinkOptions = {}): LogSinkHandle {
    const entry: SinkEntry = { sink, ...options };
    const { shared } = this;
    shared.sinks.add(entry);
    updateFloor(shared);
    const remove = () => {
      shared.sinks.delete(entry);
      updateFloor(shared);
    };
    return Object.assign(remove, {
      setLevel(level: LogLevel | undefined) {
        entry.level = level;
        updateFloor(shared);
      },
    });
  }

  onSpan(hook: (span: SpanEvent) => void): () => void {
    this.shared.spanHooks.add(hook);
    return () => this.shared.spanHooks.delete(hook);
  }

  withBindings<T>(bindings: Record<string, unknown>, fn: () => T): T {
    return this.shared.scope.run({ ...this.shared.scope.getStore(), ...bindings }, fn);
  }

  child(bindings: Record<string, unknown>): Logger {
    return new StructuredLogger(this.shared, { ...this.bindings, ...bindings });
  }

  debug(msg: string, fields?: Record<string, unknown>): void {
    this.write('debug', msg, fields);
  }
  info(msg: string, fields?: Record<string, unknown>): void {
    this.write('info', msg, fields);
  }
  warn(msg: string, fields?: Record<string, unknown>): void {
    this.write('warn', msg, fields);
  }
  error(msg: string, fields?: Record<string, unknown>): void {
    this.write('error', msg, fields);
  }

  async span<T>(name: string, fields: Record<string, unknown>, fn: (span: Span) => Promise<T> | T): Promise<T> {
    const started = performance.now();
    const added: Record<string, unknown> = {};
    const span: Span = {
      set(field: string | Record<string, unknown>, value?: unknown) {
        if (typeof field === 'string') added[field] = value;
        else Object.assign(added, field);
      },
    };
    const finish = (success: boolean, error?: unknown) => {
      const durationMs = Math.round((performance.now() - started) * 100) / 100;
      const failure =
        error === undefined
          ? {}
          : {
              errorCode: (error as { code?: unknown }).code,
              error: error instanceof Error ? error.message : String(error),
            };
      this.write(success ? 'info' : 'warn', name, { span: name, ...fields, ...added, durationMs, success, ...failure });
      if (this.shared.spanHooks.size === 0) return;
      const event: SpanEvent = {
        name,
        durationMs,
        success,
        fields: redact({
          ...this.shared.scope.getStore(),
          ...this.bindings,
          ...fields,
          ...added,
          ...failure,
        }) as Record<string, unknown>,
      };
      for (const hook of this.shared.spanHooks) {
        try {
          hook(event);
        } catch {
          // a failing hook must not fail the work it measured
        }
      }
    };
    try {
      const result = await fn(span);
      finish(true);
      return result;
    } catch (error) {
      finish(false, error);
      throw error;
    }
  }

  private write(level: LogLevel, msg: string, fields?: Record<string, unknown>): void {
    const { shared } = this;
    const levelRank = rank(level);
    if (levelRank < shared.floor) return;
    const record = redact({
      time: new Date().toISOString(),
      level,
      msg,
      ...shared.scope.getStore(),
      ...this.bindings,
      ...fields,
    }) as LogRecord;
    if (levelRank >= rank(shared.level)) {
      try {
        shared.stream.write(shared.format === 'pretty' ? prettyLine(record) : `${JSON.stringify(record)}\n`);
      } catch {
        // a closed stderr must never take the server down
      }
    }
    for (const entry of shared.sinks) {
      if (levelRank < rank(entry.level ?? shared.level)) continue;
      // a session's sink sees its own records and server-wide ones, never another session's
      if (entry.sessionId !== undefined && record.sessionId !== undefined && record.sessionId !== entry.sessionId)
        continue;
      try {
        entry.sink(record);
      } catch {
        // a failing sink is dropped silently: logging must not throw
      }
    }
  }
}

/** Creates a logger writing JSON lines (or pretty lines) to stderr. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? 'info';
  return new StructuredLogger(
    {
      level,
      floor: rank(level),
      format: options.format ?? 'json',
      stream: options.stream ?? process.stderr,
      sinks: new Set(),
      spanHooks: new Set(),
      scope: new AsyncLocalStorage(),
    },
    options.bindings ?? {},
  );
}

/** A logger that drops everything (tests, benchmarks). */
export function createSilentLogger(): Logger {
  return createLogger({ level: 'error', stream: { write: () => true } });
}

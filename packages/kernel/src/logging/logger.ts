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

/** Receives every record at or above the logger's level. */
export type LogSink = (record: LogRecord) => void;

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
  /** Adds a sink (for example the MCP client's log); returns a function that removes it. */
  addSink(sink: LogSink): () => void;
  /** Changes the level at run time (MCP `logging/setLevel`). */
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

interface SharedState {
  level: LogLevel;
  format: 'json' | 'pretty';
  stream: { write(chunk: string): unknown };
  sinks: Set<LogSink>;
}

const rank = (level: LogLevel) => logLevels.indexOf(level);

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
  }

  addSink(sink: LogSink): () => void {
    this.shared.sinks.add(sink);
    return () => this.shared.sinks.delete(sink);
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
    if (rank(level) < rank(this.shared.level)) return;
    const record = redact({
      time: new Date().toISOString(),
      level,
      msg,
      ...this.bindings,
      ...fields,
    }) as LogRecord;
    try {
      this.shared.stream.write(this.shared.format === 'pretty' ? prettyLine(record) : `${JSON.stringify(record)}\n`);
    } catch {
      // a closed stderr must never take the server down
    }
    for (const sink of this.shared.sinks) {
      try {
        sink(record);
      } catch {
        // a failing sink is dropped silently: logging must not throw
      }
    }
  }
}

/** Creates a logger writing JSON lines (or pretty lines) to stderr. */
export function createLogger(options: LoggerOptions = {}): Logger {
  return new StructuredLogger(
    {
      level: options.level ?? 'info',
      format: options.format ?? 'json',
      stream: options.stream ?? process.stderr,
      sinks: new Set(),
    },
    options.bindings ?? {},
  );
}

/** A logger that drops everything (tests, benchmarks). */
export function createSilentLogger(): Logger {
  return createLogger({ level: 'error', stream: { write: () => true } });
}

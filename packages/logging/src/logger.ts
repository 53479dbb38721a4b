import { AsyncLocalStorage } from 'node:async_hooks';
import {
  type Logger,
  type LogLevel,
  type LogRecord,
  type LogSink,
  type LogSinkHandle,
  type LogSinkOptions,
  logLevels,
  type Span,
  type SpanEvent,
} from '@pro-context/kernel';
import { redact } from './redact.js';

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

/** A logger that writes no line but still feeds sinks and span hooks (tests, benchmarks). */
export function createSilentLogger(): Logger {
  return createLogger({ level: 'error', stream: { write: () => true } });
}

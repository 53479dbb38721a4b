import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { type LoggingLevel, SetLevelRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { LogLevel, LogRecord, LogSinkHandle, StartedKernel } from '@pro-context/kernel';

const mcpLevel: Record<LogRecord['level'], LoggingLevel> = {
  debug: 'debug',
  info: 'info',
  warn: 'warning',
  error: 'error',
};
const mcpSeverity: LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];
/** The lowest kernel level whose records can pass an MCP level (above `error`, the forwarder drops them all). */
const kernelFloor: Record<LoggingLevel, LogLevel> = {
  debug: 'debug',
  info: 'info',
  notice: 'warn',
  warning: 'warn',
  error: 'error',
  critical: 'error',
  alert: 'error',
  emergency: 'error',
};

/** The session's side of log forwarding. */
export interface LogSession {
  /** The session's id, once its transport is connected. */
  sessionId(): string;
  /** Whether the session is over (its server closed): no sink is added then. */
  disposed(): boolean;
  /** Keeps a detach for when the session ends. */
  onDispose(detach: () => void): void;
}

/**
 * `logging/setLevel` (the session's own threshold; until it says one, `warning`) and, with `forward`, the
 * session's log records as `notifications/message`: those of its own calls and server-wide ones, never another
 * session's, and nothing before the client says `initialized`.
 */
export function serveLogging(server: McpServer, kernel: StartedKernel, forward: boolean, session: LogSession): void {
  let sessionLevel: LoggingLevel | undefined;
  let sink: LogSinkHandle | undefined;
  server.server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    sessionLevel = request.params.level;
    sink?.setLevel(kernelFloor[sessionLevel]);
    return {};
  });
  if (!forward) return;
  const send = (record: LogRecord) => {
    if (!server.isConnected()) return;
    const level = mcpLevel[record.level];
    if (sessionLevel && mcpSeverity.indexOf(level) < mcpSeverity.indexOf(sessionLevel)) return;
    const { level: _level, msg, time: _time, ...data } = record;
    void server.sendLoggingMessage({ level, logger: 'pro-context', data: { msg, ...data } }).catch(() => undefined);
  };
  // MCP: nothing but the initialize response may reach the client before it says `initialized`; the
  // transport's session id (Streamable HTTP) is known by then
  const previous = server.server.oninitialized;
  server.server.oninitialized = () => {
    if (!sink && !session.disposed()) {
      sink = kernel.logger.addSink(send, {
        sessionId: session.sessionId(),
        // until the client sets its level, `warning` and above: not an `info` record on every call
        level: kernelFloor[sessionLevel ?? 'warning'],
      });
      session.onDispose(sink);
    }
    previous?.();
  };
}

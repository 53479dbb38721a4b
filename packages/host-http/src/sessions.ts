import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '@pro-context/kernel';
import type { BoundMcpServer, McpBinding } from '@pro-context/mcp';
import { SessionSlots } from './limits.js';
import type { MemoHooks } from './memo.js';
import { type HostRequest, sendRpcError } from './respond.js';
import { SessionTransport } from './transport.js';

interface Session {
  transport: SessionTransport;
  bound: BoundMcpServer;
  keyId: string | undefined;
  lastSeen: number;
}

/** Settings of {@link Sessions}. */
export interface SessionSettings {
  maxSessions: number;
  maxSessionsPerKey: number;
  /** A session idle this long is closed by the reaper. */
  idleMs: number;
}

/**
 * Stateful mode: one MCP server (from the process's one binding) and one {@link SessionTransport} per session,
 * opened by `initialize` within the {@link SessionSlots}; a session belongs to the API key that opened it
 * (another key's or an unknown id: 404 `Session not found`); idle sessions are closed by a reaper.
 */
export class Sessions {
  private readonly sessions = new Map<string, Session>();
  private readonly slots: SessionSlots;
  private readonly reaper: NodeJS.Timeout;

  constructor(
    private readonly binding: McpBinding,
    private readonly memo: MemoHooks | undefined,
    private readonly logger: Logger,
    settings: SessionSettings,
  ) {
    this.slots = new SessionSlots(settings, {
      count: () => this.sessions.size,
      countOf: (keyId) => {
        let own = 0;
        for (const session of this.sessions.values()) if (session.keyId === keyId) own += 1;
        return own;
      },
    });
    const { idleMs } = settings;
    this.reaper = setInterval(
      () => {
        const cutoff = Date.now() - idleMs;
        for (const [id, session] of this.sessions) if (session.lastSeen < cutoff) void this.close(id);
      },
      Math.max(1000, Math.min(60_000, idleMs / 2)),
    );
    this.reaper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /** POST /mcp (authenticated, body read): to its session, or an `initialize` opening one. */
  async post(req: HostRequest, res: ServerResponse): Promise<void> {
    try {
      if (req.headers['mcp-session-id'] !== undefined) {
        const session = this.sessionOf(req, res);
        if (session) await session.transport.handleRequest(req, res, req.body);
        return;
      }
      if (!isInitializeRequest(req.body)) {
        sendRpcError(res, 400, -32000, 'Bad Request: no session; the first request must be initialize.');
        return;
      }
      const release = this.slots.admit(req, res);
      if (!release) return;
      try {
        await this.open(req, res);
      } finally {
        release();
      }
    } catch (error) {
      this.failed(res, error);
    }
  }

  /** GET (the session's SSE stream) and DELETE /mcp (authenticated). */
  async existing(req: HostRequest, res: ServerResponse): Promise<void> {
    const session = this.sessionOf(req, res);
    if (!session) return;
    try {
      await session.transport.handleRequest(req, res);
    } catch (error) {
      this.failed(res, error);
    }
  }

  /** Closes one session (its transport and server). */
  async close(id: string): Promise<void> {
    const session = this.sessions.get(id);
    if (!session) return;
    this.sessions.delete(id);
    session.bound.dispose();
    await session.transport.close().catch(() => undefined);
    await session.bound.server.close().catch(() => undefined);
  }

  /** Stops the reaper and closes every session. */
  async closeAll(): Promise<void> {
    clearInterval(this.reaper);
    await Promise.all([...this.sessions.keys()].map((id) => this.close(id)));
  }

  private async open(req: HostRequest, res: ServerResponse): Promise<void> {
    const keyId = req.apiKey?.id;
    const transport: SessionTransport = new SessionTransport(
      {
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          this.sessions.set(id, { transport, bound, keyId, lastSeen: Date.now() });
        },
      },
      this.memo,
    );
    const bound = this.binding.createServer({
      onToolReuse: (requestId, tool, reuse) => transport.noteReuse(requestId, tool, reuse),
    });
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id && this.sessions.get(id)?.transport === transport) {
        this.sessions.delete(id);
        bound.dispose();
      }
    };
    await bound.server.connect(transport);
    await transport.handleRequest(req as never, res, req.body);
  }

  private sessionOf(req: HostRequest, res: ServerResponse): Session | undefined {
    const id = req.headers['mcp-session-id'];
    const session = typeof id === 'string' ? this.sessions.get(id) : undefined;
    // a session belongs to the key that opened it
    if (!session || session.keyId !== req.apiKey?.id) {
      sendRpcError(res, 404, -32001, 'Session not found');
      return undefined;
    }
    session.lastSeen = Date.now();
    return session;
  }

  private failed(res: ServerResponse, error: unknown): void {
    this.logger.error('request failed', { error });
    sendRpcError(res, 500, -32603, 'Internal server error');
  }
}

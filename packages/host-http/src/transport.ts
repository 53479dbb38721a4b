import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import {
  StreamableHTTPServerTransport,
  type StreamableHTTPServerTransportOptions,
} from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import type { ToolResultReuse } from '@pro-context/kernel';
import { answer, directRequest, fromMemo, noteReuse, passesPostChecks, writeJson } from './direct-path.js';
import type { MemoHooks, MemoSlot } from './memo.js';

/** A Node request as the host hands it over: `auth` set by the API-key check. */
export type HostRequest = IncomingMessage & { auth?: AuthInfo };

/**
 * The Streamable HTTP transport of one session: the SDK's `StreamableHTTPServerTransport` for everything it
 * does (initialize, batches, notifications, SSE streams for requests that carry a progress token, the GET
 * stream, DELETE, resumability and every error answer), plus a direct path for the common case: a POST
 * holding one JSON-RPC request without a progress token is answered with one `application/json` body, as
 * the Streamable HTTP spec allows, written straight to the Node response. That skips the SDK's Node→Web
 * request conversion and its per-POST SSE stream, the cost of most small calls.
 *
 * The direct path applies the same checks as the SDK's (Accept lists both `application/json` and
 * `text/event-stream`, a JSON Content-Type, a known `Mcp-Protocol-Version` if sent; a request failing one
 * goes to the SDK, which answers it with its usual error). Notifications a handler relates to a directly
 * answered request (there is no progress token, so no progress) are dropped, as the SDK does in JSON mode.
 */
export class SessionTransport implements Transport {
  readonly sdk: StreamableHTTPServerTransport;
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: (<T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void) | undefined;
  /** Directly answered requests still running, by JSON-RPC id. */
  private readonly direct = new Map<RequestId, ServerResponse>();
  /** Directly answered requests whose client went away before the answer: the answer is dropped. */
  private readonly abandoned = new Set<RequestId>();
  /** The memo slots of directly answered `tools/call`s still running, by JSON-RPC id. */
  private readonly slots = new Map<RequestId, MemoSlot>();
  private closed = false;

  constructor(
    options: StreamableHTTPServerTransportOptions,
    private readonly memo?: MemoHooks,
  ) {
    this.sdk = new StreamableHTTPServerTransport(options);
    this.sdk.onmessage = (message, extra) => this.onmessage?.(message, extra);
    this.sdk.onerror = (error) => this.onerror?.(error);
    this.sdk.onclose = () => this.finish();
  }

  get sessionId(): string | undefined {
    return this.sdk.sessionId;
  }

  async start(): Promise<void> {
    await this.sdk.start();
  }

  /** Serves one HTTP request of this session (`body`: the parsed POST body). */
  async handleRequest(req: HostRequest, res: ServerResponse, body?: unknown): Promise<void> {
    const message = req.method === 'POST' && !this.closed ? directRequest(body) : undefined;
    if (!message || !this.acceptsDirect(req) || this.direct.has(message.id)) {
      await this.sdk.handleRequest(req, res, body);
      return;
    }
    const slot = fromMemo(this.memo, message, req, res, this.sdk.sessionId);
    if (slot === true) return;
    this.direct.set(message.id, res);
    if (slot) this.slots.set(message.id, slot);
    res.once('close', () => {
      if (this.direct.get(message.id) !== res) return;
      this.direct.delete(message.id);
      this.slots.delete(message.id);
      this.abandoned.add(message.id);
    });
    const extra: MessageExtraInfo = {
      requestInfo: { headers: req.headers },
      ...(req.auth ? { authInfo: req.auth } : {}),
    };
    this.onmessage?.(message, extra);
  }

  /** A directly answered call's tool gave `reuse` (the MCP binding's `onToolReuse`): its answer may be kept. */
  noteReuse(requestId: RequestId, tool: string, reuse: ToolResultReuse): void {
    noteReuse(this.slots.get(requestId), tool, reuse);
  }

  private acceptsDirect(req: HostRequest): boolean {
    const sessionId = this.sdk.sessionId;
    return (sessionId === undefined || req.headers['mcp-session-id'] === sessionId) && passesPostChecks(req);
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const isResponse = isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message);
    const id = isResponse ? message.id : options?.relatedRequestId;
    const res = id === undefined ? undefined : this.direct.get(id);
    if (id !== undefined && this.abandoned.has(id)) {
      if (isResponse) this.abandoned.delete(id);
      return;
    }
    if (id === undefined || !res) {
      await this.sdk.send(message, options);
      return;
    }
    if (!isResponse) return;
    this.direct.delete(id);
    const slot = this.slots.get(id);
    this.slots.delete(id);
    answer(this.memo, slot, res, message, id, this.sdk.sessionId);
  }

  async close(): Promise<void> {
    await this.sdk.close();
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    for (const [id, res] of this.direct)
      if (!res.headersSent)
        writeJson(res, 404, { jsonrpc: '2.0', id, error: { code: -32001, message: 'Session closed' } });
    this.direct.clear();
    this.slots.clear();
    this.abandoned.clear();
    this.onclose?.();
  }
}

/**
 * Stateless mode's direct path: ONE MCP server for every stateless POST that holds one JSON-RPC request
 * without a progress token (see {@link SessionTransport}), instead of a server and an SDK transport per POST.
 * Requests of different clients may share JSON-RPC ids, so each gets an id of its own on the way in and
 * its own back on the way out. Notifications have nowhere to go in stateless mode and are dropped. Every
 * other POST (initialize, batches, notifications, progress tokens, failed checks) is for the caller's
 * per-request SDK transport: {@link handleRequest} returns false.
 */
export class StatelessTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: (<T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void) | undefined;
  private next = 0;
  private readonly pending = new Map<number, { id: RequestId; res: ServerResponse; slot?: MemoSlot }>();
  private closed = false;

  constructor(private readonly memo?: MemoHooks) {}

  async start(): Promise<void> {}

  /** Answers the POST directly, or returns false when it is not one for the direct path. */
  handleRequest(req: HostRequest, res: ServerResponse, body: unknown): boolean {
    const message = this.closed || req.method !== 'POST' ? undefined : directRequest(body);
    if (!message || !passesPostChecks(req)) return false;
    const slot = fromMemo(this.memo, message, req, res, undefined);
    if (slot === true) return true;
    this.next += 1;
    const inner = this.next;
    this.pending.set(inner, { id: message.id, res, ...(slot ? { slot } : {}) });
    res.once('close', () => this.pending.delete(inner));
    this.onmessage?.(
      { ...message, id: inner },
      { requestInfo: { headers: req.headers }, ...(req.auth ? { authInfo: req.auth } : {}) },
    );
    return true;
  }

  /** A call's tool gave `reuse` (the MCP binding's `onToolReuse`, with the id this transport gave it). */
  noteReuse(requestId: RequestId, tool: string, reuse: ToolResultReuse): void {
    if (typeof requestId === 'number') noteReuse(this.pending.get(requestId)?.slot, tool, reuse);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!(isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message))) return;
    const entry = typeof message.id === 'number' ? this.pending.get(message.id) : undefined;
    if (!entry) return;
    this.pending.delete(message.id as number);
    answer(this.memo, entry.slot, entry.res, message, entry.id);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const { id, res } of this.pending.values())
      if (!res.headersSent)
        writeJson(res, 503, { jsonrpc: '2.0', id, error: { code: -32000, message: 'Server is shutting down' } });
    this.pending.clear();
    this.onclose?.();
  }
}

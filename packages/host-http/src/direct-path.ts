import type { IncomingMessage, ServerResponse } from 'node:http';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import {
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import { AnswerMemo, type MemoHooks, type MemoSlot } from './memo.js';

/**
 * The direct JSON path (Streamable HTTP allows a POST's answer as one `application/json` body): what decides
 * that a POST may skip the SDK transport, and the writers of its answers. The checks mirror those of the SDK
 * transport's `handlePostRequest` in `@modelcontextprotocol/sdk` **1.32.2** (`SDK_VERSION_MIRRORED`); a request
 * failing one goes to the SDK, which answers it with its usual error. `test/direct-path.test.ts` fails when
 * the installed SDK is another version: re-check these against its `webStandardStreamableHttp.js` then.
 */
export const SDK_VERSION_MIRRORED = '1.32.2';

/**
 * A JSON-RPC request the direct path may answer: one request object (not a batch, not a notification or a
 * response, not `initialize`) without a progress token. Anything else takes the SDK's path.
 */
export function directRequest(body: unknown): JSONRPCRequest | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const m = body as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
  if (m.jsonrpc !== '2.0' || typeof m.method !== 'string' || m.method === 'initialize') return undefined;
  if (!(typeof m.id === 'string' || (typeof m.id === 'number' && Number.isInteger(m.id)))) return undefined;
  if (m.params !== undefined) {
    if (typeof m.params !== 'object' || m.params === null || Array.isArray(m.params)) return undefined;
    const meta = (m.params as { _meta?: unknown })._meta;
    if (meta !== undefined && (typeof meta !== 'object' || meta === null || 'progressToken' in meta)) return undefined;
  }
  return body as JSONRPCRequest;
}

/**
 * The SDK transport's checks of a POST after initialization: Accept lists both `application/json` and
 * `text/event-stream`, the Content-Type is JSON, `Mcp-Protocol-Version` (when sent) is one the SDK supports.
 */
export function passesPostChecks(req: IncomingMessage): boolean {
  const accept = req.headers.accept;
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return false;
  if (!isJsonContentType(req.headers['content-type'])) return false;
  const version = req.headers['mcp-protocol-version'];
  return version === undefined || (typeof version === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(version));
}

function writeBody(res: ServerResponse, status: number, body: Buffer, sessionId?: string): void {
  if (res.writableEnded || res.destroyed) return;
  const headers: Record<string, string | number> = {
    'Content-Type': 'application/json',
    'Content-Length': body.length,
  };
  if (sessionId !== undefined) headers['mcp-session-id'] = sessionId;
  res.writeHead(status, headers).end(body);
}

/** A JSON-RPC message as the one `application/json` body of an answer. */
export function writeJson(res: ServerResponse, status: number, message: unknown, sessionId?: string): void {
  if (res.writableEnded || res.destroyed) return;
  writeBody(res, status, Buffer.from(JSON.stringify(message), 'utf8'), sessionId);
}

const RESULT_END = Buffer.from('}');

/**
 * A JSON-RPC result response around an already serialized `result`: three buffers written corked (one
 * `writev`), the answer itself never copied.
 */
function writeResult(res: ServerResponse, id: RequestId, result: Buffer, sessionId?: string): void {
  if (res.writableEnded || res.destroyed) return;
  const head = Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`, 'utf8');
  const headers: Record<string, string | number> = {
    'Content-Type': 'application/json',
    'Content-Length': head.length + result.length + RESULT_END.length,
  };
  if (sessionId !== undefined) headers['mcp-session-id'] = sessionId;
  res.writeHead(200, headers);
  res.cork();
  res.write(head);
  res.write(result);
  res.end(RESULT_END);
}

/**
 * A `tools/call` the memo answers now (written to `res`, true), or the slot the call fills as it runs
 * (undefined when the request is no `tools/call` or has no memo key).
 */
export function fromMemo(
  memo: MemoHooks | undefined,
  message: JSONRPCRequest,
  req: IncomingMessage & { auth?: { clientId: string } },
  res: ServerResponse,
  sessionId: string | undefined,
): true | MemoSlot | undefined {
  if (!memo || message.method !== 'tools/call') return undefined;
  const started = performance.now();
  const key = AnswerMemo.keyOf(message.params);
  if (!key) return undefined;
  const hit = memo.store.get(key.key);
  if (!hit) return { key: key.key, tool: key.tool };
  writeResult(res, message.id, hit.result, sessionId);
  memo.onHit(hit.tool, req, performance.now() - started);
  return true;
}

/** Fills a running call's memo slot with its tool's `reuse` (what the MCP binding's `onToolReuse` reports). */
export function noteReuse(slot: MemoSlot | undefined, tool: string, reuse: MemoSlot['reuse']): void {
  if (slot && slot.tool === tool) slot.reuse = reuse;
}

/**
 * Writes a directly answered request's response; a successful tool result whose tool gave `reuse` goes into
 * the memo with its revision and time, serialized once.
 */
export function answer(
  memo: MemoHooks | undefined,
  slot: MemoSlot | undefined,
  res: ServerResponse,
  message: JSONRPCMessage,
  id: RequestId,
  sessionId?: string,
): void {
  if (memo && slot?.reuse && isJSONRPCResultResponse(message) && message.result.isError !== true) {
    const result = Buffer.from(JSON.stringify(message.result), 'utf8');
    memo.store.set(slot.key, { tool: slot.tool, result, revision: slot.reuse.revision, until: slot.reuse.until });
    writeResult(res, id, result, sessionId);
    return;
  }
  writeJson(res, 200, { ...message, id }, sessionId);
}

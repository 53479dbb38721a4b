import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiKeyRecord } from '@pro-context/access';
import type { ErrorPayload } from '@pro-context/kernel';

/**
 * A request as the host's steps see it (a plain Node request on the POST /mcp pipeline, Express's elsewhere):
 * `apiKey` and `auth` set by the API-key step (`auth` reaches tool handlers as the caller), `body` by the body step.
 */
export interface HostRequest extends IncomingMessage {
  auth?: { token: string; clientId: string; scopes: string[]; extra?: Record<string, unknown> };
  apiKey?: ApiKeyRecord;
  body?: unknown;
}

/**
 * One step of a pipeline, connect-style (Express accepts it as middleware): it answers the request itself, or
 * calls `next()` to hand it on (`next(error)`: the pipeline answers 500). Steps use plain Node calls only.
 */
export type Step = (req: HostRequest, res: ServerResponse, next: (error?: unknown) => void) => void;

/**
 * Runs `steps` in order for each request (one closure per request); an error passed to `next` is logged by
 * `onError` and answered 500 unless an answer has started.
 */
export function pipeline(
  steps: readonly Step[],
  onError: (error: unknown) => void,
): (req: HostRequest, res: ServerResponse) => void {
  return (req, res) => {
    let index = 0;
    const next = (error?: unknown): void => {
      if (error !== undefined) {
        onError(error);
        sendRpcError(res, 500, -32603, 'Internal server error');
        return;
      }
      const step = steps[index];
      index += 1;
      if (step) step(req, res, next);
    };
    next();
  };
}

/** Writes a JSON body (as Express's `res.json` does, with plain Node calls: the POST path has no Express). */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** A catalog error as an HTTP answer: JSON-RPC error shape (what MCP clients parse) carrying the payload. */
export function sendError(res: ServerResponse, status: number, payload: ErrorPayload): void {
  sendJson(res, status, {
    jsonrpc: '2.0',
    error: { code: -32001, message: `${payload.code}: ${payload.message}`, data: payload },
    id: null,
  });
}

/** A plain JSON-RPC error answer (`id: null`). */
export function sendRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}

/** The path of a request URL (no query). */
export function pathOf(url: string | undefined): string {
  if (!url) return '/';
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

import type { ServerResponse } from 'node:http';
import { hostHeaderValidation } from '@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js';
import type { HostMetrics } from './metrics.js';
import { type HostRequest, pathOf, type Step, sendJson, sendRpcError } from './respond.js';

/** The loopback names a Host header may carry (a DNS-rebinding attack arrives with the attacker's name instead). */
export const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]', '::1'];

/**
 * The Host names the server accepts: the loopback ones plus `extra`, on a loopback bind or when any are
 * configured; none (no Host check) on a non-loopback bind with none configured.
 */
export function allowedHostsFor(loopback: boolean, extra: readonly string[]): string[] {
  return loopback || extra.length > 0 ? [...LOOPBACK_HOSTS, ...extra] : [];
}

/**
 * The SDK's middleware answers through Express's `res.status().json()`: these two, written with plain Node
 * calls (the POST pipeline has no Express; on Express routes the answer is the same bytes and headers).
 */
function expressLike(res: ServerResponse): { status(code: number): { json(body: unknown): void } } {
  return { status: (code) => ({ json: (body) => sendJson(res, code, body) }) };
}

/**
 * DNS-rebinding protection: the MCP SDK's `hostHeaderValidation` (403 `Missing Host header`, `Invalid Host
 * header: …`, `Invalid Host: name`), usable on Express's and plain Node requests. Undefined when `allowed`
 * is empty (no check).
 */
export function hostCheck(allowed: readonly string[]): Step | undefined {
  if (allowed.length === 0) return undefined;
  const sdk = hostHeaderValidation([...allowed]);
  return (req, res, next) => sdk(req as never, expressLike(res) as never, () => next());
}

/** The Origin check: a request whose `Origin` is not among `origins` (`*`: any) gets 403 `Origin not allowed`. */
export function originCheck(origins: readonly string[], metrics: HostMetrics): Step {
  const any = origins.includes('*');
  return (req: HostRequest, res, next) => {
    const origin = req.headers.origin;
    if (origin && !any && !origins.includes(origin)) {
      metrics.httpRequests.inc({ method: req.method ?? '', route: pathOf(req.url), status: '403' });
      sendRpcError(res, 403, -32000, `Origin not allowed: ${origin}`);
      return;
    }
    next();
  };
}

import cors from 'cors';
import type { RequestHandler } from 'express';
import type { Step } from './respond.js';

/** Response headers a browser client may read. */
export const EXPOSED_HEADERS = [
  'Mcp-Session-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'WWW-Authenticate',
];

const ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'Accept',
  'Mcp-Session-Id',
  'Mcp-Protocol-Version',
  'Last-Event-ID',
];

/** The `cors` package on the Express routes (preflights included), from `security.cors.origins` (`*`: any). */
export function corsMiddleware(origins: readonly string[]): RequestHandler {
  return cors({
    origin: origins.includes('*') ? '*' : [...origins],
    exposedHeaders: EXPOSED_HEADERS,
    allowedHeaders: ALLOWED_HEADERS,
    methods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
  });
}

/**
 * What {@link corsMiddleware} sets on a request that is not a preflight, without the package's per-request
 * option handling: the POST /mcp pipeline's CORS step (every MCP call takes it).
 */
export function corsHeaders(origins: readonly string[]): Step {
  const any = origins.includes('*');
  const exposed = EXPOSED_HEADERS.join(',');
  return (req, res, next) => {
    if (any) res.setHeader('Access-Control-Allow-Origin', '*');
    else {
      const origin = req.headers.origin;
      if (origin && origins.includes(origin)) res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Vary', 'Origin');
    }
    res.setHeader('Access-Control-Expose-Headers', exposed);
    next();
  };
}

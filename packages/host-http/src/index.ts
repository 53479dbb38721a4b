/**
 * @pro-context/host-http: a pro-context kernel as a team MCP server over Streamable HTTP.
 *
 * Every export here is public API. Add exports deliberately.
 */
export type { KeyCheck } from './keys.js';
export { API_KEY_PATTERN, checkAuthorization, createApiKey, generateApiKey, hashApiKey } from './keys.js';
export { isLoopback } from './loopback.js';
export { HostMetrics } from './metrics.js';
export type { RateDecision } from './rate-limit.js';
export { TokenBuckets } from './rate-limit.js';
export type { HttpHostOptions, HttpServerHandle } from './server.js';
export { serveHttp } from './server.js';
export { UsageRecorder } from './usage.js';

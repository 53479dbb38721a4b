/** The kernel's `Retry-After` parser, re-exported: one parser for the client and `postWithRetries`. */
export { parseRetryAfterMs } from '@pro-context/kernel';

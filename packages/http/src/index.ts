/**
 * @pro-context/http: the guarded HTTP client the kernel binds to `kernelTokens.http`, and the helpers it is
 * made of that other code needs too. The `HttpClient` interface and its option and response types stay in
 * `@pro-context/kernel`, which plugins code against.
 *
 * Every export here is public API. Add exports deliberately.
 */

export { parseRetryAfterMs } from '@pro-context/plugin-kit';
export { isBlockedAddress } from './address-policy.js';
export { createHttpClient } from './client.js';
export { charsetOf, decodeBody, detectEncoding } from './decode.js';

/**
 * Whether a bind address is loopback (`localhost`, `::1`, `127.x`). Its own module, exported as
 * `@pro-context/host-http/loopback`, so a caller checking settings does not load the HTTP host (express,
 * prom-client, the Streamable HTTP transport).
 */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\./.test(host);
}

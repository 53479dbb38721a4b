import type { HttpHostOptions } from '@pro-context/host-http';
import { isLoopback } from '@pro-context/host-http/loopback';
import { ProContextError, type ResolvedConfig } from '@pro-context/kernel';
import { corsConfigSection, rateLimitConfigSection, serverConfigSection } from './settings.js';

/**
 * `server.auth: none` is for a loopback bind only: refuses it (`CONFIG_INVALID`) on any other address, so a
 * team server never runs open by accident.
 */
export function checkHttpSettings(config: ResolvedConfig): void {
  const server = serverConfigSection.read(config);
  if (server.transport !== 'http' || server.auth !== 'none' || isLoopback(server.host)) return;
  throw new ProContextError(
    'CONFIG_INVALID',
    `server.auth is 'none' but server.host is ${server.host}: without API keys the server may only listen on a loopback address.`,
    { suggestion: "Set server.auth to 'apiKey' and create keys with pro-context-admin, or bind 127.0.0.1." },
  );
}

/** The HTTP host's options from `server`, `rateLimit` and `security.cors`. */
export function httpHostOptionsFrom(config: ResolvedConfig): Omit<HttpHostOptions, 'version'> {
  const server = serverConfigSection.read(config);
  return {
    host: server.host,
    port: server.port,
    stateless: server.stateless,
    auth: server.auth,
    allowedHosts: server.allowedHosts,
    maxSessions: server.maxSessions,
    maxSessionsPerKey: server.maxSessionsPerKey,
    headersTimeoutMs: server.headersTimeoutSeconds * 1000,
    requestTimeoutMs: server.requestTimeoutSeconds * 1000,
    keepAliveTimeoutMs: server.keepAliveTimeoutSeconds * 1000,
    sessionIdleMs: server.sessionIdleMinutes * 60_000,
    maxBodyBytes: server.maxRequestBodyKB * 1024,
    metrics: {
      enabled: server.metrics.enabled,
      auth: server.metrics.auth,
      ...(server.metrics.port === undefined ? {} : { port: server.metrics.port }),
    },
    rateLimit: rateLimitConfigSection.read(config),
    corsOrigins: corsConfigSection.read(config).origins,
    answerMemo: server.answerMemo,
  };
}

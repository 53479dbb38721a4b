import { type DependencyContainer, container as rootContainer } from 'tsyringe';
import type { ResolvedConfig } from '../config/types.js';
import { type AnswerRevisions, createAnswerRevisions } from '../contracts/answer-revisions.js';
import type { Logger } from '../contracts/logger.js';
import { kernelTokens } from '../contracts/services.js';
import { ProContextError } from '../errors/pro-context-error.js';
import type { HttpClient, HttpClientFactory, HttpClientOptions } from '../http/types.js';
import type { AnyPlugin } from '../plugins/types.js';
import { createUrlAllowlist, type UrlAllowlist } from '../util/allowlist.js';
import { createEventBus, type EventBus } from '../util/events.js';
import { KERNEL_VERSION } from '../version.js';

/**
 * The general documentation hosts of the default `read-page` allowlist (seed 001 §10.1). The hosts of a
 * source or registry (`github.com`, `pypi.org`) are declared by its plugin (`allowlist`).
 */
export const defaultAllowlist = ['*.github.io', '*.readthedocs.io'];

/** How a kernel gets its HTTP client (part of `KernelOptions`). */
export interface KernelHttpOptions {
  /** Use this HTTP client instead of one built from `http` and `security` config. */
  http?: HttpClient;
  /**
   * Builds the HTTP client from the `http` and `security` config: pass `createHttpClient` from
   * `@pro-context/http` (the kernel does not depend on it). With neither this nor `http`, the kernel starts,
   * and every request fails with `PLUGIN_DEPENDENCY_MISSING` naming `@pro-context/http`.
   */
  createHttpClient?: HttpClientFactory;
  /** Extra HTTP client options over the config (tests inject a DNS `lookup`). */
  httpOptions?: Partial<HttpClientOptions>;
}

/**
 * The client of a kernel given none: it starts (kernels that never reach the network, such as tests of the
 * MCP binding or of a cache, need no client and no undici), and the first request fails loudly instead.
 */
function missingHttpClient(): HttpClient {
  const refuse = (url: string | URL): never => {
    throw new ProContextError(
      'PLUGIN_DEPENDENCY_MISSING',
      `No HTTP client: this kernel was created without one, so it cannot fetch ${String(url)}. Pass createHttpClient from @pro-context/http to createKernel().`,
      {
        suggestion:
          "Install @pro-context/http and call createKernel({ createHttpClient }) with its createHttpClient (the 'pro-context' preset does).",
      },
    );
  };
  return {
    request: async (url) => refuse(url),
    get: async (url) => refuse(url),
    stream: async (url) => refuse(url),
    close: async () => undefined,
  };
}

/** The kernel's own services, bound in a fresh child container under `kernelTokens`. */
export interface KernelServices {
  container: DependencyContainer;
  http: HttpClient;
  events: EventBus;
  revisions: AnswerRevisions;
  allowlist: UrlAllowlist;
}

export function createServices(
  config: ResolvedConfig,
  options: KernelHttpOptions,
  plugins: readonly AnyPlugin[],
  logger: Logger,
): KernelServices {
  const http =
    options.http ??
    options.createHttpClient?.(httpClientOptionsOf(config, options), logger.child({ component: 'http' })) ??
    missingHttpClient();
  const events = createEventBus();
  const revisions = createAnswerRevisions();
  const allowlist = createUrlAllowlist([
    ...defaultAllowlist.map((entry) => ({ entry, reason: 'default' })),
    ...plugins.flatMap((p) => p.allowlist ?? []),
    ...config.security.urlAllowlist.map((entry) => ({ entry, reason: 'config security.urlAllowlist' })),
  ]);
  const container: DependencyContainer = rootContainer.createChildContainer();
  container.register(kernelTokens.config, { useValue: config });
  container.register(kernelTokens.logger, { useValue: logger });
  container.register(kernelTokens.http, { useValue: http });
  container.register(kernelTokens.events, { useValue: events });
  container.register(kernelTokens.revisions, { useValue: revisions });
  container.register(kernelTokens.allowlist, { useValue: allowlist });
  return { container, http, events, revisions, allowlist };
}

/** The HTTP client's options: the `http` and `security` config, then `KernelOptions.httpOptions` over them. */
function httpClientOptionsOf(config: ResolvedConfig, options: KernelHttpOptions): HttpClientOptions {
  return {
    timeoutMs: config.http.timeoutMs,
    connectTimeoutMs: config.http.connectTimeoutMs,
    headersTimeoutMs: config.http.headersTimeoutMs,
    bodyTimeoutMs: config.http.bodyTimeoutMs,
    retries: config.http.retries,
    retryDelaysMs: config.http.retryDelaysMs,
    maxBodyBytes: config.http.maxBodyBytes,
    maxRedirects: config.http.maxRedirects,
    userAgent: config.http.userAgent ?? `pro-context/${KERNEL_VERSION}`,
    allowPrivateNetwork: config.security.allowPrivateNetwork,
    ...(config.http.proxy === undefined ? {} : { proxy: config.http.proxy }),
    ...options.httpOptions,
  };
}

import {
  type AnswerRevisions,
  type AnyPlugin,
  type EventBus,
  type HttpClient,
  type HttpClientOptions,
  KERNEL_VERSION,
  type KernelHttpOptions,
  kernelTokens,
  type Logger,
  ProContextError,
  type ResolvedConfig,
  type UrlAllowlist,
} from '@pro-context/kernel';
import { type DependencyContainer, container as rootContainer } from 'tsyringe';
import { createUrlAllowlist } from '../allowlist.js';
import { createAnswerRevisions } from '../answer-revisions.js';
import { createEventBus } from '../events.js';

/**
 * The general documentation hosts of the default `read-page` allowlist (seed 001 §10.1). The hosts of a
 * source or registry (`github.com`, `pypi.org`) are declared by its plugin (`allowlist`).
 */
export const defaultAllowlist = ['*.github.io', '*.readthedocs.io'];

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

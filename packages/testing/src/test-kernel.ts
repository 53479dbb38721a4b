import { validateConfig } from '@pro-context/config';
import { createHttpClient } from '@pro-context/http';
import {
  type AnyPlugin,
  type CacheStore,
  cacheStoreToken,
  definePlugin,
  type HttpClientOptions,
  KERNEL_VERSION,
  type Logger,
  type SearchBackend,
  type StartedKernel,
  searchBackendToken,
} from '@pro-context/kernel';
import { createLogger, createSilentLogger } from '@pro-context/logging';
import { createKernel } from '@pro-context/runtime';
import { MemoryCacheStore } from './fakes/memory-cache-store.js';
import { TermSearchBackend } from './fakes/term-search-backend.js';

/** Options of {@link createTestKernel}. */
export interface TestKernelOptions {
  /** Plugins under test (and their dependencies). */
  plugins?: (AnyPlugin | [AnyPlugin, unknown])[];
  /** Configuration values (validated like a config file). `security.allowPrivateNetwork` defaults to true. */
  config?: Record<string, unknown>;
  /** Bind an in-memory cache when no plugin provides one (default true). */
  fakeCache?: boolean | CacheStore;
  /** Bind a term-overlap search backend when no plugin provides one (default true). */
  fakeSearch?: boolean | SearchBackend;
  /** Extra HTTP client options (a DNS `lookup` for SSRF tests). */
  httpOptions?: Partial<HttpClientOptions>;
  /**
   * Environment variables, applied by the kernel as the CLI's are (each plugin's declared `environment`
   * sets its config key); default none.
   */
  env?: Record<string, string | undefined>;
  /** Logger; default silent (set `PRO_CONTEXT_TEST_LOGS=1` to see logs on stderr). */
  logger?: Logger;
  /** Leave the plugins' background phases to the test (`kernel.background()`), as the stdio host does; default false. */
  deferBackground?: boolean;
}

/**
 * A started kernel for tests: loopback allowed (the fake web runs there), fast retries, silent logs, and
 * fakes for the singular contracts the plugins under test do not provide.
 */
export async function createTestKernel(options: TestKernelOptions = {}): Promise<StartedKernel> {
  const config = options.config ?? {};
  const security = (config.security as Record<string, unknown> | undefined) ?? {};
  const http = (config.http as Record<string, unknown> | undefined) ?? {};
  const values = {
    ...config,
    security: { allowPrivateNetwork: true, ...security },
    http: { retryDelaysMs: [10, 20], timeoutMs: 10_000, ...http },
  };
  const builder = createKernel({
    config: options.env ? { values, lines: new Map(), fromEnv: new Map(), env: options.env } : values,
    validateConfig,
    createHttpClient,
    logger:
      options.logger ??
      (process.env.PRO_CONTEXT_TEST_LOGS ? createLogger({ level: 'debug', format: 'pretty' }) : createSilentLogger()),
    ...(options.httpOptions ? { httpOptions: options.httpOptions } : {}),
    ...(options.deferBackground ? { deferBackground: true } : {}),
  });
  const entries = (options.plugins ?? []).map((p) => (Array.isArray(p) ? p : ([p, undefined] as const)));
  for (const [plugin, pluginOptions] of entries) builder.use(plugin, pluginOptions);

  // Fakes go in as a plugin that binds only what no plugin under test provides: read from each plugin's
  // `provides` declaration, or (a plugin that declares nothing: a third party's) from a dry run of its register()
  const provides = new Set<symbol>();
  for (const [plugin] of entries) {
    if (plugin.provides) for (const token of plugin.provides) provides.add(token);
    else probe(plugin, provides);
  }
  const fakeCache = options.fakeCache ?? true;
  const fakeSearch = options.fakeSearch ?? true;
  builder.use(
    definePlugin({
      id: 'test-fakes',
      kernel: `>=${KERNEL_VERSION}`,
      provides: [cacheStoreToken, searchBackendToken],
      register(ctx) {
        if (fakeCache && !provides.has(cacheStoreToken)) {
          ctx.bindValue(cacheStoreToken, fakeCache === true ? new MemoryCacheStore() : fakeCache);
        }
        if (fakeSearch && !provides.has(searchBackendToken)) {
          ctx.bindValue(searchBackendToken, fakeSearch === true ? new TermSearchBackend() : fakeSearch);
        }
      },
    }),
  );
  return builder.start();
}

/** The tokens an undeclared plugin's register() binds with empty options, into `provides`. */
function probe(plugin: AnyPlugin, provides: Set<symbol>): void {
  try {
    plugin.register(
      {
        pluginId: plugin.id,
        config: {} as never,
        logger: createSilentLogger(),
        bindValue: (token) => void provides.add(token),
        bindClass: (token) => void provides.add(token),
        bindFactory: (token) => void provides.add(token),
      },
      {} as never,
    );
  } catch {
    // registration that needs real options tells us nothing; the real start will report it
  }
}

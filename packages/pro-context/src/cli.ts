import { ConfigLibraryProvider, docsEngineToken, embedderToken } from '@pro-context/engine';
import { serveStdio } from '@pro-context/host-stdio';
import {
  type CompactResult,
  cacheStoreToken,
  type ErrorPayload,
  isProContextError,
  kernelTokens,
  type Logger,
  type LogRecord,
  libraryProviderToken,
  logLevels,
  ProContextError,
  type StartedKernel,
  toProContextError,
} from '@pro-context/kernel';
import { createLogger, redactString } from '@pro-context/logging';
import { createToolRunner } from '@pro-context/tool-runner';
import { Command, InvalidArgumentError, Option } from 'commander';
import { applyHeapGrowth, releaseYoungGeneration } from './heap.js';
import { checkHttpSettings, httpHostOptionsFrom } from './http.js';
import { configurationNotes, PRESET_VERSION, serverInstructions, startProContext } from './preset.js';
import { loadRemotePlugins, type RemotePluginName, remotePluginLoaders } from './remote-plugins.js';
import { followClientRoots } from './roots.js';
import { serverConfigSection } from './settings.js';
import { deferredStart, PROJECT_WAIT_MS, projectSettled, STARTUP_FALLBACK_MS } from './startup.js';

interface GlobalOptions {
  config?: string;
  json?: boolean;
  cacheDir?: string;
  logLevel?: (typeof logLevels)[number];
  logFormat?: 'json' | 'pretty';
  allowPrivateNetwork?: boolean;
  project?: string;
  verbose?: boolean;
}

const positiveInt = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number');
  return n;
};

function overridesFrom(options: GlobalOptions, interactive: boolean): Record<string, unknown> {
  const overrides: Record<string, unknown> = {};
  if (options.cacheDir) overrides.cache = { directory: options.cacheDir };
  if (options.allowPrivateNetwork) overrides.security = { allowPrivateNetwork: true };
  if (options.project) overrides.project = { root: options.project };
  // a one-shot command answers one call: the project's libraries are not resolved in the background for it
  if (interactive) overrides.engine = { preResolveDetected: false };
  const logging: Record<string, unknown> = {};
  if (options.logLevel) logging.level = options.logLevel;
  else if (options.verbose) logging.level = 'info';
  else if (interactive && !process.env.PRO_CONTEXT_LOG_LEVEL && !process.env.PRO_CONTEXT_DEBUG) logging.level = 'warn';
  // a person reads the terminal commands' log lines: human ones, JSON only when asked (flag or env)
  if (options.logFormat) logging.format = options.logFormat;
  else if (interactive && !process.env.PRO_CONTEXT_LOG_FORMAT) logging.format = 'pretty';
  if (Object.keys(logging).length > 0) overrides.logging = logging;
  return overrides;
}

/**
 * The terminal commands' logger, unless asked for more (`--verbose`, `--log-level`, `--log-format`,
 * `PRO_CONTEXT_LOG_LEVEL`, `PRO_CONTEXT_LOG_FORMAT`, `PRO_CONTEXT_DEBUG`): warnings and errors as one human line
 * per distinct problem (`warning: PyPI (pypi.org) could not be reached…` once, however many lookups hit it), no
 * JSON, no field dumps; a tool call's own failure is left to the error printed at the end. `undefined`: the
 * kernel's own logger, as configured.
 */
function quietLogger(options: GlobalOptions): Logger | undefined {
  const env = process.env;
  if (options.verbose || options.logLevel || options.logFormat) return undefined;
  if (env.PRO_CONTEXT_LOG_LEVEL || env.PRO_CONTEXT_LOG_FORMAT || env.PRO_CONTEXT_DEBUG) return undefined;
  const said = new Set<string>();
  const logger = createLogger({ level: 'error', stream: { write: () => true } });
  logger.addSink(
    (record: LogRecord) => {
      // a span is a tool call's record: its failure is the error printed at the end
      if (record.span !== undefined) return;
      const error = record.error as { message?: unknown } | undefined;
      const text = typeof error?.message === 'string' ? error.message : record.msg;
      if (said.has(text)) return;
      said.add(text);
      process.stderr.write(`${record.level === 'error' ? 'error' : 'warning'}: ${text}\n`);
    },
    { level: 'warn' },
  );
  return logger;
}

/**
 * Waits, at most {@link PROJECT_WAIT_MS}, for the providers whose libraries arrive late (project detection, the
 * installed packages it names) so that a one-shot command answers with the project's libraries, as a server that
 * has been running a moment does. A scan still running by then is left behind with one line on stderr.
 */
async function waitForProject(kernel: StartedKernel): Promise<void> {
  if (!(await projectSettled(kernel)))
    process.stderr.write(
      `warning: the project scan took more than ${PROJECT_WAIT_MS / 1000} s: answering without the project's libraries (--project <dir> names the project folder)\n`,
    );
}

function printError(error: unknown): void {
  const payload: ErrorPayload = toProContextError(error).toPayload();
  process.stderr.write(
    `error ${payload.code}: ${payload.message}\n${payload.suggestion ? `  → ${payload.suggestion}\n` : ''}${payload.retryAfter ? `  (retry after ${payload.retryAfter} s)\n` : ''}`,
  );
  if (!isProContextError(error) && process.env.PRO_CONTEXT_DEBUG) console.error(error);
}

/** Runs one tool the way an agent would, printing its markdown (or, with --json, its structured result). */
function runTool(
  program: Command,
  name: string,
  args: Record<string, unknown>,
  prepare?: (kernel: StartedKernel, args: Record<string, unknown>) => Promise<void>,
): Promise<void> {
  const showProgress = process.stderr.isTTY && !program.opts<GlobalOptions>().json;
  return withKernel(program, async (kernel) => {
    await waitForProject(kernel);
    if (prepare) await prepare(kernel, args);
    // the runner the MCP binding uses: the same validation (in and out) and errors an agent gets
    const result = await createToolRunner(kernel).call(name, args, {
      progress(update) {
        if (showProgress)
          process.stderr.write(
            `\r${update.message ?? ''} ${update.progress}${update.total ? `/${update.total}` : ''}   `,
          );
      },
    });
    if (!result.ok) {
      // an unexpected failure is rethrown as the tool threw it, so PRO_CONTEXT_DEBUG still prints it whole
      const { error } = result;
      throw error.code === 'INTERNAL_ERROR' && error.cause !== undefined ? error.cause : error;
    }
    if (showProgress) process.stderr.write('\r\x1b[K');
    return { text: result.text, structured: result.structured };
  });
}

/**
 * Runs `work` on a started kernel and prints what it returns (`--json`: the structured part); an error is printed
 * with its code and advice, and the exit code is 1.
 */
async function withKernel(
  program: Command,
  work: (kernel: StartedKernel) => Promise<{ text: string; structured: unknown }>,
): Promise<void> {
  const options = program.opts<GlobalOptions>();
  let kernel: StartedKernel | undefined;
  try {
    const logger = quietLogger(options);
    kernel = await startProContext({
      ...(options.config ? { configFile: options.config } : {}),
      overrides: overridesFrom(options, true),
      ...(logger ? { logger } : {}),
    });
    const { text, structured } = await work(kernel);
    process.stdout.write(`${options.json ? JSON.stringify(structured, null, 2) : text}\n`);
    await kernel.stop();
  } catch (error) {
    printError(error);
    await kernel?.stop().catch(() => undefined);
    process.exitCode = 1;
  }
}

/** Megabytes, to a tenth. */
function mb(bytes: number): string {
  return (bytes / 2 ** 20).toFixed(1);
}

function compactedLine({ fileBytesBefore, fileBytesAfter }: CompactResult): string {
  return `cache files on disk: ${mb(fileBytesBefore)} MB -> ${mb(fileBytesAfter)} MB`;
}

/**
 * After `cache clear`: gives the space the removed entries took back to the file system when it is 1 MB or more.
 * The clear stands if that fails (another process writing): a line says why.
 */
async function compactAfterClear(
  kernel: StartedKernel,
): Promise<{ lines: string[]; structured: { compacted?: CompactResult; notCompacted?: string } }> {
  const store = kernel.resolve(cacheStoreToken);
  if (!store.compact || ((await store.stats()).freeBytes ?? 0) < 2 ** 20) return { lines: [], structured: {} };
  try {
    const compacted = await store.compact();
    return { lines: [compactedLine(compacted)], structured: { compacted } };
  } catch (error) {
    if (!isProContextError(error)) throw error;
    const why = `${error.message}${error.suggestion ? ` ${error.suggestion}` : ''}`;
    return { lines: [`the cache files were not compacted: ${why}`], structured: { notCompacted: why } };
  }
}

/** Lets people type a library name in the terminal: unknown ids are resolved (fuzzy) to their libraryId. */
async function resolveLibraryArg(kernel: StartedKernel, args: Record<string, unknown>): Promise<void> {
  const found = await kernel.resolve(docsEngineToken).findLibrary(String(args.libraryId));
  if (found) args.libraryId = found.id;
}

export function buildProgram(): Command {
  const program = new Command('pro-context')
    .description(
      'Version-specific library documentation for AI coding agents, over MCP.\nWith no command, serves MCP over stdio (what an agent connects to). The other commands answer the same tools in a terminal.',
    )
    .version(
      PRESET_VERSION,
      '-v, --version',
      "print pro-context's own version (a library's version is -V <version> of docs and search)",
    )
    .option(
      '-c, --config <file>',
      'configuration file (default: ./pro-context.config.yaml, then ~/.pro-context/config.yaml)',
    )
    .option('--json', 'print the structured result as JSON instead of markdown')
    .option('--cache-dir <dir>', 'cache directory (default ~/.pro-context/cache; env PRO_CONTEXT_CACHE_DIR)')
    .addOption(new Option('--log-level <level>', 'log level on stderr').choices([...logLevels]))
    .addOption(
      new Option(
        '--log-format <format>',
        "log lines on stderr: human (pretty, the terminal commands' default) or JSON (serve's default; env PRO_CONTEXT_LOG_FORMAT)",
      ).choices(['json', 'pretty']),
    )
    .option('--allow-private-network', 'allow documentation on loopback and private addresses (intranets, local sites)')
    .option(
      '--project <dir>',
      'the project folder whose libraries are detected (default: the nearest folder from here up with a lockfile, package.json, pyproject.toml or .git; env PRO_CONTEXT_PROJECT)',
    )
    .option('--verbose', 'log what happens on stderr (default: one line per distinct problem)')
    .showHelpAfterError('(pro-context --help lists the commands and options)')
    // a word that is no command is refused with the nearest command (the action below), not read as serve's
    .allowExcessArguments(true);

  const serve = async (serveOptions: { http?: boolean } = {}) => {
    const options = program.opts<GlobalOptions>();
    let kernel: StartedKernel | undefined;
    try {
      kernel = await startProContext({
        ...(options.config ? { configFile: options.config } : {}),
        overrides: {
          ...overridesFrom(options, false),
          ...(serveOptions.http ? { server: { transport: 'http' } } : {}),
        },
        // the stdio server starts the project scan once tools/list is answered (deferredStart); an HTTP
        // server (a config file may choose it too) runs it right after start, as it serves many clients
        deferBackground: true,
      });
      checkHttpSettings(kernel.config);
      applyHeapGrowth(serverConfigSection.read(kernel.config).heapGrowthPercent);
      // the command held it before loading the program (bin.ts)
      if (!serverConfigSection.read(kernel.config).holdYoungGeneration) releaseYoungGeneration();
      const identity = { name: 'pro-context', version: PRESET_VERSION, instructions: serverInstructions(kernel) };
      if (serverConfigSection.read(kernel.config).transport === 'http') {
        void kernel.background();
        // loaded only for the HTTP host: a stdio server never pays for express, prom-client and the HTTP transport
        await (await import('@pro-context/host-http')).serveHttp(kernel, {
          ...identity,
          ...httpHostOptionsFrom(kernel.config),
          handleSignals: true,
        });
      } else {
        const started = kernel;
        const deferred = deferredStart(kernel);
        await serveStdio(kernel, {
          ...identity,
          runner: deferred.runner,
          configure: (server) => {
            followClientRoots(server, started, deferred.started);
            const previous = server.server.oninitialized;
            server.server.oninitialized = () => {
              previous?.();
              // a client that never lists the tools (it reads resources only) gets the project scan a moment later
              deferred.startWithin(STARTUP_FALLBACK_MS);
            };
          },
        });
      }
    } catch (error) {
      printError(error);
      await kernel?.stop().catch(() => undefined);
      process.exit(1);
    }
  };
  program.action(() => {
    // `pro-context serach …`: commander's own unknown-command error, with its "(Did you mean search?)"
    if (program.args.length > 0) (program as unknown as { unknownCommand(): void }).unknownCommand();
    return serve();
  });
  program
    .command('serve')
    .description('serve MCP over stdio (the default), or with --http as a team server (server.* in the config)')
    .option('--http', 'serve MCP over Streamable HTTP on server.host:server.port (default 127.0.0.1:3100)')
    .action((opts: { http?: boolean }) => serve(opts));

  program
    .command('resolve')
    .description('resolve a library: its id, versions, sources and table of contents')
    .argument('<query>', "library name or query, e.g. 'fastapi' or 'pydantic v2'")
    .option('-l, --language <language>', 'language filter (python, javascript)')
    .action((query: string, opts: { language?: string }) =>
      runTool(program, 'resolve-library', { query, ...(opts.language ? { language: opts.language } : {}) }),
    );

  program
    .command('docs')
    .description('focused documentation for a topic (get-docs)')
    .argument('<library>', 'library id or name')
    .argument('<topic>', "topic, e.g. 'dependencies with yield'")
    .option(
      '-V, --lib-version <version>',
      "the library's version (default: the project's installed one, else latest stable; --version <v> here too; -v is refused here: it is pro-context's own version)",
    )
    .option('-t, --max-tokens <n>', 'token budget (500-10000)', positiveInt, 5000)
    .action((library: string, topic: string, opts: { libVersion?: string; maxTokens: number }) =>
      runTool(
        program,
        'get-docs',
        {
          libraryId: library,
          topic,
          maxTokens: opts.maxTokens,
          ...(opts.libVersion ? { version: opts.libVersion } : {}),
        },
        resolveLibraryArg,
      ),
    );

  program
    .command('search')
    .description("search a library's documentation (search-docs)")
    .argument('<library>', 'library id or name')
    .argument('<query>', 'search query')
    .option(
      '-V, --lib-version <version>',
      "the library's version (default: the project's installed one, else latest stable; --version <v> here too; -v is refused here: it is pro-context's own version)",
    )
    .option('-n, --max-results <n>', 'results (1-20)', positiveInt, 5)
    .action(async (library: string, query: string, opts: { libVersion?: string; maxResults: number }) => {
      const args = {
        libraryId: library,
        query,
        maxResults: opts.maxResults,
        ...(opts.libVersion ? { version: opts.libVersion } : {}),
      };
      await runTool(program, 'search-docs', args, async (kernel, a) => {
        await resolveLibraryArg(kernel, a);
        // a terminal user waits for the first index instead of being told to retry
        const engine = kernel.resolve(docsEngineToken);
        if (await engine.findLibrary(String(a.libraryId))) await engine.loadDocs(String(a.libraryId), opts.libVersion);
      });
    });

  program
    .command('read')
    .description('read one documentation page as markdown (read-page)')
    .argument('<url>', 'page URL')
    .option('-t, --max-tokens <n>', 'token budget (500-50000)', positiveInt, 10000)
    .option('-o, --offset <n>', 'character offset to continue from', positiveInt, 0)
    .action((url: string, opts: { maxTokens: number; offset: number }) =>
      runTool(program, 'read-page', { url, maxTokens: opts.maxTokens, offset: opts.offset }, async (kernel) => {
        // the terminal user names the URL deliberately: resolve configured libraries so their TOC domains are allowed
        const engine = kernel.resolve(docsEngineToken);
        // a malformed URL is left to read-page, which answers INVALID_INPUT like it does for an agent
        if (!URL.canParse(url)) return;
        // a host allowed already (a configured library's docs host is, from start-up) needs no library fetched first
        if (kernel.resolve(kernelTokens.allowlist).isAllowed(url)) return;
        for (const lib of engine.librariesAt(new URL(url))) {
          await engine.resolve(lib.id, { libraryId: lib.id }).catch(() => undefined);
        }
      }),
    );

  program
    .command('libraries')
    .description('list the libraries pro-context can serve (list-libraries)')
    .option('-q, --query <words>', "words that must appear in a library's id, name, description or categories")
    .option('-l, --language <language>', 'language filter')
    .option('--category <category>', 'category filter')
    .option('--cursor <cursor>', 'the next page (the cursor the previous page printed)')
    .option('--all', 'every page, one after the other')
    .action((opts: { query?: string; language?: string; category?: string; cursor?: string; all?: boolean }) => {
      const { all, ...args } = opts;
      if (!all) return runTool(program, 'list-libraries', args);
      return withKernel(program, async (kernel) => {
        await waitForProject(kernel);
        const runner = createToolRunner(kernel);
        const libraries: unknown[] = [];
        const lines: string[] = [];
        let cursor = args.cursor;
        for (;;) {
          const result = await runner.call('list-libraries', { ...args, ...(cursor ? { cursor } : {}) });
          if (!result.ok) throw result.error;
          const page = result.structured as { libraries: unknown[]; nextCursor?: string };
          libraries.push(...page.libraries);
          // the page's lines, without its "how to get the next page" footer
          lines.push(...(result.text.split('\n\n')[0] ?? '').split('\n'));
          cursor = page.nextCursor;
          if (!cursor) break;
        }
        return { text: lines.join('\n'), structured: { libraries, total: libraries.length } };
      });
    });

  const cache = program.command('cache').description('the documentation cache');
  cache
    .command('clear')
    .description(
      "remove libraries' cached documentation, every version (the next call fetches and indexes them again), or with --all everything cached",
    )
    .argument('[libraries...]', 'library ids or names')
    .option('--all', 'remove everything cached: documentation, version lists, pages, answers')
    .action((libraries: string[], opts: { all?: boolean }) =>
      withKernel(program, async (kernel) => {
        if (Boolean(opts.all) === libraries.length > 0) {
          throw new ProContextError(
            'INVALID_INPUT',
            opts.all ? 'Give either libraries or --all, not both.' : 'Name the libraries to clear, or give --all.',
            { suggestion: 'pro-context cache clear pydantic fastapi, or pro-context cache clear --all.' },
          );
        }
        if (opts.all) {
          const removed = await kernel.resolve(docsEngineToken).clearAllCaches();
          const compacted = await compactAfterClear(kernel);
          return {
            text: [`removed ${removed} cache entries`, ...compacted.lines].join('\n'),
            structured: { removed, ...compacted.structured },
          };
        }
        const engine = kernel.resolve(docsEngineToken);
        // offline: a name neither cached nor known has nothing cached, and no registry is asked what it means
        const cachedIds = new Set((await engine.cachedLibraryVersions()).map((v) => v.libraryId));
        const cleared = [];
        for (const name of libraries) {
          const known = cachedIds.has(name) ? name : engine.matchLibraries(name)[0]?.library.id;
          cleared.push(known ? await engine.clearCache(known) : { libraryId: name, removed: 0 });
        }
        const compacted = await compactAfterClear(kernel);
        return {
          text: [
            ...cleared.map(({ libraryId, removed }) =>
              removed > 0 ? `${libraryId}: removed ${removed} cache entries` : `${libraryId}: nothing cached`,
            ),
            ...compacted.lines,
          ].join('\n'),
          structured: { libraries: cleared, ...compacted.structured },
        };
      }),
    );
  cache
    .command('compact')
    .description('give the space no cache entry uses back to the file system (cache clear does it too)')
    .action(() =>
      withKernel(program, async (kernel) => {
        const store = kernel.resolve(cacheStoreToken);
        if (!store.compact) return { text: 'this cache store keeps no files to compact', structured: {} };
        const result = await store.compact();
        return { text: compactedLine(result), structured: { compacted: result } };
      }),
    );
  cache
    .command('stats')
    .description('what the cache holds: entries, bytes, hit rate')
    .action(() =>
      withKernel(program, async (kernel) => {
        const stats = await kernel.resolve(cacheStoreToken).stats();
        const libraries = new Set(
          (await kernel.resolve(docsEngineToken).cachedLibraryVersions()).map((v) => `${v.libraryId}@${v.version}`),
        );
        const onDisk =
          stats.fileBytes === undefined
            ? ''
            : `; its files take ${mb(stats.fileBytes)} MB on disk${(stats.freeBytes ?? 0) >= 2 ** 20 ? `, ${mb(stats.freeBytes ?? 0)} MB of it free (reused by new entries; pro-context cache compact gives it back)` : ''}`;
        return {
          text: `${stats.durableEntries} entries holding ${mb(stats.durableBytes)} MB${onDisk}; ${libraries.size === 1 ? '1 library version' : `${libraries.size} library versions`}: ${[...libraries].sort().join(', ') || 'none'}`,
          structured: { ...stats, libraryVersions: [...libraries].sort() },
        };
      }),
    );

  const config = program.command('config').description('configuration helpers');
  config
    .command('schema')
    .description('print the JSON Schema of pro-context.config.yaml (for editor completion)')
    .action(async () => {
      // with every remote plugin's section (context7…), so that editors complete them before they are enabled
      const remote = await loadRemotePlugins(Object.keys(remotePluginLoaders) as RemotePluginName[]);
      // every store and search backend: imported here, not at the server's start-up
      const { defaultPlugins, presetConfigJsonSchema } = await import('./default-plugins.js');
      process.stdout.write(`${JSON.stringify(presetConfigJsonSchema([...defaultPlugins(), ...remote]), null, 2)}\n`);
    });
  config
    .command('check')
    .description('validate the configuration file and environment, and print where it came from')
    .action(async () => {
      const options = program.opts<GlobalOptions>();
      try {
        // the flags only, as `serve` is given them: the terminal's logging defaults as overrides would hide the
        // file's own logging.level / logging.format, which the server refuses when they are wrong
        const overrides = overridesFrom(options, false);
        // the warnings are printed below; the logger repeating them on stderr would say everything twice
        const quiet =
          !options.logLevel && !options.verbose && !process.env.PRO_CONTEXT_LOG_LEVEL && !process.env.PRO_CONTEXT_DEBUG
            ? createLogger({ level: 'error', format: 'pretty' })
            : undefined;
        const kernel = await startProContext({
          ...(options.config ? { configFile: options.config } : {}),
          overrides,
          ...(quiet ? { logger: quiet } : {}),
          // nothing runs in the background (the project's libraries are not resolved) for a check
          deferBackground: true,
        });
        try {
          checkHttpSettings(kernel.config);
        } catch (error) {
          await kernel.stop();
          throw error;
        }
        // the configured libraries' warnings (deprecated keys, bags no plugin reads) come from the engine's provider
        const libraryWarnings = kernel
          .resolveAll(libraryProviderToken)
          .flatMap((p) => (p instanceof ConfigLibraryProvider ? p.warnings : []));
        const embeddingsWarnings = await embeddingsWarningsOf(kernel);
        const fromEnvironment = kernel.environment.map(({ variable, key }) => `  ${key} from ${variable}\n`);
        const warnings = [...kernel.warnings, ...configurationNotes(kernel), ...libraryWarnings, ...embeddingsWarnings];
        // a warning may quote a configured URL: masked like a log line (user-info, secret query parameters)
        process.stdout.write(
          redactString(
            options.json
              ? `${JSON.stringify(
                  {
                    ok: true,
                    file: kernel.config.sourceFile ?? null,
                    environment: kernel.environment.map(({ variable, key }) => ({ variable, key })),
                    warnings,
                  },
                  null,
                  2,
                )}\n`
              : `configuration OK${kernel.config.sourceFile ? ` (${kernel.config.sourceFile})` : ' (no file: defaults and environment)'}\n${fromEnvironment.length > 0 ? `set by the environment:\n${fromEnvironment.join('')}` : ''}${warnings.map((w) => `warning: ${w}\n`).join('')}`,
          ),
        );
        await kernel.stop();
      } catch (error) {
        // --json: the error as data on stdout too (code, message, suggestion, each bad key with its line), for CI
        if (options.json) {
          const { code, message, suggestion, details } = toProContextError(error).toPayload();
          process.stdout.write(
            redactString(`${JSON.stringify({ ok: false, error: { code, message, suggestion, details } }, null, 2)}\n`),
          );
        }
        printError(error);
        process.exitCode = 1;
      }
    });
  return program;
}

/**
 * What the reranking model's configuration gets wrong without stopping the server (a `baseUrl` with a user name or
 * password, a private one without `security.allowPrivateNetwork`, a `timeoutMs` past the engine's cap), as the
 * server words it at start and in the first get-docs note; none when the plugin is not enabled.
 */
async function embeddingsWarningsOf(kernel: StartedKernel): Promise<string[]> {
  const options = kernel.config.raw.embeddings;
  if (options === undefined || !kernel.isBound(embedderToken)) return [];
  const { embeddingsConfigurationWarnings } = await import('@pro-context/plugin-openai-embeddings');
  return embeddingsConfigurationWarnings(
    options as Parameters<typeof embeddingsConfigurationWarnings>[0],
    kernel.config,
  );
}

/** The program's options that take a value (the word after them is no command). */
const VALUED_GLOBAL_OPTIONS = new Set(['-c', '--config', '--cache-dir', '--log-level', '--log-format', '--project']);

/**
 * `docs zod 'errors' --version 3` means the library's version, not the program's: after `docs` or `search`,
 * `--version <v>` (or `--version=<v>`) is read as `--lib-version <v>`. Elsewhere `--version` prints ours.
 */
function libraryVersionArgs(argv: readonly string[]): string[] {
  const out = [...argv];
  // `-v` is pro-context's version before a command; after one it would print that, silently, instead of
  // choosing a library version (which is -V): refused with the flag meant
  let sub = -1;
  for (let i = 2; i < out.length && sub < 0; i += 1) {
    const arg = out[i] as string;
    if (arg === '--') break;
    if (VALUED_GLOBAL_OPTIONS.has(arg)) i += 1;
    else if (!arg.startsWith('-')) sub = i;
  }
  const dashes = out.indexOf('--');
  const v = out.findIndex((a, i) => i > sub && (dashes < 0 || i < dashes) && a === '-v');
  if (sub >= 2 && v > sub) {
    process.stderr.write(
      `error: -v is pro-context's own version and is not an option of '${out[sub]}'. A library's version is -V <version> (--lib-version), e.g. pro-context docs hono routing -V 4.8.3; pro-context --version prints pro-context's.\n`,
    );
    process.exit(2);
  }
  const command = out.findIndex((a, i) => i >= 2 && (a === 'docs' || a === 'search'));
  if (command < 0) return out;
  for (let i = command + 1; i < out.length; i += 1) {
    const arg = out[i] as string;
    if (arg === '--') break;
    if (arg === '--version' && i + 1 < out.length && !(out[i + 1] as string).startsWith('-')) out[i] = '--lib-version';
    else if (arg.startsWith('--version=')) out[i] = `--lib-version=${arg.slice('--version='.length)}`;
  }
  return out;
}

await buildProgram().parseAsync(libraryVersionArgs(process.argv));

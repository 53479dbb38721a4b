#!/usr/bin/env node
import { type ApiKeyRecord, type KeyStore, keyStoreToken, type UsageStore, usageStoreToken } from '@pro-context/access';
import { createApiKey } from '@pro-context/host-http';
import { ProContextError, type StartedKernel, toProContextError } from '@pro-context/kernel';
import { Command, InvalidArgumentError } from 'commander';
import { PRESET_VERSION, startProContext } from './preset.js';

interface AdminOptions {
  config?: string;
  cacheDir?: string;
}

const positiveInt = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number above 0');
  return n;
};

const when = (ms: number | null) => (ms === null ? 'never' : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z'));

/**
 * Opens the server's key and usage stores: the same configuration file (`-c`, `PRO_CONTEXT_CONFIG`, then the
 * default places) and cache directory (`--cache-dir`, `PRO_CONTEXT_CACHE_DIR`, `cache.directory`) as the
 * server, with the server's plugins (so the file validates alike); only the stores are used.
 */
async function withStores(
  program: Command,
  work: (stores: { keys: KeyStore; usage: UsageStore }) => Promise<void>,
): Promise<void> {
  const options = program.opts<AdminOptions>();
  let kernel: StartedKernel | undefined;
  try {
    kernel = await startProContext({
      ...(options.config ? { configFile: options.config } : {}),
      overrides: {
        logging: { level: 'error' },
        project: { autoDetect: false },
        ...(options.cacheDir ? { cache: { directory: options.cacheDir } } : {}),
      },
      // the server's plugins, so its configuration file validates the same way (and the same cache directory wins)
      plugins: [],
    });
    await work({ keys: kernel.resolve(keyStoreToken), usage: kernel.resolve(usageStoreToken) });
    await kernel.stop();
  } catch (error) {
    const payload = toProContextError(error).toPayload();
    process.stderr.write(
      `error ${payload.code}: ${payload.message}\n${payload.suggestion ? `  → ${payload.suggestion}\n` : ''}`,
    );
    if (payload.code === 'INTERNAL_ERROR' && process.env.PRO_CONTEXT_DEBUG) console.error(error);
    await kernel?.stop().catch(() => undefined);
    process.exitCode = 1;
  }
}

async function findKey(keys: KeyStore, idOrName: string): Promise<ApiKeyRecord> {
  const record = await keys.find(idOrName);
  if (record) return record;
  throw new ProContextError('INVALID_INPUT', `No API key has the id or name '${idOrName}'.`, {
    suggestion: 'Run pro-context-admin keys list to see the keys.',
  });
}

const keyRow = (k: ApiKeyRecord) => ({
  id: k.id,
  name: k.name,
  created: when(k.createdAt),
  lastUsed: when(k.lastUsedAt),
  status: k.revokedAt === null ? 'active' : `revoked ${when(k.revokedAt)}`,
  rateLimit: k.rateLimit ? `${k.rateLimit.maxRequestsPerMinute}/min burst ${k.rateLimit.burstSize}` : 'default',
});

function table(rows: Record<string, string>[]): string {
  if (rows.length === 0) return '';
  const columns = Object.keys(rows[0] as object);
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] as number))
      .join('  ')
      .trimEnd();
  return `${[line(columns), ...rows.map((r) => line(columns.map((c) => r[c] ?? '')))].join('\n')}\n`;
}

export function buildAdminProgram(): Command {
  const program = new Command('pro-context-admin')
    .description('Administer a pro-context team server: API keys, rate limits and usage per key.')
    .version(PRESET_VERSION, '-v, --version', 'print the version')
    .option(
      '-c, --config <file>',
      "the server's configuration file (default: PRO_CONTEXT_CONFIG, ./pro-context.config.yaml, ~/.pro-context/config.yaml)",
    )
    .option('--cache-dir <dir>', "the server's cache directory (default: cache.directory; env PRO_CONTEXT_CACHE_DIR)")
    .showHelpAfterError();

  const keys = program.command('keys').description('create, list and revoke API keys');
  keys
    .command('create')
    .description('create a key; it is printed once, now, and never again (only its SHA-256 hash is stored)')
    .requiredOption('-n, --name <name>', 'who or what uses the key (unique)')
    .option('--per-minute <n>', "this key's rate limit (default: rateLimit.maxRequestsPerMinute)", positiveInt)
    .option('--burst <n>', "this key's burst size (default: rateLimit.burstSize)", positiveInt)
    .option('--json', 'print { id, name, key } as JSON')
    .action((opts: { name: string; perMinute?: number; burst?: number; json?: boolean }) =>
      withStores(program, async ({ keys: store }) => {
        const { key, record } = await createApiKey(store, opts.name);
        if (opts.perMinute || opts.burst) {
          await store.setRateLimit(record.id, {
            maxRequestsPerMinute: opts.perMinute ?? 60,
            burstSize: opts.burst ?? 10,
          });
        }
        if (opts.json) process.stdout.write(`${JSON.stringify({ id: record.id, name: record.name, key })}\n`);
        else {
          process.stdout.write(`${key}\n`);
          process.stderr.write(
            `created API key ${record.id} '${record.name}'. Copy it now: it is not stored and cannot be shown again.\nClients send it as the header  Authorization: Bearer ${key.slice(0, 6)}…\n`,
          );
        }
      }),
    );
  keys
    .command('list')
    .description('list keys: id, name, created, last used, status, rate limit (never the key)')
    .option('--json', 'print JSON')
    .action((opts: { json?: boolean }) =>
      withStores(program, async ({ keys: store }) => {
        const all = await store.list();
        if (opts.json) process.stdout.write(`${JSON.stringify(all, null, 2)}\n`);
        else
          process.stdout.write(
            all.length === 0 ? 'no API keys yet: pro-context-admin keys create --name NAME\n' : table(all.map(keyRow)),
          );
      }),
    );
  keys
    .command('revoke')
    .description('revoke a key; the server refuses it from its next request on')
    .argument('<idOrName>', 'key id (key_…) or name')
    .action((idOrName: string) =>
      withStores(program, async ({ keys: store }) => {
        const record = await store.revoke((await findKey(store, idOrName)).id, Date.now());
        process.stdout.write(`revoked ${record?.id} '${record?.name}'\n`);
      }),
    );
  keys
    .command('limit')
    .description("set a key's own rate limit (token bucket), or --clear it to use the configured default")
    .argument('<idOrName>', 'key id (key_…) or name')
    .option('--per-minute <n>', 'refill rate, requests per minute', positiveInt)
    .option('--burst <n>', 'bucket size', positiveInt)
    .option('--clear', 'use rateLimit from the configuration again')
    .action((idOrName: string, opts: { perMinute?: number; burst?: number; clear?: boolean }) =>
      withStores(program, async ({ keys: store }) => {
        const key = await findKey(store, idOrName);
        if (!opts.clear && !opts.perMinute && !opts.burst)
          throw new ProContextError('INVALID_INPUT', 'Say --per-minute and/or --burst, or --clear.');
        const limit = opts.clear
          ? null
          : {
              maxRequestsPerMinute: opts.perMinute ?? key.rateLimit?.maxRequestsPerMinute ?? 60,
              burstSize: opts.burst ?? key.rateLimit?.burstSize ?? 10,
            };
        const record = (await store.setRateLimit(key.id, limit)) as ApiKeyRecord;
        process.stdout.write(`${record.id} '${record.name}': ${keyRow(record).rateLimit}\n`);
      }),
    );

  program
    .command('usage')
    .description('requests, tool calls by name, errors and last use, per key (a running server writes every 2 s)')
    .option('-k, --key <idOrName>', 'one key only')
    .option('--json', 'print JSON')
    .action((opts: { key?: string; json?: boolean }) =>
      withStores(program, async ({ keys: store, usage }) => {
        const all = await store.list();
        const chosen = opts.key ? [await findKey(store, opts.key)] : all;
        const summaries = await usage.summary(opts.key ? chosen[0]?.id : undefined);
        const rows = chosen.map((k) => {
          const s = summaries.find((x) => x.keyId === k.id);
          return {
            id: k.id,
            name: k.name,
            requests: s?.requests ?? 0,
            errors: s?.errors ?? 0,
            toolCalls: s?.toolCalls ?? {},
            lastUsed: when(s?.lastUsedAt ?? k.lastUsedAt),
          };
        });
        if (opts.json) {
          process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
          return;
        }
        process.stdout.write(
          table(
            rows.map((r) => ({
              id: r.id,
              name: r.name,
              requests: String(r.requests),
              errors: String(r.errors),
              'tool calls': Object.entries(r.toolCalls)
                .map(([tool, n]) => `${tool}=${n}`)
                .join(' '),
              'last used': r.lastUsed,
            })),
          ) || 'no API keys yet\n',
        );
      }),
    );
  return program;
}

await buildAdminProgram().parseAsync(process.argv);

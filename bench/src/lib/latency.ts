/**
 * Latency over the real stdio transport: the built `pro-context` CLI spawned with the MCP SDK client, as an
 * agent's host runs it. Round trips are timed with `client.request` (the SDK's `callTool` would add its own
 * output-schema validation to the client side of the clock).
 */
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type CallToolResult, CallToolResultSchema, ListToolsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { cliPath, errorCode } from './setup.js';

/** A stdio server spawned by the benchmark, with its clock and stderr. */
export interface TimedServer {
  client: Client;
  pid: number;
  /** `performance.now()` just before the spawn. */
  spawnedAt: number;
  /** Milliseconds from the spawn to the `initialize` answer. */
  initializeMs: number;
  /** stderr lines so far (JSON log records when the server logs JSON). */
  stderr: string[];
  /** One `tools/call`, retried while the library is still indexing; resolves with the answer and its round trip. */
  call(name: string, args: Record<string, unknown>): Promise<{ result: CallToolResult; ms: number }>;
  /** `tools/list`; resolves with its round trip. */
  listTools(): Promise<number>;
  close(): Promise<void>;
}

/**
 * Spawns `pro-context` (stdio) with a config file and connects; `env` adds to the SDK's default environment,
 * `nodeArgs` go before the script (e.g. `--cpu-prof`).
 */
export async function spawnTimed(
  configFile: string,
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<TimedServer> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...nodeArgs, cliPath],
    env: { ...getDefaultEnvironment(), PRO_CONTEXT_CONFIG: configFile, ...env },
    stderr: 'pipe',
  });
  const stderr: string[] = [];
  let partial = '';
  transport.stderr?.on('data', (data: Buffer) => {
    const lines = (partial + data.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    stderr.push(...lines.filter((l) => l.trim()));
  });
  const client = new Client({ name: 'pro-context-bench', version: '0.0.0' });
  const spawnedAt = performance.now();
  await client.connect(transport);
  const initializeMs = performance.now() - spawnedAt;
  const pid = transport.pid;
  if (pid === null) throw new Error('the stdio server has no pid');
  return {
    client,
    pid,
    spawnedAt,
    initializeMs,
    stderr,
    async call(name, args) {
      for (;;) {
        const started = performance.now();
        const result = (await client.request(
          { method: 'tools/call', params: { name, arguments: args } },
          CallToolResultSchema,
          {
            timeout: 120_000,
          },
        )) as CallToolResult;
        const ms = performance.now() - started;
        if (errorCode(result)?.code === 'INDEXING_IN_PROGRESS') {
          await new Promise((r) => setTimeout(r, 100));
          continue;
        }
        return { result, ms };
      }
    },
    async listTools() {
      const started = performance.now();
      await client.request({ method: 'tools/list' }, ListToolsResultSchema);
      return performance.now() - started;
    },
    close: () => client.close(),
  };
}

/** Peak and current resident set of a process, from /proc (Linux), in MB. */
export function memoryOf(pid: number): { peakRssMb: number; rssMb: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
    return { peakRssMb: kb('VmHWM') / 1024, rssMb: kb('VmRSS') / 1024 };
  } catch {
    return undefined;
  }
}

/** CPU time (user + system) the process has used so far, in ms (Linux; 10 ms ticks). */
export function cpuMsOf(pid: number): number | undefined {
  try {
    // fields after the command name, which is in parentheses and may hold spaces
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}

/** One span or log record from the server's JSON stderr. */
export interface LogRecord {
  time?: string;
  level?: string;
  msg?: string;
  span?: string;
  durationMs?: number;
  [field: string]: unknown;
}

/** The JSON log records among stderr lines. */
export function logRecords(lines: readonly string[]): LogRecord[] {
  const out: LogRecord[] = [];
  for (const line of lines) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line) as LogRecord);
    } catch {
      // a line that is not a log record (a stack trace, a warning)
    }
  }
  return out;
}

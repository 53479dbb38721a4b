/**
 * The client of the start-up section: spawns a stdio MCP server (`node client.js -- COMMAND ARG…`), connects with
 * the SDK's client (initialize), asks `tools/list`, closes and exits, printing one JSON line on stdout: the
 * milliseconds from just before the spawn to the initialize and tools/list answers, the tools listed and the
 * server's CPU time by then (/proc). The section times this whole process from outside (`src/lib/startup.ts`), as
 * an agent's host starts a server and waits for its tools.
 */
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/** CPU time (user + system) of a process so far, ms (Linux /proc; 10 ms ticks); undefined elsewhere. */
function cpuMsOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}

const dashes = process.argv.indexOf('--');
const [command, ...args] = dashes < 0 ? [] : process.argv.slice(dashes + 1);
if (!command) {
  process.stderr.write('usage: node client.js -- COMMAND [ARG…]\n');
  process.exit(2);
}
const transport = new StdioClientTransport({
  command,
  args,
  env: { ...getDefaultEnvironment(), ...process.env } as Record<string, string>,
  cwd: process.cwd(),
  stderr: 'ignore',
});
const client = new Client({ name: 'startup-bench', version: '0.0.0' });
const spawnedAt = performance.now();
await client.connect(transport);
const initializeMs = performance.now() - spawnedAt;
const { tools } = await client.listTools();
const toolsListMs = performance.now() - spawnedAt;
const serverCpuMs = transport.pid === null ? undefined : cpuMsOf(transport.pid);
await client.close();
process.stdout.write(`${JSON.stringify({ initializeMs, toolsListMs, tools: tools.length, serverCpuMs })}\n`);

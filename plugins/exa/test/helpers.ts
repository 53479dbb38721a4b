import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { StartedKernel } from '@pro-context/kernel';
import { createLogger } from '@pro-context/logging';
import { createMcpBinding } from '@pro-context/mcp';
import { createTestKernel, type FakeExa, MemoryCacheStore } from '@pro-context/testing';
import exaPlugin from '../src/index.js';

/** A key no redaction pattern recognises, so a leak shows up as written. */
export const EXA_KEY = 'exa-test-8c1f4b2a9d7e6f5a3b2c';

/** A kernel with the exa plugin on the fake, the real MCP binding, and the SDK's client connected in memory. */
export interface ExaServer {
  kernel: StartedKernel;
  client: Client;
  /** Every line the server's logger wrote (JSON), and every MCP message either side sent. */
  written: string[];
  /** The span records of the Exa tools. */
  spans(): Record<string, unknown>[];
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

export async function startExaServer(
  exa: FakeExa | undefined,
  options: {
    env?: Record<string, string | undefined>;
    config?: Record<string, unknown>;
    cache?: MemoryCacheStore;
    /** Extra HTTP client options (a DNS `lookup` for the fault suite). */
    httpOptions?: NonNullable<Parameters<typeof createTestKernel>[0]>['httpOptions'];
  } = {},
): Promise<ExaServer> {
  const written: string[] = [];
  const kernel = await createTestKernel({
    plugins: [exaPlugin],
    fakeCache: options.cache ?? new MemoryCacheStore(),
    env: options.env ?? { EXA_API_KEY: EXA_KEY, ...(exa ? { PRO_CONTEXT_EXA_URL: exa.url } : {}) },
    config: options.config ?? {},
    ...(options.httpOptions ? { httpOptions: options.httpOptions } : {}),
    logger: createLogger({ level: 'debug', stream: { write: (line: string) => written.push(line) } }),
  });
  const binding = createMcpBinding(kernel, { version: '0.0.0' });
  const bound = binding.createServer();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  for (const side of [clientSide, serverSide]) {
    const send = side.send.bind(side);
    side.send = (message, opts) => {
      written.push(JSON.stringify(message));
      return send(message, opts);
    };
  }
  const client = new Client({ name: 'agent', version: '0' });
  await Promise.all([bound.server.connect(serverSide), client.connect(clientSide)]);
  return {
    kernel,
    client,
    written,
    spans: () =>
      written
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((r) => 'level' in r && typeof r.span === 'string' && (r.span as string).startsWith('exa.')),
    call: (name, args) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>,
    async close() {
      await client.close();
      bound.dispose();
      await kernel.stop();
    },
  };
}

/** The text of a tool result. */
export const textOf = (result: CallToolResult): string =>
  result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

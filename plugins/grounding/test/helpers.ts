import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { StartedKernel } from '@pro-context/kernel';
import { createLogger } from '@pro-context/logging';
import { createMcpBinding } from '@pro-context/mcp';
import { createTestKernel, type FakeGemini, MemoryCacheStore } from '@pro-context/testing';
import groundingPlugin from '../src/index.js';

/** A key no redaction pattern recognises, so a leak shows up as written. */
export const GEMINI_KEY = 'gk-test-5f0c1d2e9a8b7c6d4e3f';

/** A kernel with the grounding plugin on the fake, the real MCP binding, and the SDK's client connected in memory. */
export interface GroundingServer {
  kernel: StartedKernel;
  client: Client;
  /** Every line the server's logger wrote (JSON), and every MCP message either side sent. */
  written: string[];
  /** The span records of the ground.* tools. */
  spans(): Record<string, unknown>[];
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

export async function startGroundingServer(
  gemini: FakeGemini | undefined,
  options: {
    env?: Record<string, string | undefined>;
    config?: Record<string, unknown>;
    cache?: MemoryCacheStore;
    /** Extra HTTP client options (a DNS `lookup` for the fault suite). */
    httpOptions?: NonNullable<Parameters<typeof createTestKernel>[0]>['httpOptions'];
  } = {},
): Promise<GroundingServer> {
  const written: string[] = [];
  const kernel = await createTestKernel({
    plugins: [groundingPlugin],
    fakeCache: options.cache ?? new MemoryCacheStore(),
    env: options.env ?? { OT_GEMINI_API_KEY: GEMINI_KEY, ...(gemini ? { PRO_CONTEXT_GEMINI_URL: gemini.url } : {}) },
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
        .filter((r) => 'level' in r && typeof r.span === 'string' && (r.span as string).startsWith('ground.')),
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

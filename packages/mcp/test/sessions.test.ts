import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { definePlugin, defineTool, type StartedKernel, toolPluginToken, z } from '@pro-context/kernel';
import { createLogger } from '@pro-context/logging';
import { createKernel } from '@pro-context/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpBinding } from '../src/index.js';

/** Logs what it was asked at info and debug, from the tool and from "the engine" (another logger). */
const lookup = defineTool({
  name: 'lookup',
  title: 'Lookup',
  description: 'Looks a library up.',
  inputSchema: z.object({ library: z.string() }),
  outputSchema: z.object({ found: z.boolean() }),
  async handler(args, context) {
    context.logger.info('looking up', { library: args.library });
    engineLogger?.debug('engine detail', { library: args.library });
    return { structured: { found: true }, text: 'found' };
  },
});

let engineLogger: StartedKernel['logger'] | undefined;
const kernels: StartedKernel[] = [];
afterEach(async () => {
  engineLogger = undefined;
  await Promise.all(kernels.splice(0).map((k) => k.stop()));
});

async function startKernel() {
  const stderr: string[] = [];
  const kernel = await createKernel({
    logger: createLogger({ level: 'info', stream: { write: (line: string) => stderr.push(line) } }),
  })
    .use(
      definePlugin({
        id: 'lookup',
        kernel: '*',
        register(ctx) {
          ctx.bindValue(toolPluginToken, { id: 'lookup', tools: () => [lookup as never] });
        },
      }),
    )
    .start();
  kernels.push(kernel);
  engineLogger = kernel.logger.child({ plugin: 'engine' });
  return { kernel, stderr };
}

type LogData = { msg: string; library?: string; sessionId?: string };

async function session(binding: ReturnType<typeof createMcpBinding>, transportSessionId?: string) {
  const bound = binding.createServer();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  // a transport with sessions (Streamable HTTP) names the session itself; stdio and in-memory ones do not
  if (transportSessionId) serverSide.sessionId = transportSessionId;
  const client = new Client({ name: 'agent', version: '0' });
  const logs: { level: string; data: LogData }[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logs.push({ level: n.params.level, data: n.params.data as LogData });
  });
  await Promise.all([bound.server.connect(serverSide), client.connect(clientSide)]);
  const msgs = () => logs.map((l) => `${l.data.msg}${l.data.library ? ` ${l.data.library}` : ''}`);
  return { bound, client, logs, msgs };
}

/** Lets notifications already sent over the in-memory transports arrive. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('createMcpBinding: many sessions on one kernel', () => {
  it("routes each session its own calls' log records and server-wide ones, never the other's", async () => {
    const { kernel } = await startKernel();
    const binding = createMcpBinding(kernel, { version: '1' });
    const alice = await session(binding, 'alice-session');
    const bob = await session(binding);
    // until a client sets its level it gets `warning` and above (#15): both ask for `info`
    await Promise.all([alice.client.setLoggingLevel('info'), bob.client.setLoggingLevel('info')]);

    await Promise.all([
      alice.client.callTool({ name: 'lookup', arguments: { library: 'secret-lib-of-alice' } }),
      bob.client.callTool({ name: 'lookup', arguments: { library: 'private-lib-of-bob' } }),
    ]);
    kernel.logger.warn('cache almost full');
    await settle();

    expect(alice.msgs()).toEqual(['looking up secret-lib-of-alice', 'cache almost full']);
    expect(bob.msgs()).toEqual(['looking up private-lib-of-bob', 'cache almost full']);
    // the transport's session id when it has one; a minted one otherwise
    expect(alice.logs[0]?.data.sessionId).toBe('alice-session');
    expect(bob.logs[0]?.data.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(alice.logs[1]?.data.sessionId).toBeUndefined();
  });

  it('sends a session only warning and above until it sets a level (#15)', async () => {
    const { kernel } = await startKernel();
    const binding = createMcpBinding(kernel, { version: '1' });
    const quiet = await session(binding);
    await quiet.client.callTool({ name: 'lookup', arguments: { library: 'some-lib' } });
    kernel.logger.warn('cache almost full');
    await settle();
    expect(quiet.msgs()).toEqual(['cache almost full']);
  });

  it("gives each session its own level: one at debug gets its own debug records, not the other's, stderr unchanged", async () => {
    const { kernel, stderr } = await startKernel();
    const binding = createMcpBinding(kernel, { version: '1' });
    const alice = await session(binding);
    const bob = await session(binding);
    await alice.client.setLoggingLevel('debug');
    await bob.client.setLoggingLevel('error');

    await alice.client.callTool({ name: 'lookup', arguments: { library: 'a-lib' } });
    await bob.client.callTool({ name: 'lookup', arguments: { library: 'b-lib' } });
    kernel.logger.debug('server detail');
    kernel.logger.warn('server warning');
    kernel.logger.error('server failure');
    await settle();

    expect(alice.msgs()).toEqual([
      'looking up a-lib',
      'engine detail a-lib',
      'server detail',
      'server warning',
      'server failure',
    ]);
    expect(alice.logs.map((l) => l.level)).toEqual(['info', 'debug', 'debug', 'warning', 'error']);
    expect(bob.msgs()).toEqual(['server failure']);
    // stderr keeps the configured level (info): no debug line, though a session listens at debug
    const written = stderr.map((line) => JSON.parse(line) as { level: string; msg: string });
    expect(written.filter((r) => r.level === 'debug')).toEqual([]);
    expect(written.map((r) => r.msg)).toEqual(
      expect.arrayContaining(['looking up', 'server warning', 'server failure']),
    );
    expect(kernel.logger.level).toBe('info');

    // MCP levels between the kernel's: notice lets warnings through, not info
    await bob.client.setLoggingLevel('notice');
    await bob.client.callTool({ name: 'lookup', arguments: { library: 'b-lib' } });
    kernel.logger.warn('second warning');
    await settle();
    expect(bob.msgs()).toEqual(['server failure', 'second warning']);
  });

  it('stops forwarding to a session once its transport closes, the others carrying on', async () => {
    const { kernel } = await startKernel();
    const binding = createMcpBinding(kernel, { version: '1' });
    const alice = await session(binding);
    const bob = await session(binding);
    await alice.client.close();
    kernel.logger.warn('after alice left');
    await settle();
    expect(alice.msgs()).toEqual([]);
    expect(bob.msgs()).toEqual(['after alice left']);
  });

  it('forwards nothing before the client says initialized', async () => {
    const { kernel } = await startKernel();
    const { server } = createMcpBinding(kernel, { version: '1' }).createServer();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const received: JSONRPCMessage[] = [];
    clientSide.onmessage = (message) => void received.push(message);
    await clientSide.start();
    await server.connect(serverSide);
    await clientSide.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    });
    kernel.logger.warn('too early');
    await settle();
    expect(received.map((m) => ('method' in m ? m.method : 'response'))).toEqual(['response']);
    await clientSide.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    kernel.logger.warn('in time');
    await settle();
    expect(received.slice(1)).toEqual([
      expect.objectContaining({
        method: 'notifications/message',
        params: expect.objectContaining({ level: 'warning', data: expect.objectContaining({ msg: 'in time' }) }),
      }),
    ]);
  });

  it('checks tool names once, when the binding is made, not per session', async () => {
    const { kernel } = await startKernel();
    const binding = createMcpBinding(kernel, { version: '1' });
    const [one, two] = [binding.createServer(), binding.createServer()];
    expect(one.server).not.toBe(two.server);
    expect(binding.runner.tools.map((t) => t.name)).toEqual(['lookup']);
    const alice = await session(binding);
    expect((await alice.client.listTools()).tools.map((t) => t.name)).toEqual(['lookup']);
  });
});

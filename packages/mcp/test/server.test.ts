import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  type CallToolResult,
  CallToolResultSchema,
  LoggingMessageNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import {
  definePlugin,
  defineTool,
  ProContextError,
  type StartedKernel,
  type ToolPlugin,
  toolPluginToken,
  z,
} from '@pro-context/kernel';
import { createLogger, createSilentLogger } from '@pro-context/logging';
import { createKernel } from '@pro-context/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpBinding, createMcpServer } from '../src/index.js';

const echo = defineTool({
  name: 'echo',
  title: 'Echo',
  description: 'Echoes a word.',
  inputSchema: z.object({ word: z.string().min(1).max(10), times: z.number().int().min(1).max(3).default(1) }),
  outputSchema: z.object({ said: z.string() }),
  annotations: { readOnlyHint: true },
  async handler(args, context) {
    if (args.word === 'boom') throw new Error('secret internals: db password');
    if (args.word === 'missing')
      throw new ProContextError('LIBRARY_NOT_FOUND', 'No library missing.', { suggestion: "Did you mean 'mission'?" });
    if (args.word === 'bad') return { structured: { said: 42 as unknown as string }, text: 'bad' };
    await context.progress({ progress: 1, total: 1, message: 'echoing' });
    context.logger.info('echoed', { word: args.word });
    return { structured: { said: args.word.repeat(args.times) }, text: args.word.repeat(args.times) };
  },
});

function toolPlugin(id: string, plugin: Partial<ToolPlugin> = {}) {
  return definePlugin({
    id,
    kernel: '*',
    register(ctx) {
      ctx.bindValue(toolPluginToken, { id, tools: () => [echo as never], ...plugin });
    },
  });
}

const kernels: StartedKernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((k) => k.stop()));
});

async function connect(...plugins: ReturnType<typeof toolPlugin>[]) {
  // info level (as in production), written nowhere: the MCP sink is what is under test
  const builder = createKernel({ logger: createLogger({ level: 'info', stream: { write: () => true } }) });
  for (const p of plugins) builder.use(p);
  const kernel = await builder.start();
  kernels.push(kernel);
  const bound = createMcpServer(kernel, { version: '1.2.3' });
  const client = new Client({ name: 't', version: '0' });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([bound.server.connect(b), client.connect(a)]);
  const call = async (name: string, args: Record<string, unknown>, options = {}): Promise<CallToolResult> =>
    (await client.callTool({ name, arguments: args }, CallToolResultSchema, options)) as CallToolResult;
  return { kernel, client, call, bound };
}

const payload = (result: { content: unknown[] }) => JSON.parse((result.content[0] as { text: string }).text);

describe('createMcpServer', () => {
  it('lists tools with JSON Schemas built from the zod schemas', async () => {
    const { client } = await connect(toolPlugin('a'));
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(1);
    expect(tools[0]?.inputSchema).toMatchObject({
      type: 'object',
      required: ['word'],
      properties: { word: { type: 'string', maxLength: 10 }, times: { default: 1, maximum: 3 } },
    });
    expect(tools[0]?.outputSchema?.required).toEqual(['said']);
    expect(tools[0]?.annotations).toMatchObject({ readOnlyHint: true, title: 'Echo' });
  });

  it('returns structured content and text, with progress only when asked and logs over MCP', async () => {
    const { client, call } = await connect(toolPlugin('a'));
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
    // until a client sets its level it gets `warning` and above (#15); this one asks for `info`
    await client.setLoggingLevel('info');
    const progress: unknown[] = [];
    const result = await call('echo', { word: 'hi', times: 2 }, { onprogress: (p: unknown) => progress.push(p) });
    expect(result.structuredContent).toEqual({ said: 'hihi' });
    expect(result.content).toEqual([{ type: 'text', text: 'hihi' }]);
    expect(progress).toEqual([{ progress: 1, total: 1, message: 'echoing' }]);
    await expect.poll(() => logs.length).toBeGreaterThan(0);
    expect(logs).toContainEqual(
      expect.objectContaining({ level: 'info', data: expect.objectContaining({ msg: 'echoed' }) }),
    );
  });

  it("tells the session's onToolReuse of a tool's reuse with the request id, and sends the client none of it", async () => {
    const reusing = defineTool({
      ...echo,
      name: 'reusing',
      async handler(args) {
        return args.word === 'again'
          ? { structured: { said: 'again' }, text: 'again', reuse: { revision: 3, until: 9_000 } }
          : { structured: { said: args.word }, text: args.word };
      },
    });
    const builder = createKernel({ logger: createSilentLogger() }).use(
      toolPlugin('a', { tools: () => [reusing as never] }),
    );
    const kernel = await builder.start();
    kernels.push(kernel);
    const told: unknown[] = [];
    const bound = createMcpBinding(kernel, { version: '1' }).createServer({
      onToolReuse: (requestId, tool, reuse) => void told.push({ requestId, tool, reuse }),
    });
    const client = new Client({ name: 't', version: '0' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    const sent: unknown[] = [];
    await Promise.all([bound.server.connect(b), client.connect(a)]);
    const send = b.send.bind(b);
    b.send = (message, options) => {
      sent.push(message);
      return send(message, options);
    };
    const result = await client.callTool({ name: 'reusing', arguments: { word: 'again' } });
    await client.callTool({ name: 'reusing', arguments: { word: 'once' } });
    expect(result.structuredContent).toEqual({ said: 'again' });
    expect(told).toEqual([{ requestId: expect.anything(), tool: 'reusing', reuse: { revision: 3, until: 9_000 } }]);
    const answered = sent.find((m) => (m as { id?: unknown }).id === (told[0] as { requestId: unknown }).requestId);
    expect(answered).toMatchObject({ result: { structuredContent: { said: 'again' } } });
    expect(JSON.stringify(sent)).not.toContain('9000');
  });

  it('turns bad arguments into INVALID_INPUT naming the argument', async () => {
    const { call } = await connect(toolPlugin('a'));
    const result = await call('echo', { word: 'far too long a word', times: 9 });
    expect(result.isError).toBe(true);
    const error = payload(result);
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toMatch(/word: Too big/);
    expect(error.message).toMatch(/times: Too big/);
  });

  it('passes catalog errors through and hides unexpected ones behind INTERNAL_ERROR', async () => {
    const { call } = await connect(toolPlugin('a'));
    expect(payload(await call('echo', { word: 'missing' }))).toEqual({
      code: 'LIBRARY_NOT_FOUND',
      message: 'No library missing.',
      recoverable: true,
      suggestion: "Did you mean 'mission'?",
    });
    const internal = payload(await call('echo', { word: 'boom' }));
    expect(internal.code).toBe('INTERNAL_ERROR');
    expect(JSON.stringify(internal)).not.toContain('password');
    expect(payload(await call('echo', { word: 'bad' })).code).toBe('INTERNAL_ERROR');
    const unknown = payload(await call('nope', {}));
    expect(unknown).toMatchObject({ code: 'INVALID_INPUT', suggestion: 'Available tools: echo.' });
  });

  it('refuses two plugins contributing the same tool name', async () => {
    const builder = createKernel({ logger: createSilentLogger() }).use(toolPlugin('a')).use(toolPlugin('b'));
    const kernel = await builder.start();
    kernels.push(kernel);
    expect(() => createMcpServer(kernel, { version: '1' })).toThrow(
      "Tool 'echo' is contributed by plugin 'a' and by plugin 'b'.",
    );
  });

  it('announces resource list changes from the kernel event bus until disposed', async () => {
    const { client, kernel, bound } = await connect(
      toolPlugin('a', {
        resourceTemplates: () => [
          {
            name: 'thing',
            uriTemplate: 'thing://{+id}/page',
            mimeType: 'text/markdown',
            list: async () => [{ uri: 'thing://a/b/page', name: 'a/b' }],
            read: async (_uri, vars) => {
              if (vars.id === 'missing') throw new ProContextError('LIBRARY_NOT_FOUND', 'No thing missing.');
              return { text: `# ${vars.id}` };
            },
          },
        ],
      }),
    );
    let changed = 0;
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      changed += 1;
    });
    kernel.events.emit('resources.changed', { reason: 'test' });
    await expect.poll(() => changed).toBe(1);
    const read = await client.readResource({ uri: 'thing://a/b/page' });
    expect((read.contents[0] as { text: string }).text).toBe('# a/b');
    await expect(client.readResource({ uri: 'thing://missing/page' })).rejects.toThrow(
      /LIBRARY_NOT_FOUND: No thing missing\./,
    );
    // MCP's resource-not-found code, with the catalog payload as data
    await expect(client.readResource({ uri: 'thing://missing/page' })).rejects.toMatchObject({
      code: -32002,
      data: { code: 'LIBRARY_NOT_FOUND', message: 'No thing missing.' },
    });
    bound.dispose();
    kernel.events.emit('resources.changed', { reason: 'after dispose' });
    await new Promise((r) => setTimeout(r, 20));
    expect(changed).toBe(1);
  });

  it('tells a session its subscribed resources may have changed, and stops after unsubscribe', async () => {
    const { client, kernel } = await connect(
      toolPlugin('a', {
        resources: () => [
          { name: 'health', uri: 'x://health', mimeType: 'application/json', read: async () => ({ text: '{}' }) },
          { name: 'other', uri: 'x://other', mimeType: 'text/plain', read: async () => ({ text: 'o' }) },
        ],
      }),
    );
    expect(client.getServerCapabilities()?.resources).toMatchObject({ subscribe: true, listChanged: true });
    const updated: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updated.push(n.params.uri);
    });
    await client.subscribeResource({ uri: 'x://health' });
    kernel.events.emit('resources.changed', { reason: 'resolved lib' });
    await expect.poll(() => updated).toEqual(['x://health']);
    await client.unsubscribeResource({ uri: 'x://health' });
    kernel.events.emit('resources.changed', { reason: 'resolved another' });
    await new Promise((r) => setTimeout(r, 20));
    expect(updated).toEqual(['x://health']);
  });

  it("completes prompt arguments with the prompt's completer, optional ones too", async () => {
    const { client } = await connect(
      toolPlugin('a', {
        prompts: () => [
          {
            name: 'ask',
            description: 'Ask about a library.',
            arguments: {
              libraryId: { description: 'Library', required: true },
              topic: { description: 'Topic', required: false },
            },
            render: (args) => `about ${args.libraryId}`,
            complete: {
              libraryId: (prefix) => ['fastapi', 'flask', 'pydantic'].filter((id) => id.startsWith(prefix)),
              topic: async (prefix) => [`${prefix}routing`],
            },
          },
        ],
      }),
    );
    const ids = await client.complete({
      ref: { type: 'ref/prompt', name: 'ask' },
      argument: { name: 'libraryId', value: 'f' },
    });
    expect(ids.completion.values).toEqual(['fastapi', 'flask']);
    const topics = await client.complete({
      ref: { type: 'ref/prompt', name: 'ask' },
      argument: { name: 'topic', value: 'r' },
    });
    expect(topics.completion.values).toEqual(['rrouting']);
    const prompt = await client.getPrompt({ name: 'ask', arguments: { libraryId: 'flask' } });
    expect(prompt.messages[0]?.content).toMatchObject({ type: 'text', text: 'about flask' });
  });
});

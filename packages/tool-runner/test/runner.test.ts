import {
  definePlugin,
  defineTool,
  type LogRecord,
  ProContextError,
  type StartedKernel,
  type ToolContext,
  type ToolDefinition,
  toolPluginToken,
  z,
} from '@pro-context/kernel';
import { createLogger } from '@pro-context/logging';
import { createKernel } from '@pro-context/runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { createToolRunner, type ToolOutcome } from '../src/index.js';

let seenContext: ToolContext | undefined;

const echo = defineTool({
  name: 'echo',
  title: 'Echo',
  description: 'Echoes a word.',
  inputSchema: z.object({ word: z.string().min(1).max(10), times: z.number().int().min(1).max(3).default(1) }),
  outputSchema: z.object({ said: z.string() }),
  annotations: { readOnlyHint: true },
  async handler(args, context) {
    seenContext = context;
    if (args.word === 'boom') throw new Error('secret internals: db password');
    if (args.word === 'missing')
      throw new ProContextError('LIBRARY_NOT_FOUND', 'No library missing.', { suggestion: "Did you mean 'mission'?" });
    if (args.word === 'bad') return { structured: { said: 42 as unknown as string }, text: 'bad' };
    if (args.word === 'later') setTimeout(() => context.logger.info('background work done'), 5);
    await context.progress({ progress: 1, total: 1, message: 'echoing' });
    context.logger.info('echoed', { word: args.word });
    return { structured: { said: args.word.repeat(args.times) }, text: args.word.repeat(args.times) };
  },
});

/** A tool that chooses its own error text, as seed 000 prescribes for a missing API key. */
const search = defineTool({
  name: 'search',
  title: 'Search',
  description: 'Needs a key.',
  inputSchema: z.object({ query: z.string() }),
  outputSchema: z.object({ hits: z.number() }),
  async handler() {
    throw new ProContextError('AUTH_REQUIRED', 'CONTEXT7_API_KEY is not set.');
  },
  renderError: (error) =>
    error.code === 'AUTH_REQUIRED' ? '[Context7 API key not configured]' : `Error: ${error.message}`,
});

function toolPlugin(id: string, tools: ToolDefinition[]) {
  return definePlugin({
    id,
    kernel: '*',
    register(ctx) {
      ctx.bindValue(toolPluginToken, { id, tools: () => tools });
    },
  });
}

const kernels: StartedKernel[] = [];
afterEach(async () => {
  seenContext = undefined;
  await Promise.all(kernels.splice(0).map((k) => k.stop()));
});

async function start(...plugins: ReturnType<typeof toolPlugin>[]) {
  const records: LogRecord[] = [];
  const builder = createKernel({ logger: createLogger({ level: 'info', stream: { write: () => true } }) });
  for (const p of plugins) builder.use(p);
  const kernel = await builder.start();
  kernels.push(kernel);
  kernel.logger.addSink((record) => records.push(record));
  return { kernel, records };
}

const failed = (outcome: ToolOutcome) => {
  if (outcome.ok) throw new Error(`expected a failure, got ${outcome.text}`);
  return { error: outcome.error, payload: JSON.parse(outcome.text) as Record<string, unknown> };
};

describe('createToolRunner', () => {
  it('lists every tool with JSON Schemas of its arguments and result and its annotations', async () => {
    const { kernel } = await start(toolPlugin('a', [echo as never]), toolPlugin('b', [search as never]));
    const runner = createToolRunner(kernel);
    expect(runner.tools.map((t) => t.name)).toEqual(['echo', 'search']);
    const [listed] = runner.tools;
    expect(listed?.inputSchema).toMatchObject({
      type: 'object',
      required: ['word'],
      properties: { word: { type: 'string', maxLength: 10 }, times: { default: 1, maximum: 3 } },
    });
    expect(listed?.outputSchema.required).toEqual(['said']);
    expect(listed?.annotations).toEqual({ title: 'Echo', readOnlyHint: true });
    expect(runner.tools[1]).not.toHaveProperty('annotations');
    expect(runner.definition('search')).toBe(search);
  });

  it('runs a tool with its defaults applied, its progress forwarded and its output checked', async () => {
    const { kernel } = await start(toolPlugin('a', [echo as never]));
    const progress: unknown[] = [];
    const outcome = await createToolRunner(kernel).call(
      'echo',
      { word: 'hi', times: 2 },
      { progress: (update) => void progress.push(update) },
    );
    expect(outcome).toEqual({ ok: true, structured: { said: 'hihi' }, text: 'hihi' });
    expect(progress).toEqual([{ progress: 1, total: 1, message: 'echoing' }]);
    expect(seenContext?.signal.aborted).toBe(false);
    expect(seenContext?.sessionId).toBeUndefined();
    // a surface without progress (or whose progress fails) still gets the answer
    const failing = await createToolRunner(kernel).call(
      'echo',
      { word: 'ok' },
      {
        progress: () => {
          throw new Error('client gone');
        },
      },
    );
    expect(failing).toMatchObject({ ok: true, structured: { said: 'ok' } });
  });

  it('hands the tool the signal, session and caller, and tags every record of the call with the session', async () => {
    const { kernel, records } = await start(toolPlugin('a', [echo as never]));
    const controller = new AbortController();
    await createToolRunner(kernel).call(
      'echo',
      { word: 'later' },
      { signal: controller.signal, sessionId: 's-1', caller: { clientId: 'key-1', scopes: ['docs'] } },
    );
    expect(seenContext?.signal).toBe(controller.signal);
    expect(seenContext?.sessionId).toBe('s-1');
    expect(seenContext?.caller).toEqual({ clientId: 'key-1', scopes: ['docs'] });
    expect(records).toContainEqual(expect.objectContaining({ msg: 'echoed', tool: 'echo', sessionId: 's-1' }));
    // work the call started, finishing after it returned, stays attributed to its session
    await expect.poll(() => records.find((r) => r.msg === 'background work done')?.sessionId).toBe('s-1');
  });

  it("passes a tool's reuse on as data in its outcome (revision and until), and nothing of a reusable closure", async () => {
    const reusing = defineTool({
      ...echo,
      name: 'reusing',
      async handler(args) {
        const closure = { reusable: () => true };
        return args.word === 'again'
          ? { structured: { said: 'again' }, text: 'again', reuse: { revision: 7, until: 1_000 }, ...closure }
          : { structured: { said: args.word }, text: args.word };
      },
    });
    const { kernel } = await start(toolPlugin('a', [reusing as never]));
    const runner = createToolRunner(kernel);
    const reused = await runner.call('reusing', { word: 'again' });
    expect(reused).toEqual({
      ok: true,
      structured: { said: 'again' },
      text: 'again',
      reuse: { revision: 7, until: 1_000 },
    });
    expect(await runner.call('reusing', { word: 'once' })).toEqual({
      ok: true,
      structured: { said: 'once' },
      text: 'once',
    });
  });

  it('refuses bad arguments with INVALID_INPUT naming each one', async () => {
    const { kernel } = await start(toolPlugin('a', [echo as never]));
    const { error, payload } = failed(
      await createToolRunner(kernel).call('echo', { word: 'far too long a word', times: 9 }),
    );
    expect(error.code).toBe('INVALID_INPUT');
    expect(payload.message).toBe(
      'Invalid arguments for echo: word: Too big: expected string to have <=10 characters; times: Too big: expected number to be <=3.',
    );
    expect(payload.details).toEqual({
      issues: [
        { path: 'word', message: 'Too big: expected string to have <=10 characters' },
        { path: 'times', message: 'Too big: expected number to be <=3' },
      ],
    });
    expect(seenContext).toBeUndefined();
    expect(failed(await createToolRunner(kernel).call('echo', undefined)).payload.message).toBe(
      'Invalid arguments for echo: word: Invalid input: expected string, received undefined.',
    );
  });

  it('logs a call its client cancelled as cancelled, not as a failure of the server', async () => {
    const { kernel, records } = await start(toolPlugin('a', [echo as never]));
    const runner = createToolRunner(kernel);
    const controller = new AbortController();
    controller.abort(new Error('the client moved on'));
    // the tool fails because its call was cancelled (here: it throws what an aborted fetch would)
    const outcome = await runner.call('echo', { word: 'boom' }, { signal: controller.signal });
    expect(outcome.ok).toBe(false);
    expect(records.filter((r) => r.level === 'error')).toEqual([]);
    // with why, not the tool's error as seen from inside ("An unexpected error occurred.")
    expect(records).toContainEqual(
      expect.objectContaining({
        level: 'info',
        msg: 'tool call cancelled',
        tool: 'echo',
        reason: 'the client moved on',
      }),
    );
  });

  it('passes catalog errors through, hides unexpected ones behind INTERNAL_ERROR and logs them', async () => {
    const { kernel, records } = await start(toolPlugin('a', [echo as never]));
    const runner = createToolRunner(kernel);
    expect(failed(await runner.call('echo', { word: 'missing' })).payload).toEqual({
      code: 'LIBRARY_NOT_FOUND',
      message: 'No library missing.',
      recoverable: true,
      suggestion: "Did you mean 'mission'?",
    });
    const internal = failed(await runner.call('echo', { word: 'boom' }));
    expect(internal.payload.code).toBe('INTERNAL_ERROR');
    expect(JSON.stringify(internal.payload)).not.toContain('password');
    expect((internal.error.cause as Error).message).toBe('secret internals: db password');
    expect(records).toContainEqual(expect.objectContaining({ level: 'error', msg: 'tool failed', tool: 'echo' }));
    expect(failed(await runner.call('nope', {})).payload).toMatchObject({
      code: 'INVALID_INPUT',
      message: "Unknown tool 'nope'.",
      suggestion: 'Available tools: echo.',
    });
  });

  it('refuses a result that breaks the output schema, logging why', async () => {
    const { kernel, records } = await start(toolPlugin('a', [echo as never]));
    const { payload } = failed(await createToolRunner(kernel).call('echo', { word: 'bad' }));
    expect(payload).toMatchObject({ code: 'INTERNAL_ERROR', message: 'echo produced an invalid result.' });
    expect(records).toContainEqual(
      expect.objectContaining({
        level: 'error',
        msg: 'tool returned content that breaks its output schema',
        issues: 'said: Invalid input: expected string, received number',
      }),
    );
  });

  it("renders a tool's errors with its own text when it chooses one, refused arguments included", async () => {
    const { kernel } = await start(toolPlugin('a', [search as never]));
    const runner = createToolRunner(kernel);
    const outcome = await runner.call('search', { query: 'react' });
    expect(outcome).toMatchObject({ ok: false, text: '[Context7 API key not configured]' });
    expect(outcome.ok || outcome.error.code).toBe('AUTH_REQUIRED');
    expect(await runner.call('search', {})).toMatchObject({
      ok: false,
      text: 'Error: Invalid arguments for search: query: Invalid input: expected string, received undefined.',
    });
  });

  it('falls back to the JSON payload when a tool fails to render its error', async () => {
    const broken = { ...search, name: 'broken', renderError: () => JSON.parse('{') as string };
    const { kernel, records } = await start(toolPlugin('a', [broken as never]));
    const { payload } = failed(await createToolRunner(kernel).call('broken', { query: 'x' }));
    expect(payload).toMatchObject({ code: 'AUTH_REQUIRED', message: 'CONTEXT7_API_KEY is not set.' });
    expect(records).toContainEqual(expect.objectContaining({ msg: 'tool failed to render its error' }));
  });

  it('refuses two plugins contributing the same tool name, once, at creation', async () => {
    const { kernel } = await start(toolPlugin('a', [echo as never]), toolPlugin('b', [echo as never]));
    expect(() => createToolRunner(kernel)).toThrow(
      expect.objectContaining({
        code: 'CONTRACT_CONFLICT',
        message: "Tool 'echo' is contributed by plugin 'a' and by plugin 'b'.",
      }),
    );
  });

  it("refuses a tool name breaking MCP's naming rule", async () => {
    const { kernel } = await start(toolPlugin('a', [{ ...echo, name: 'echo words' } as never]));
    expect(() => createToolRunner(kernel)).toThrow(
      expect.objectContaining({
        code: 'PLUGIN_INVALID',
        message: "Tool name 'echo words' of plugin 'a' breaks MCP's naming rules.",
      }),
    );
  });
});

describe('secrets in answers (issue #25.5)', () => {
  const source = 'https://alice:pa55word-x@docs.example.com/llms.txt?token=t0ken-value&page=2';
  const shown = 'https://[REDACTED]@docs.example.com/llms.txt?token=[REDACTED]&page=2';
  const leaky = defineTool({
    name: 'leaky',
    title: 'Leaky',
    description: 'Shows its source URL.',
    inputSchema: z.object({ fail: z.boolean().default(false) }),
    outputSchema: z.object({ source: z.string(), notes: z.array(z.string()) }),
    async handler(args) {
      if (args.fail) throw new ProContextError('SOURCE_UNAVAILABLE', `${source} answered HTTP 500.`);
      return {
        structured: { source, notes: [`Fetched ${source}; example key sk-abcdefghijklmnopqrstuvwx`] },
        text: `Source: ${source}\nExample: \`Authorization: Bearer sk-abcdefghijklmnopqrstuvwx\``,
      };
    },
  });
  const plain = defineTool({
    ...leaky,
    name: 'plain',
    renderError: (error) => `Error: ${error.message}`,
  });

  it('masks URL credentials and secret query parameters in the text and structured content of an answer', async () => {
    const { kernel } = await start(toolPlugin('a', [leaky as never]));
    const outcome = await createToolRunner(kernel).call('leaky', {});
    if (!outcome.ok) throw new Error(outcome.text);
    expect(outcome.text).toBe(`Source: ${shown}\nExample: \`Authorization: Bearer sk-abcdefghijklmnopqrstuvwx\``);
    expect(outcome.structured).toEqual({
      source: shown,
      notes: [`Fetched ${shown}; example key sk-abcdefghijklmnopqrstuvwx`],
    });
  });

  it('masks them in error texts, the JSON payload and a tool’s own rendering', async () => {
    const { kernel } = await start(toolPlugin('a', [leaky as never, plain as never]));
    const runner = createToolRunner(kernel);
    const { payload } = failed(await runner.call('leaky', { fail: true }));
    expect(payload.message).toBe(`${shown} answered HTTP 500.`);
    const own = await runner.call('plain', { fail: true });
    expect(own.ok).toBe(false);
    expect(own.text).toBe(`Error: ${shown} answered HTTP 500.`);
  });
});

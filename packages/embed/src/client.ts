import {
  type AnyPlugin,
  type DocsFallback,
  docsFallbackToken,
  estimateTokens,
  type Logger,
  ProContextError,
  type StartedKernel,
  type ToolContext,
  type ToolDefinition,
  toProContextError,
} from '@pro-context/kernel';
import { createSilentLogger } from '@pro-context/logging';
import { type DocumentationToolName, DocumentationTools, type EngineToolCaller } from '@pro-context/plugin-context7';
import { createToolRunner, invalidArgumentsError, jsonSchemaOf, type ToolRunner } from '@pro-context/tool-runner';
import { parseToolUse } from './parse.js';

/** What {@link ToolClient.executeTool} answers (seed 004 §1.2); it never throws. */
export interface ToolResult {
  success: boolean;
  /** The tool's structured result (its output schema), on success. */
  data?: unknown;
  /** What went wrong, on failure: the tool's own message. */
  error?: string;
  /**
   * `tool`, `durationMs`; `text` (the markdown rendering the servers send, or the error text they send);
   * on failure `code`, `recoverable`, `suggestion`, `retryAfter`; for the documentation tools `source`
   * (`local` or `context7`) and, when Context7 answered, `reason` (why the docs engine did not).
   */
  metadata?: Record<string, unknown>;
}

/** One tool as {@link ToolClient.describeTools} lists it. */
export interface ToolDescription {
  name: string;
  description: string;
  /** JSON Schema of the parameters. */
  parameters: Record<string, unknown>;
}

/** The tools seed 004 names, offered by default (those installed): documentation (Context7) and web search (Exa). */
export const SEED_TOOLS = ['search_documentation', 'resolve_library', 'web_search', 'find_similar_content'] as const;

/** What {@link ToolClientOptions.compose} receives: the `start` options, with the seed's plugins and a logger. */
export interface ComposeOptions {
  plugins?: AnyPlugin[];
  logger?: Logger;
}

/**
 * Starts a kernel from options: the pro-context preset's `startProContext` (exported by the `pro-context` package) or any
 * function of the same shape. The embed host does not import the preset: its caller
 * passes it (the preset passes its own defaults).
 */
export type KernelComposer<S extends ComposeOptions | undefined = ComposeOptions> = (
  options: S,
) => Promise<StartedKernel>;

/** Options of {@link createToolClient}. */
export interface ToolClientOptions<S extends ComposeOptions | undefined = ComposeOptions> {
  /** A started kernel whose tools to offer (the client does not stop it). Give this or `compose`. */
  kernel?: StartedKernel;
  /**
   * Starts the kernel when `kernel` is not given (the preset's `startProContext`); `close` stops it. Called with
   * `start`, the context7 and exa plugins added (seed 004's tools; keys from `CONTEXT7_API_KEY` and
   * `EXA_API_KEY`) unless `start.plugins` names plugins of those ids, and a silent logger unless `start.logger`
   * is given.
   */
  compose?: KernelComposer<S>;
  /** Options of `compose` (for the preset: config file, overrides, extra plugins…). */
  start?: NoInfer<S>;
  /**
   * Which tools to offer: `'seed'` (default) the tools seed 004 names that are installed —
   * `search_documentation`, `resolve_library`, `web_search`, `find_similar_content`; `'all'` every tool of the
   * kernel besides (the docs engine's `resolve-library`, `get-docs`…, other plugins'); or a list of names.
   */
  tools?: 'seed' | 'all' | readonly string[];
  /**
   * Where `search_documentation` and `resolve_library` turn when the docs engine does not know a library or
   * cannot fetch its docs. Default: the kernel's `docsFallbackToken` binding (Context7, when a Context7 plugin
   * is enabled).
   */
  fallback?: DocsFallback;
  /**
   * What `executeToolFromResponse` feeds back after `TOOL_RESULT for <tool>:`: `'json'` (default) the result's
   * data as `JSON.stringify(data, null, 2)`, as seed 004 does; `'markdown'` the text the MCP servers send.
   */
  resultFormat?: 'json' | 'markdown';
}

/** The in-process tool client (seed 004 §1.5, §2.3). */
export interface ToolClient {
  /** Runs a tool with validated parameters. Never throws: failures are `{ success: false, error }`. */
  executeTool(name: string, params?: unknown, options?: { signal?: AbortSignal }): Promise<ToolResult>;
  /** The name of every tool offered. */
  getAvailableTools(): string[];
  /** Every tool's name, description and parameter schema. */
  describeTools(): ToolDescription[];
  /**
   * The tools section of an agent's system prompt: each tool (or those named) with its description and a
   * one-line summary of its parameters, and the `TOOL_USE:` / `PARAMS:` convention to call one.
   */
  getToolsPrompt(tools?: readonly string[]): string;
  /** Estimated tokens of {@link getToolsPrompt} (the kernel's `estimateTokens`). */
  getToolsPromptTokens(tools?: readonly string[]): number;
  /** Reads a `TOOL_USE:` / `PARAMS:` call from a model's response (see {@link parseToolUse}). */
  parseToolUse: typeof parseToolUse;
  /**
   * Runs the tool call in a model's response, if any, and answers the message to feed back:
   * `TOOL_RESULT for <tool>:` with the result (see `resultFormat`), or `TOOL_ERROR for <tool>:` with the error.
   */
  executeToolFromResponse(response: string, options?: { signal?: AbortSignal }): Promise<string | undefined>;
  /** The kernel the tools run on. */
  readonly kernel: StartedKernel;
  /** Stops the kernel if the client started it. */
  close(): Promise<void>;
}

const TOOL_USE_INSTRUCTIONS = [
  'To use a tool, respond with:',
  'TOOL_USE: <tool_name>',
  'PARAMS: <JSON parameters>',
  '',
  'You will receive the tool result and can incorporate it into your final response.',
].join('\n');

interface JsonProperty {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
  items?: JsonProperty;
  anyOf?: JsonProperty[];
}

/** One parameter in a few words: `tokens (integer, default 3000): max tokens`. */
function parameterSummary(name: string, property: JsonProperty, required: boolean): string {
  const type = property.enum
    ? property.enum.map((v) => JSON.stringify(v)).join(' | ')
    : property.type === 'array'
      ? `${property.items?.type ?? 'any'}[]`
      : Array.isArray(property.type)
        ? property.type.join(' | ')
        : (property.type ?? 'any');
  const facts = [
    type,
    required ? 'required' : '',
    property.default === undefined ? '' : `default ${JSON.stringify(property.default)}`,
  ]
    .filter(Boolean)
    .join(', ');
  // a description that only repeats the default says nothing more
  const description = property.description?.replace(/\s*\(default:?[^)]*\)\s*$/i, '').trim();
  return `${name} (${facts})${description ? `: ${description}` : ''}`;
}

/** The parameters of a JSON Schema as one line. */
export function parametersLine(schema: Record<string, unknown>): string {
  const properties = (schema.properties ?? {}) as Record<string, JsonProperty>;
  const required = new Set((schema.required ?? []) as string[]);
  const parts = Object.entries(properties).map(([name, property]) =>
    parameterSummary(name, property, required.has(name)),
  );
  return parts.length > 0 ? parts.join('; ') : 'none';
}

/** The docs engine's tools through the runner, for the documentation tools. */
function runnerCaller(runner: ToolRunner): EngineToolCaller {
  return {
    has: (name) => runner.definition(name) !== undefined,
    async call(name, args, context) {
      const outcome = await runner.call(name, args, { signal: context.signal });
      if (!outcome.ok) throw outcome.error;
      return { structured: outcome.structured };
    },
  };
}

/** The client's own tool context (the runner builds its own for the kernel's tools). */
function ownContext(kernel: StartedKernel, signal: AbortSignal | undefined): ToolContext {
  return {
    signal: signal ?? new AbortController().signal,
    progress: async () => undefined,
    logger: kernel.logger,
  };
}

/** Raised by the client for a tool name it does not offer (seed 004: `Tool "x" not found`). */
function unknownToolError(name: string, available: readonly string[]): ProContextError {
  return new ProContextError('INVALID_INPUT', `Tool "${name}" not found`, {
    suggestion: `Available tools: ${available.join(', ')}.`,
  });
}

/**
 * Creates the in-process tool client on a started kernel, or on one `compose` starts (the preset's
 * `startProContext`): seed 004's tools by default (`search_documentation` and
 * `resolve_library` — the same definitions the MCP servers list with the context7 plugin — and Exa's
 * `web_search` and `find_similar_content`), any other tool of the kernel on request, run by
 * `@pro-context/tool-runner` with the same validation and errors as the servers.
 */
export async function createToolClient<S extends ComposeOptions | undefined = ComposeOptions>(
  options: ToolClientOptions<S> = {},
): Promise<ToolClient> {
  let kernel = options.kernel;
  const owned = kernel === undefined;
  if (!kernel) {
    if (!options.compose) {
      throw new ProContextError(
        'INVALID_INPUT',
        'createToolClient needs a started kernel or a composer to start one.',
        {
          suggestion:
            'Pass `kernel` (a started kernel), or `compose: startProContext` (the pro-context package exports it).',
        },
      );
    }
    // imported here, so a client given its own kernel never loads the seed's plugins
    const [{ context7Plugin }, { exaPlugin }] = await Promise.all([
      import('@pro-context/plugin-context7'),
      import('@pro-context/plugin-exa'),
    ]);
    const start: ComposeOptions = options.start ?? {};
    const given = start.plugins ?? [];
    const seedPlugins = [context7Plugin, exaPlugin].filter((p) => !given.some((g) => g.id === p.id));
    kernel = await options.compose({
      ...start,
      plugins: [...given, ...seedPlugins],
      logger: start.logger ?? createSilentLogger(),
    } as S);
  }
  const started = kernel;
  let runner: ToolRunner;
  try {
    runner = createToolRunner(started);
  } catch (error) {
    if (owned) await started.stop();
    throw error;
  }
  const fallback =
    options.fallback ?? (started.isBound(docsFallbackToken) ? started.resolve(docsFallbackToken) : undefined);
  const documentation = new DocumentationTools(runnerCaller(runner), fallback);
  const engineInstalled =
    runner.definition('resolve-library') !== undefined && runner.definition('get-docs') !== undefined;
  // the documentation tools need the docs engine or a fallback that can answer
  const own: ToolDefinition[] = engineInstalled || fallback?.available ? documentation.definitions() : [];
  const ownByName = new Map(own.map((t) => [t.name, t]));
  const installed: ToolDescription[] = [
    ...own.map((t) => ({ name: t.name, description: t.description, parameters: jsonSchemaOf(t.inputSchema, 'input') })),
    ...runner.tools
      .filter((t) => !ownByName.has(t.name))
      .map((t) => ({ name: t.name, description: t.description, parameters: t.inputSchema })),
  ];
  const choice = options.tools ?? 'seed';
  let descriptions: ToolDescription[];
  if (choice === 'all') descriptions = installed;
  else {
    const wanted: readonly string[] = choice === 'seed' ? SEED_TOOLS : choice;
    if (choice !== 'seed') {
      const missing = wanted.filter((name) => !installed.some((d) => d.name === name));
      if (missing.length > 0) {
        if (owned) await started.stop();
        throw new ProContextError(
          'INVALID_INPUT',
          `No tool named ${missing.map((n) => `"${n}"`).join(', ')} is installed.`,
          {
            suggestion: `Installed tools: ${installed.map((d) => d.name).join(', ')}.`,
          },
        );
      }
    }
    descriptions = wanted.flatMap((name) => installed.filter((d) => d.name === name));
  }
  const names = descriptions.map((d) => d.name);
  const offered = new Set(names);

  const failed = (name: string, error: ProContextError, begun: number, text?: string): ToolResult => ({
    success: false,
    error: error.message,
    metadata: {
      tool: name,
      durationMs: Math.round(performance.now() - begun),
      code: error.code,
      recoverable: error.recoverable,
      ...(error.suggestion ? { suggestion: error.suggestion } : {}),
      ...(error.retryAfter === undefined ? {} : { retryAfter: error.retryAfter }),
      text: text ?? JSON.stringify(error.toPayload(), null, 2),
    },
  });

  async function executeTool(name: string, params: unknown = {}, callOptions: { signal?: AbortSignal } = {}) {
    const begun = performance.now();
    if (!offered.has(name)) return failed(name, unknownToolError(name, names), begun);
    const ownTool = ownByName.get(name);
    if (ownTool) {
      const parsed = ownTool.inputSchema.safeParse(params ?? {});
      if (!parsed.success) return failed(name, invalidArgumentsError(name, parsed.error), begun);
      try {
        const context = ownContext(started, callOptions.signal);
        // the same answer the tool's definition gives the servers, with who answered for the metadata
        const { data, origin, text } = await documentation.answer(
          name as DocumentationToolName,
          parsed.data as never,
          context,
        );
        const checked = ownTool.outputSchema.parse(data);
        return {
          success: true,
          data: checked,
          metadata: { tool: name, durationMs: Math.round(performance.now() - begun), ...origin, text },
        } satisfies ToolResult;
      } catch (error) {
        return failed(name, toProContextError(error), begun);
      }
    }
    const outcome = await runner.call(name, params, callOptions.signal ? { signal: callOptions.signal } : {});
    if (!outcome.ok) return failed(name, outcome.error, begun, outcome.text);
    const cached = (outcome.structured as { cached?: unknown }).cached;
    return {
      success: true,
      data: outcome.structured,
      metadata: {
        tool: name,
        durationMs: Math.round(performance.now() - begun),
        ...(typeof cached === 'boolean' ? { cached } : {}),
        text: outcome.text,
      },
    } satisfies ToolResult;
  }

  const toolsPrompt = (only?: readonly string[]) => {
    const chosen = only ? descriptions.filter((d) => only.includes(d.name)) : descriptions;
    const tools = chosen
      .map((d) => `- ${d.name}: ${d.description}\n  Parameters: ${parametersLine(d.parameters)}`)
      .join('\n');
    return `Available external tools:\n\n${tools}\n\n${TOOL_USE_INSTRUCTIONS}`;
  };

  return {
    kernel: started,
    executeTool,
    getAvailableTools: () => [...names],
    describeTools: () => descriptions.map((d) => ({ ...d })),
    getToolsPrompt: toolsPrompt,
    getToolsPromptTokens: (only) => estimateTokens(toolsPrompt(only)),
    parseToolUse,
    async executeToolFromResponse(response, callOptions = {}) {
      const use = parseToolUse(response);
      if (!use) return undefined;
      if (use.params === undefined) return `TOOL_ERROR for ${use.tool}:\n${use.error}`;
      const result = await executeTool(use.tool, use.params, callOptions);
      if (result.success) {
        const text =
          options.resultFormat === 'markdown' && typeof result.metadata?.text === 'string'
            ? result.metadata.text
            : JSON.stringify(result.data, null, 2);
        return `TOOL_RESULT for ${use.tool}:\n${text}`;
      }
      const suggestion = typeof result.metadata?.suggestion === 'string' ? `\n${result.metadata.suggestion}` : '';
      return `TOOL_ERROR for ${use.tool}:\n${result.error}${suggestion}`;
    },
    async close() {
      if (owned) await started.stop();
    },
  };
}

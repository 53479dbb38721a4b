import { type ProContextError, type StartedKernel, toProContextError, type z } from '@pro-context/kernel';
import { createToolRunner, invalidArgumentsError, jsonSchemaOf, type ToolRunner } from '@pro-context/tool-runner';
import type { StartOptions } from 'pro-context';
import {
  DocumentationTools,
  type RemoteDocs,
  remoteDocsToken,
  resolveLibraryInput,
  resolveLibraryOutput,
  searchDocumentationInput,
  searchDocumentationOutput,
  unknownToolError,
} from './docs-tools.js';
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
   * (`local` or the remote docs' id).
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

/** Options of {@link createToolClient}. */
export interface ToolClientOptions {
  /**
   * A started kernel whose tools to offer (the client does not stop it). Default: the pro-context preset
   * started with `start` (docs engine plus every remote plugin the configuration enables), stopped by `close`.
   */
  kernel?: StartedKernel;
  /** Options of the preset when the client starts it (config file, overrides, extra plugins…). */
  start?: StartOptions;
  /**
   * Where `search_documentation` and `resolve_library` turn for a library the docs engine does not have
   * (Context7). Default: the {@link RemoteDocs} a plugin bound to `remoteDocsToken`, if any.
   */
  remoteDocs?: RemoteDocs;
  /** Offer seed 004's `search_documentation` and `resolve_library` (default true, when the docs engine is installed). */
  documentationTools?: boolean;
}

/** The in-process tool client (seed 004 §1.5, §2.3). */
export interface ToolClient {
  /** Runs a tool with validated parameters. Never throws: failures are `{ success: false, error }`. */
  executeTool(name: string, params?: unknown, options?: { signal?: AbortSignal }): Promise<ToolResult>;
  /** Every tool's name. */
  getAvailableTools(): string[];
  /** Every tool's name, description and parameter schema. */
  describeTools(): ToolDescription[];
  /**
   * The tools section of an agent's system prompt: each tool (or those named) with its description and
   * parameters, and the `TOOL_USE:` / `PARAMS:` convention to call one.
   */
  getToolsPrompt(tools?: readonly string[]): string;
  /** Reads a `TOOL_USE:` / `PARAMS:` call from a model's response (see {@link parseToolUse}). */
  parseToolUse: typeof parseToolUse;
  /**
   * Runs the tool call in a model's response, if any, and answers the message to feed back
   * (`TOOL_RESULT for <tool>:` with the result's markdown, or `TOOL_ERROR for <tool>:` with the error).
   */
  executeToolFromResponse(response: string, options?: { signal?: AbortSignal }): Promise<string | undefined>;
  /** The kernel the tools run on. */
  readonly kernel: StartedKernel;
  /** Stops the kernel if the client started it. */
  close(): Promise<void>;
}

interface OwnTool {
  name: string;
  description: string;
  input: z.ZodObject;
  output: z.ZodObject;
  run(params: never, signal?: AbortSignal): Promise<{ data: unknown; origin: Record<string, unknown> }>;
}

const TOOL_USE_INSTRUCTIONS = [
  'To use a tool, respond with:',
  'TOOL_USE: <tool_name>',
  'PARAMS: <JSON parameters>',
  '',
  'You will receive the tool result and can incorporate it into your final response.',
].join('\n');

/** Markdown of a documentation tool's answer, for `metadata.text`. */
function docsText(name: string, data: unknown): string {
  if (name === 'search_documentation') {
    const d = data as z.output<typeof searchDocumentationOutput>;
    return `# ${d.libraryId}\n\n${d.documentation}`;
  }
  const { matches } = data as z.output<typeof resolveLibraryOutput>;
  if (matches.length === 0) return 'No matching library.';
  return matches
    .map((m, i) => `${i + 1}. ${m.name} (libraryId: ${m.libraryId}, trust ${m.trustScore}) — ${m.description}`)
    .join('\n');
}

/**
 * Creates the in-process tool client: the same tools as the MCP servers (the docs engine's and every
 * installed remote plugin's), run by `@pro-context/tool-runner` with the same validation, plus seed 004's
 * `search_documentation` and `resolve_library`.
 */
export async function createToolClient(options: ToolClientOptions = {}): Promise<ToolClient> {
  let kernel = options.kernel;
  const owned = kernel === undefined;
  if (!kernel) {
    // imported here, so a client given its own kernel never loads the preset's plugins
    const { startProContext } = await import('pro-context');
    kernel = await startProContext(options.start ?? {});
  }
  const started = kernel;
  let runner: ToolRunner;
  try {
    runner = createToolRunner(started);
  } catch (error) {
    if (owned) await started.stop();
    throw error;
  }
  const remote =
    options.remoteDocs ?? (started.isBound(remoteDocsToken) ? started.resolve(remoteDocsToken) : undefined);
  const documentation = new DocumentationTools(runner, remote);
  const own: OwnTool[] =
    (options.documentationTools ?? true) && documentation.available
      ? [
          {
            name: 'search_documentation',
            description: 'Search technical documentation, SDKs, and library references',
            input: searchDocumentationInput,
            output: searchDocumentationOutput,
            run: (params: z.output<typeof searchDocumentationInput>, signal) => documentation.search(params, signal),
          } as OwnTool,
          {
            name: 'resolve_library',
            description: 'Find the correct library ID for a package name',
            input: resolveLibraryInput,
            output: resolveLibraryOutput,
            run: (params: z.output<typeof resolveLibraryInput>, signal) => documentation.resolve(params, signal),
          } as OwnTool,
        ]
      : [];
  const ownByName = new Map(own.map((t) => [t.name, t]));
  const descriptions: ToolDescription[] = [
    ...own.map((t) => ({ name: t.name, description: t.description, parameters: jsonSchemaOf(t.input, 'input') })),
    ...runner.tools.map((t) => ({ name: t.name, description: t.description, parameters: t.inputSchema })),
  ];
  const names = descriptions.map((d) => d.name);

  const failed = (name: string, error: ProContextError, started: number, text?: string): ToolResult => ({
    success: false,
    error: error.message,
    metadata: {
      tool: name,
      durationMs: Math.round(performance.now() - started),
      code: error.code,
      recoverable: error.recoverable,
      ...(error.suggestion ? { suggestion: error.suggestion } : {}),
      ...(error.retryAfter === undefined ? {} : { retryAfter: error.retryAfter }),
      text: text ?? JSON.stringify(error.toPayload(), null, 2),
    },
  });

  async function executeTool(name: string, params: unknown = {}, callOptions: { signal?: AbortSignal } = {}) {
    const begun = performance.now();
    const ownTool = ownByName.get(name);
    if (ownTool) {
      const parsed = ownTool.input.safeParse(params ?? {});
      if (!parsed.success) return failed(name, invalidArgumentsError(name, parsed.error), begun);
      try {
        const { data, origin } = await ownTool.run(parsed.data as never, callOptions.signal);
        const checked = ownTool.output.parse(data);
        return {
          success: true,
          data: checked,
          metadata: {
            tool: name,
            durationMs: Math.round(performance.now() - begun),
            ...origin,
            text: docsText(name, checked),
          },
        } satisfies ToolResult;
      } catch (error) {
        return failed(name, toProContextError(error), begun);
      }
    }
    if (!runner.definition(name)) return failed(name, unknownToolError(name, names), begun);
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

  return {
    kernel: started,
    executeTool,
    getAvailableTools: () => [...names],
    describeTools: () => descriptions.map((d) => ({ ...d })),
    getToolsPrompt(only) {
      const chosen = only ? descriptions.filter((d) => only.includes(d.name)) : descriptions;
      const tools = chosen
        .map(
          (d) =>
            `- ${d.name}: ${d.description}\n  Parameters: ${JSON.stringify(d.parameters, null, 2).replace(/\n/g, '\n  ')}`,
        )
        .join('\n\n');
      return `Available external tools:\n\n${tools}\n\n${TOOL_USE_INSTRUCTIONS}`;
    },
    parseToolUse,
    async executeToolFromResponse(response, callOptions = {}) {
      const use = parseToolUse(response);
      if (!use) return undefined;
      if (use.params === undefined) return `TOOL_ERROR for ${use.tool}:\n${use.error}`;
      const result = await executeTool(use.tool, use.params, callOptions);
      if (result.success) {
        const text =
          typeof result.metadata?.text === 'string' ? result.metadata.text : JSON.stringify(result.data, null, 2);
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

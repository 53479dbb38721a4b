import {
  type CallerInfo,
  type Logger,
  ProContextError,
  type StartedKernel,
  type ToolAnnotations,
  type ToolContext,
  type ToolDefinition,
  type ToolResultReuse,
  toolPluginToken,
  toProContextError,
  z,
} from '@pro-context/kernel';
import { redactAnswer, redactDeep, redactString } from '@pro-context/logging';

/** A JSON Schema (draft 7) describing an object, as `tools/list` advertises a tool's arguments and result. */
export interface JsonObjectSchema {
  type: 'object';
  properties?: Record<string, object>;
  required?: string[];
  [keyword: string]: unknown;
}

/** One tool as every surface lists it (the fields of MCP's `Tool`). */
export interface ListedTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonObjectSchema;
  outputSchema: JsonObjectSchema;
  /** The tool's annotations with its title, when it has annotations. */
  annotations?: ToolAnnotations & { title: string };
}

/** A progress report from a running tool. */
export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/** What the surface knows about one call. */
export interface ToolCallOptions {
  /** Cancels the call (client cancellation, shutdown). Default: never aborted. */
  signal?: AbortSignal;
  /** Receives the tool's progress reports; its failures are ignored. Default: reports are dropped. */
  progress?: (update: ProgressUpdate) => Promise<void> | void;
  /** The session the call belongs to: handed to the tool, and carried by every record logged during the call. */
  sessionId?: string;
  /** Who is calling, when the surface knows. */
  caller?: CallerInfo;
}

/** A call that succeeded: the structured result, checked against the output schema, and its markdown. */
export interface ToolSuccess {
  ok: true;
  structured: Record<string, unknown>;
  text: string;
  /**
   * The tool's `ToolResult.reuse`, passed on as data: a host may answer the same tool with equal arguments with
   * this result again while the kernel's `AnswerRevisions` is at `revision` and before `until`.
   */
  reuse?: ToolResultReuse;
}

/** A call that failed: the catalog error, and the text the tool chose for it (the JSON payload by default). */
export interface ToolFailure {
  ok: false;
  error: ProContextError;
  text: string;
}

/** What {@link ToolRunner.call} answers; it never throws. */
export type ToolOutcome = ToolSuccess | ToolFailure;

/** Runs a started kernel's tools, the same way for every surface. */
export interface ToolRunner {
  /** Every tool, in plugin order, as `tools/list` shows it. */
  readonly tools: readonly ListedTool[];
  /** The definition of a tool, if installed. */
  definition(name: string): ToolDefinition | undefined;
  /**
   * Runs a tool: arguments checked against its input schema, a {@link ToolContext} built from `options`,
   * the result checked against its output schema, any failure mapped to the error catalog.
   */
  call(name: string, args: unknown, options?: ToolCallOptions): Promise<ToolOutcome>;
}

/** MCP's rule for tool names. */
const TOOL_NAME = /^[A-Za-z0-9._-]{1,128}$/;

function issuesMessage(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'arguments'}: ${issue.message}`)
    .join('; ');
}

/**
 * The catalog's `INVALID_INPUT` for arguments a tool's input schema refused, naming each bad argument: what
 * an agent gets over MCP, and what the CLI prints for the same input.
 */
export function invalidArgumentsError(toolName: string, error: z.ZodError): ProContextError {
  return new ProContextError('INVALID_INPUT', `Invalid arguments for ${toolName}: ${issuesMessage(error)}.`, {
    details: { issues: error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })) },
  });
}

/** The default text of an error result: the catalog payload `{ code, message, recoverable, suggestion, … }` as JSON. */
export function errorPayloadText(error: unknown): string {
  return JSON.stringify(toProContextError(error).toPayload(), null, 2);
}

/** A zod schema as the JSON Schema `tools/list` advertises (`io: 'input'` for arguments, `'output'` for results). */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonObjectSchema {
  return z.toJSONSchema(schema, { target: 'draft-7', io, unrepresentable: 'any' }) as JsonObjectSchema;
}

/** The installed tools by name, with the id of the plugin that contributed each. */
type ToolTable = Map<string, { tool: ToolDefinition; plugin: string }>;

/**
 * Every `ToolPlugin`'s tools of a started kernel: two tools of the same name are `CONTRACT_CONFLICT`, a name
 * breaking MCP's rule is `PLUGIN_INVALID`.
 */
function collectTools(kernel: Pick<StartedKernel, 'resolveAll'>): ToolTable {
  const tools: ToolTable = new Map();
  for (const plugin of kernel.resolveAll(toolPluginToken)) {
    for (const tool of plugin.tools()) {
      const existing = tools.get(tool.name);
      if (existing) {
        throw new ProContextError(
          'CONTRACT_CONFLICT',
          `Tool '${tool.name}' is contributed by plugin '${existing.plugin}' and by plugin '${plugin.id}'.`,
          { suggestion: 'Tool names must be unique; remove or rename one of them.' },
        );
      }
      if (!TOOL_NAME.test(tool.name)) {
        throw new ProContextError(
          'PLUGIN_INVALID',
          `Tool name '${tool.name}' of plugin '${plugin.id}' breaks MCP's naming rules.`,
          { suggestion: 'Use 1-128 characters from A-Z, a-z, 0-9, dot, underscore and hyphen.' },
        );
      }
      tools.set(tool.name, { tool, plugin: plugin.id });
    }
  }
  return tools;
}

/** A tool as `tools/list` shows it: its schemas as JSON Schema, its annotations with its title. */
function listedTool(tool: ToolDefinition): ListedTool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchemaOf(tool.inputSchema, 'input'),
    outputSchema: jsonSchemaOf(tool.outputSchema, 'output'),
    ...(tool.annotations ? { annotations: { title: tool.title, ...tool.annotations } } : {}),
  };
}

/**
 * A failed call: the error and its text, the tool's own (`renderError`) or the catalog payload. Secrets never
 * leave in an answer: the text an error result shows is masked like a log line (user-info, secret query
 * parameters, configured keys and tokens, key-shaped strings); see `redactString`.
 */
function failure(error: ProContextError, logger: Logger, tool?: ToolDefinition): ToolFailure {
  if (!tool?.renderError) return { ok: false, error, text: errorPayloadText(error) };
  try {
    return { ok: false, error, text: redactString(tool.renderError(error)) };
  } catch (renderFailure) {
    logger.error('tool failed to render its error', { error: renderFailure });
    return { ok: false, error, text: errorPayloadText(error) };
  }
}

/** `INVALID_INPUT` for arguments that are no object (an array, a string…), naming the tool's arguments. */
function notAnObject(tool: ToolDefinition, args: unknown, listed: ListedTool | undefined): ProContextError {
  const names = Object.keys(listed?.inputSchema.properties ?? {});
  return new ProContextError(
    'INVALID_INPUT',
    `Invalid arguments for ${tool.name}: arguments must be an object of named arguments, not ${kindOf(args)}.`,
    {
      suggestion: `Send arguments as a JSON object${names.length > 0 ? ` with the named arguments (${names.join(', ')})` : ''} and call the tool again.`,
    },
  );
}

/** What a tool handler gets beside its arguments, from what the surface knows about the call. */
function toolContext(options: ToolCallOptions, logger: Logger): ToolContext {
  return {
    signal: options.signal ?? new AbortController().signal,
    logger,
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
    ...(options.caller ? { caller: options.caller } : {}),
    async progress(update) {
      try {
        await options.progress?.(update);
      } catch {
        // a lost progress report must not fail the call
      }
    },
  };
}

/** Runs the handler on checked arguments: its result checked against the output schema and masked. */
async function runHandler(
  tool: ToolDefinition,
  args: Record<string, unknown>,
  context: ToolContext,
): Promise<ToolOutcome> {
  const { logger } = context;
  try {
    const result = await tool.handler(args, context);
    const checked = tool.outputSchema.safeParse(result.structured);
    if (!checked.success) {
      logger.error('tool returned content that breaks its output schema', { issues: issuesMessage(checked.error) });
      return failure(new ProContextError('INTERNAL_ERROR', `${tool.name} produced an invalid result.`), logger, tool);
    }
    // an answer carries documentation: only URL credentials and configured secrets are masked (`redactAnswer`),
    // never the example keys a page shows
    return {
      ok: true,
      structured: redactDeep(checked.data, redactAnswer) as Record<string, unknown>,
      text: redactAnswer(result.text),
      ...(result.reuse ? { reuse: { revision: result.reuse.revision, until: result.reuse.until } } : {}),
    };
  } catch (error) {
    const coded = toProContextError(error);
    // a call its client cancelled is not a failure of the server's: no error record (its answer is never read)
    // (logged with why it was cancelled: what the tool threw then is only the abort, seen from inside)
    if (context.signal.aborted) logger.info('tool call cancelled', { reason: abortReason(context.signal) });
    else if (coded.code === 'INTERNAL_ERROR')
      logger.error('tool failed', { error, cause: (coded.cause as Error)?.message });
    return failure(coded, logger, tool);
  }
}

/**
 * Collects every `ToolPlugin`'s tools of a started kernel, once: refuses two tools of the same name
 * (`CONTRACT_CONFLICT`) and names breaking MCP's rule (`PLUGIN_INVALID`). Create one per started kernel and
 * share it between surfaces.
 */
export function createToolRunner(kernel: Pick<StartedKernel, 'resolveAll' | 'logger'>): ToolRunner {
  const tools = collectTools(kernel);
  // the JSON Schemas are built on first use (tools/list), not at start: a restarted server's first call needs none
  let listed: ListedTool[] | undefined;
  const list = (): ListedTool[] => (listed ??= [...tools.values()].map(({ tool }) => listedTool(tool)));

  async function run(name: string, args: unknown, options: ToolCallOptions): Promise<ToolOutcome> {
    const entry = tools.get(name);
    if (!entry) {
      const unknown = new ProContextError('INVALID_INPUT', `Unknown tool '${name}'.`, {
        suggestion: `Available tools: ${[...tools.keys()].join(', ')}.`,
      });
      return failure(unknown, kernel.logger);
    }
    const { tool } = entry;
    const logger = kernel.logger.child({ tool: tool.name });
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
      return failure(
        notAnObject(
          tool,
          args,
          list().find((t) => t.name === tool.name),
        ),
        logger,
        tool,
      );
    }
    const parsed = tool.inputSchema.safeParse(args ?? {});
    if (!parsed.success) return failure(invalidArgumentsError(tool.name, parsed.error), logger, tool);
    return runHandler(tool, parsed.data, toolContext(options, logger));
  }

  return {
    get tools() {
      return list();
    },
    definition: (name) => tools.get(name)?.tool,
    call(name, args, options = {}) {
      if (options.sessionId === undefined) return run(name, args, options);
      // every record written while the call runs, anywhere (engine, plugins, work it starts), carries the session
      return kernel.logger.withBindings({ sessionId: options.sessionId }, () => run(name, args, options));
    },
  };
}

/** What a JSON value that is no object is, in words (`an array`, `a string`, `null`…). */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Why `signal` was aborted, in words. */
function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason.message || reason.name;
  return reason === undefined ? 'cancelled' : String(reason);
}

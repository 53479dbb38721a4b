import type * as z from 'zod';
import type { ProContextError } from '../errors/pro-context-error.js';
import type { Logger } from './logger.js';
import { createToken } from './token.js';

/** MCP tool annotations (hints to the client; see the MCP specification). */
export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** Who is calling, when the host knows (HTTP mode with API keys). */
export interface CallerInfo {
  /** Id of the API key or OAuth client. */
  clientId: string;
  scopes?: string[];
}

/** What a tool handler receives beside its arguments. */
export interface ToolContext {
  /** Fires when the client cancels the request or the host shuts down. */
  readonly signal: AbortSignal;
  /**
   * Reports progress to the client (MCP `notifications/progress`). A no-op when the client did not send a
   * progress token.
   */
  progress(update: { progress: number; total?: number; message?: string }): Promise<void>;
  /** Logs to stderr and, through the host, to the client's MCP log (`notifications/message`). */
  readonly logger: Logger;
  /**
   * The session the call belongs to (the transport's MCP session id, or the id the host gave a connection
   * without one); absent for one-off calls such as the CLI's. Records logged during the call carry it.
   */
  readonly sessionId?: string;
  readonly caller?: CallerInfo;
}

/** A tool's answer: structured content (validated against the output schema) and a markdown rendering. */
export interface ToolResult<O> {
  structured: O;
  /** Markdown for the agent to read (the MCP `text` content). */
  text: string;
  /**
   * Set by a tool whose answer depends on nothing but its arguments and state covered by the kernel's
   * `AnswerRevisions` (not on the caller, the session or progress): a host may answer the same tool with equal
   * arguments with this very result again, without calling the tool, while `AnswerRevisions.current()` equals
   * `revision` and the clock is before `until` (epoch ms). Plain data: nothing to call, nothing to relay.
   */
  reuse?: ToolResultReuse;
}

/** When a host may serve a tool result again: see {@link ToolResult.reuse}. */
export interface ToolResultReuse {
  /** `AnswerRevisions.current()` when the answer was made. */
  revision: number;
  /** Epoch milliseconds after which the answer is made again. */
  until: number;
}

/**
 * One MCP tool. Names follow MCP's rules, `[A-Za-z0-9._-]{1,128}`. Handlers throw `ProContextError`s;
 * the host turns them into `isError` results whose text is the JSON payload
 * `{ code, message, recoverable, suggestion, retryAfter }`, or what `renderError` makes of the error.
 */
export interface ToolDefinition<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  description: string;
  inputSchema: I;
  outputSchema: O;
  annotations?: ToolAnnotations;
  handler(args: z.output<I>, context: ToolContext): Promise<ToolResult<z.output<O>>>;
  /**
   * The text of an error result, when the tool prescribes its own (a plain `[Context7 API key not
   * configured]`) instead of the JSON payload. Receives every error of a call, refused arguments included.
   */
  renderError?(error: ProContextError): string;
}

/** Helper that infers a tool's argument and result types from its schemas. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(
  definition: ToolDefinition<I, O>,
): ToolDefinition<I, O> {
  return definition;
}

/** The text of a resource. */
export interface ResourceContents {
  text: string;
  mimeType?: string;
}

/** A fixed resource, e.g. `pro-context://health`. */
export interface ResourceDefinition {
  name: string;
  uri: string;
  title?: string;
  description?: string;
  mimeType: string;
  read(): Promise<ResourceContents>;
}

/** One concrete resource produced by a template's `list`. */
export interface ResourceListing {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

/**
 * A family of resources addressed by an RFC 6570 URI template, e.g. `library://{libraryId}/toc`. The host
 * lists them with `list` and emits `notifications/resources/list_changed` when the kernel's event bus
 * says `resources.changed`.
 */
export interface ResourceTemplateDefinition {
  name: string;
  uriTemplate: string;
  title?: string;
  description?: string;
  mimeType: string;
  list(): Promise<ResourceListing[]>;
  /** Completions for template variables (MCP `completion/complete`). */
  complete?: Record<string, (prefix: string) => Promise<string[]> | string[]>;
  read(uri: string, variables: Record<string, string>): Promise<ResourceContents>;
}

/** A prompt template. Arguments are strings (MCP's rule). */
export interface PromptDefinition {
  name: string;
  title?: string;
  description: string;
  /** Each argument: its description and whether it is required. */
  arguments: Record<string, { description: string; required: boolean }>;
  /** The user message the prompt expands to. */
  render(args: Record<string, string | undefined>): string;
  /** Completions for arguments (MCP `completion/complete` with a `ref/prompt`), e.g. `libraryId`. */
  complete?: Record<string, (prefix: string) => Promise<string[]> | string[]>;
}

/** Contributes MCP tools, resources, resource templates and prompts. */
export interface ToolPlugin {
  /** Stable id, equal to the plugin id. */
  readonly id: string;
  tools(): ToolDefinition[];
  resources?(): ResourceDefinition[];
  resourceTemplates?(): ResourceTemplateDefinition[];
  prompts?(): PromptDefinition[];
}

/** Plural contract: every installed tool plugin. */
export const toolPluginToken = createToken<ToolPlugin>('kernel.toolPlugin', { multiple: true });

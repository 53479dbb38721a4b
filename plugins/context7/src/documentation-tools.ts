import {
  type DocsFallback,
  defineTool,
  type ProContextError,
  type ToolContext,
  type ToolDefinition,
  toProContextError,
  z,
} from '@pro-context/kernel';
import { defineMessages, withEnableHint, withoutDocsFallback } from '@pro-context/plugin-kit';
import { CONTEXT7_ENABLE_HINT } from './fallback.js';

/**
 * Seed 004's two Context7 tools, `search_documentation` and `resolve_library`, defined once: the MCP servers
 * list them when the context7 plugin is enabled, and `@pro-context/embed` offers the same definitions
 * in-process. Both ask the local docs engine first (through its own tools, when installed) and turn to the
 * kernel's {@link DocsFallback} (Context7) when the engine does not know the library or cannot fetch its
 * documentation; each answer says who gave it.
 */

/** The sentences the documentation tools answer under the kernel's codes (their message catalog). */
export const documentationMessages = defineMessages({
  NOT_INSTALLED: { code: 'INTERNAL_ERROR', message: 'The tool {name} is not installed.' },
  NO_MATCH: { code: 'LIBRARY_NOT_FOUND', message: "No library matches '{name}' ({reason})." },
  UNFETCHED: { code: 'SOURCE_UNAVAILABLE', message: 'No documentation of {name} could be fetched: {reason}' },
  NOWHERE: {
    code: 'LIBRARY_NOT_FOUND',
    message: "No library matches '{name}', locally ({reason}) or on {service}.",
    suggestion: 'Check the name with resolve_library.',
  },
});

/** `search_documentation` arguments (seed 004 §2.2). */
export const searchDocumentationInput = z.object({
  libraryName: z.string().trim().min(1).max(200).describe('e.g., "react", "next.js"'),
  topic: z.string().trim().min(1).max(500).optional().describe('e.g., "hooks", "routing"'),
  tokens: z.number().int().min(100).max(50_000).default(3000).describe('max tokens (default: 3000)'),
});

/** `search_documentation` result (seed 004 §2.2). */
export const searchDocumentationOutput = z.object({
  libraryId: z.string().describe('Library ID (the local engine\'s libraryId, or Context7\'s "/org/project")'),
  documentation: z.string().describe('Markdown formatted docs'),
  codeExamples: z.number().int().min(0).describe('Count of code snippets'),
  trustScore: z.number().min(0).max(10).describe('Library trust score, 0-10'),
});

/** `resolve_library` arguments (seed 004 §2.2). */
export const resolveLibraryInput = z.object({
  libraryName: z.string().trim().min(1).max(200).describe('Package/library to search'),
});

/** One candidate library. */
export const libraryMatchSchema = z.object({
  libraryId: z.string(),
  name: z.string(),
  description: z.string(),
  trustScore: z.number().min(0).max(10),
  snippets: z.number().int().min(0),
});

/** `resolve_library` result (seed 004 §2.2). */
export const resolveLibraryOutput = z.object({ matches: z.array(libraryMatchSchema) });

/** A `search_documentation` answer. */
export type SearchDocumentationResult = z.output<typeof searchDocumentationOutput>;
/** A `resolve_library` answer. */
export type ResolveLibraryResult = z.output<typeof resolveLibraryOutput>;
/** A `resolve_library` candidate. */
export type LibraryMatch = z.output<typeof libraryMatchSchema>;

/** The seed's descriptions (seed 004 §2.2), word for word. */
export const documentationToolDescriptions = {
  search_documentation: 'Search technical documentation, SDKs, and library references',
  resolve_library: 'Find the correct library ID for a package name',
} as const;

/** The names of seed 004's two documentation tools. */
export type DocumentationToolName = keyof typeof documentationToolDescriptions;
/** Their arguments, by name. */
export interface DocumentationToolArgs {
  search_documentation: z.output<typeof searchDocumentationInput>;
  resolve_library: z.output<typeof resolveLibraryInput>;
}
/** Their data, by name. */
export interface DocumentationToolData {
  search_documentation: SearchDocumentationResult;
  resolve_library: ResolveLibraryResult;
}

/** How an answer was obtained: `source` is `local` (the docs engine) or the fallback's id (`context7`). */
export interface DocsAnswerOrigin {
  source: string;
  /** Why the fallback answered (the engine's reason), when it did. */
  reason?: string;
  /** Further facts: the version served, the URL. */
  [fact: string]: unknown;
}

/**
 * How the documentation tools reach the docs engine's own tools (`resolve-library`, `get-docs`): in a
 * server, the engine's tool definitions; in `@pro-context/embed`, its tool runner. Errors are thrown as
 * `ProContextError`s.
 */
export interface EngineToolCaller {
  has(name: string): boolean;
  call(name: string, args: Record<string, unknown>, context: ToolContext): Promise<{ structured: unknown }>;
}

/** Runs tool definitions directly (arguments parsed by their input schema), for tools of the same kernel. */
export function definitionCaller(definitions: () => readonly ToolDefinition[]): EngineToolCaller {
  const find = (name: string) => definitions().find((d) => d.name === name);
  return {
    has: (name) => find(name) !== undefined,
    async call(name, args, context) {
      const definition = find(name);
      if (!definition) throw documentationMessages.create('NOT_INSTALLED', { name });
      return definition.handler(definition.inputSchema.parse(args), context);
    },
  };
}

/** The `get-docs` budget range: `tokens` outside it are clamped. */
const GET_DOCS_MIN_TOKENS = 500;
const GET_DOCS_MAX_TOKENS = 10_000;
/** The topic asked of the engine when the agent names none. */
const DEFAULT_TOPIC = 'overview getting started';
/** Engine errors that are about the question, not about reaching the documentation: no fallback for them. */
const NOT_A_FETCH_FAILURE = new Set(['TOPIC_NOT_FOUND', 'VERSION_NOT_FOUND', 'INVALID_INPUT']);

/** Fenced code blocks in a markdown text. */
export function countCodeExamples(markdown: string): number {
  const fences = markdown.match(/^\s{0,3}(```|~~~)/gm) ?? [];
  return Math.floor(fences.length / 2);
}

interface ResolvedLocal {
  libraryId: string;
  name: string;
  description: string;
  toc: unknown[];
  alternatives: { id: string; name: string; description: string }[];
  notes?: string[];
}

/** The enabling sentence when no fallback can answer: the fallback's own, or how to enable Context7. */
function enableHintOf(fallback: DocsFallback | undefined): string {
  return fallback
    ? fallback.enableHint
    : `Enable the context7 plugin (PRO_CONTEXT_PLUGINS=context7) and ${CONTEXT7_ENABLE_HINT.replace(/^Set/, 'set')}`;
}

/** Seed 004's documentation tools over the docs engine's tools, then the kernel's fallback (Context7). */
export class DocumentationTools {
  constructor(
    private readonly engine: EngineToolCaller | undefined,
    private readonly fallback: DocsFallback | undefined,
  ) {}

  private get local(): EngineToolCaller | undefined {
    return this.engine?.has('resolve-library') && this.engine.has('get-docs') ? this.engine : undefined;
  }

  /** `undefined` with the reason when the engine does not have the library (or has no docs of it). */
  private async resolveLocal(
    libraryName: string,
    context: ToolContext,
  ): Promise<{ library?: ResolvedLocal; reason?: string; error?: ProContextError }> {
    const local = this.local;
    if (!local) return { reason: 'no local docs engine is installed' };
    try {
      const { structured } = await withoutDocsFallback(() =>
        local.call('resolve-library', { query: libraryName }, context),
      );
      return { library: structured as ResolvedLocal };
    } catch (thrown) {
      const error = toProContextError(thrown);
      if (error.code !== 'LIBRARY_NOT_FOUND') throw error;
      return { reason: `the local docs engine does not know '${libraryName}'`, error };
    }
  }

  /** The fallback, when it can answer; otherwise the error to throw (naming what would enable it). */
  private remote(error: ProContextError): DocsFallback {
    if (this.fallback?.available) return this.fallback;
    throw withEnableHint(error, enableHintOf(this.fallback));
  }

  /**
   * `resolve_library`: the library the engine resolves the name to (trust 10: it is in the curated registry,
   * the configuration or the package registry) with the engine's other candidates (trust 5); `snippets` is the
   * number of documentation pages in the resolved library's table of contents (0 for the others, not fetched).
   * A name the engine does not know goes to the fallback (Context7); without one that can answer, the error
   * names what would enable it.
   */
  async resolve(
    args: z.output<typeof resolveLibraryInput>,
    context: ToolContext,
  ): Promise<{ data: ResolveLibraryResult; origin: DocsAnswerOrigin }> {
    const { library, reason, error } = await this.resolveLocal(args.libraryName, context);
    if (library) {
      const matches: LibraryMatch[] = [
        {
          libraryId: library.libraryId,
          name: library.name,
          description: library.description,
          trustScore: 10,
          snippets: library.toc.length,
        },
        ...library.alternatives.map((a) => ({
          libraryId: a.id,
          name: a.name,
          description: a.description,
          trustScore: 5,
          snippets: 0,
        })),
      ];
      return { data: { matches }, origin: { source: 'local' } };
    }
    const notFound =
      error ?? documentationMessages.create('NO_MATCH', { name: args.libraryName, reason: String(reason) });
    const fallback = this.remote(notFound);
    const found = await fallback.search(args.libraryName, context.signal);
    const matches = found.map((l) => ({
      libraryId: l.id,
      name: l.title,
      description: l.description,
      trustScore: l.trustScore ?? 0,
      snippets: l.snippets ?? 0,
    }));
    return { data: { matches }, origin: { source: fallback.id, ...(reason ? { reason } : {}) } };
  }

  /**
   * `search_documentation`: the engine's best sections on the topic within `tokens` (clamped to get-docs'
   * 500–10 000), `codeExamples` counted in them, `trustScore` the engine's confidence that they match the
   * topic, on Context7's 0–10 scale. When the engine does not know the library, or cannot fetch its
   * documentation, the fallback (Context7) answers.
   */
  async search(
    args: z.output<typeof searchDocumentationInput>,
    context: ToolContext,
  ): Promise<{ data: SearchDocumentationResult; origin: DocsAnswerOrigin }> {
    const { library, reason: unknown, error } = await this.resolveLocal(args.libraryName, context);
    let failure: ProContextError;
    let reason: string;
    if (library && library.toc.length === 0) {
      reason = library.notes?.[0] ?? `the documentation of ${library.name} could not be fetched`;
      failure = documentationMessages.create('UNFETCHED', { name: library.name, reason });
    } else if (library) {
      const maxTokens = Math.min(GET_DOCS_MAX_TOKENS, Math.max(GET_DOCS_MIN_TOKENS, args.tokens));
      try {
        const { structured } = await withoutDocsFallback(() =>
          (this.local as EngineToolCaller).call(
            'get-docs',
            { libraryId: library.libraryId, topic: args.topic ?? DEFAULT_TOPIC, maxTokens },
            context,
          ),
        );
        const docs = structured as { content: string; confidence: number; version: string; source: string };
        return {
          data: {
            libraryId: library.libraryId,
            documentation: docs.content,
            codeExamples: countCodeExamples(docs.content),
            trustScore: Math.round(docs.confidence * 100) / 10,
          },
          origin: { source: 'local', version: docs.version, url: docs.source, maxTokens },
        };
      } catch (thrown) {
        failure = toProContextError(thrown);
        if (NOT_A_FETCH_FAILURE.has(failure.code) || context.signal.aborted) throw failure;
        reason = `the documentation of ${library.name} could not be fetched (${failure.code}: ${failure.message.replace(/\.$/, '')})`;
      }
    } else {
      reason = unknown ?? `the local docs engine does not know '${args.libraryName}'`;
      failure = error ?? documentationMessages.create('NO_MATCH', { name: args.libraryName, reason });
    }
    const fallback = this.remote(failure);
    const answer = await fallback.docs(
      { library: args.libraryName, ...(args.topic ? { topic: args.topic } : {}), tokens: args.tokens },
      context.signal,
    );
    if (!answer) {
      throw documentationMessages.create('NOWHERE', { name: args.libraryName, reason, service: fallback.name });
    }
    return {
      data: {
        libraryId: answer.libraryId,
        documentation: answer.content,
        codeExamples: countCodeExamples(answer.content),
        trustScore: answer.trustScore ?? 0,
      },
      origin: { source: fallback.id, reason, url: answer.url },
    };
  }

  /**
   * One of the two tools' answers: its data, who answered, and the markdown the servers send. The definitions
   * below and `@pro-context/embed`'s client both answer through it (each tool is defined once).
   */
  async answer<N extends DocumentationToolName>(
    name: N,
    args: DocumentationToolArgs[N],
    context: ToolContext,
  ): Promise<{ data: DocumentationToolData[N]; origin: DocsAnswerOrigin; text: string }> {
    if (name === 'search_documentation') {
      const { data, origin } = await this.search(args as DocumentationToolArgs['search_documentation'], context);
      return { data: data as DocumentationToolData[N], origin, text: renderDocumentation(data, origin) };
    }
    const { data, origin } = await this.resolve(args as DocumentationToolArgs['resolve_library'], context);
    return { data: data as DocumentationToolData[N], origin, text: renderMatches(data, origin) };
  }

  /** The two tools as definitions (their text is markdown with the answer's provenance). */
  definitions(): ToolDefinition[] {
    const annotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };
    const search = defineTool({
      name: 'search_documentation',
      title: 'Search documentation',
      description: documentationToolDescriptions.search_documentation,
      inputSchema: searchDocumentationInput,
      outputSchema: searchDocumentationOutput,
      annotations,
      handler: async (args, context) => {
        const { data, text } = await this.answer('search_documentation', args, context);
        return { structured: data, text };
      },
    });
    const resolve = defineTool({
      name: 'resolve_library',
      title: 'Resolve library',
      description: documentationToolDescriptions.resolve_library,
      inputSchema: resolveLibraryInput,
      outputSchema: resolveLibraryOutput,
      annotations,
      handler: async (args, context) => {
        const { data, text } = await this.answer('resolve_library', args, context);
        return { structured: data, text };
      },
    });
    return [search, resolve] as unknown as ToolDefinition[];
  }
}

/** One line saying who answered, and why the fallback did. */
export function provenanceLine(origin: DocsAnswerOrigin): string {
  if (origin.source === 'local') {
    const facts = [
      typeof origin.version === 'string' ? `version ${origin.version}` : '',
      typeof origin.url === 'string' ? origin.url : '',
    ].filter(Boolean);
    return `Source: pro-context's docs engine${facts.length > 0 ? ` · ${facts.join(' · ')}` : ''}`;
  }
  const url = typeof origin.url === 'string' ? ` · ${origin.url}` : '';
  return `Source: ${origin.source === 'context7' ? 'Context7' : origin.source}${url}${origin.reason ? ` (fallback: ${origin.reason})` : ''}`;
}

/** Markdown of a `search_documentation` answer. */
export function renderDocumentation(data: SearchDocumentationResult, origin: DocsAnswerOrigin): string {
  return `# ${data.libraryId}\n\n${data.documentation}\n\n---\n\n${provenanceLine(origin)}`;
}

/** Markdown of a `resolve_library` answer. */
export function renderMatches(data: ResolveLibraryResult, origin: DocsAnswerOrigin): string {
  const list =
    data.matches.length === 0
      ? 'No matching library.'
      : data.matches
          .map((m, i) => `${i + 1}. ${m.name} (libraryId: ${m.libraryId}, trust ${m.trustScore}) — ${m.description}`)
          .join('\n');
  return `${list}\n\n---\n\n${provenanceLine(origin)}`;
}

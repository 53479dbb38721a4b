import { createToken, ProContextError, z } from '@pro-context/kernel';
import type { ToolOutcome, ToolRunner } from '@pro-context/tool-runner';

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
/** A `resolve_library` candidate. */
export type LibraryMatch = z.output<typeof libraryMatchSchema>;

/**
 * Where `search_documentation` and `resolve_library` turn for a library the local docs engine does not have:
 * Context7's hosted index, when configured. The seam is this interface: pass one as
 * `createToolClient({ remoteDocs })`, or bind one to {@link remoteDocsToken} in a plugin (the token is a
 * global symbol, so a plugin declares the same `createToken('embed.remoteDocs')` without importing this package).
 */
export interface RemoteDocs {
  /** Who answers (`'context7'`), reported in each result's metadata. */
  readonly id: string;
  /** Candidates for a library name, best first (empty when none). */
  resolve(libraryName: string, signal?: AbortSignal): Promise<LibraryMatch[]>;
  /** Documentation of a library on a topic within `tokens`; `undefined` when the service does not have it. */
  search(
    request: { libraryName: string; topic?: string; tokens: number },
    signal?: AbortSignal,
  ): Promise<SearchDocumentationResult | undefined>;
}

/** A {@link RemoteDocs} bound by a plugin (Context7 when configured). */
export const remoteDocsToken = createToken<RemoteDocs>('embed.remoteDocs');

/** How each answer was obtained, for the result's metadata. */
export interface DocsAnswerOrigin {
  /** `local` (the docs engine) or the id of the {@link RemoteDocs} that answered. */
  source: string;
  /** Further facts: the version served, the engine's confidence, why nothing matched. */
  [fact: string]: unknown;
}

/** The `get-docs` budget range: `tokens` outside it are clamped. */
const GET_DOCS_MIN_TOKENS = 500;
const GET_DOCS_MAX_TOKENS = 10_000;
/** The topic asked of the engine when the agent names none. */
const DEFAULT_TOPIC = 'overview getting started';

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
}

const notLocal = (outcome: ToolOutcome) => !outcome.ok && outcome.error.code === 'LIBRARY_NOT_FOUND';

/** Seed 004's documentation tools over the local docs engine, then a {@link RemoteDocs}. */
export class DocumentationTools {
  constructor(
    private readonly runner: ToolRunner,
    private readonly remote: RemoteDocs | undefined,
  ) {}

  /** Whether the docs engine is installed (its `resolve-library` and `get-docs` tools). */
  get available(): boolean {
    return this.runner.definition('resolve-library') !== undefined && this.runner.definition('get-docs') !== undefined;
  }

  private async resolveLocal(libraryName: string, signal?: AbortSignal) {
    const outcome = await this.runner.call('resolve-library', { query: libraryName }, signal ? { signal } : {});
    return { outcome, library: outcome.ok ? (outcome.structured as unknown as ResolvedLocal) : undefined };
  }

  /**
   * `resolve_library`: the library the engine resolves the name to (trust 10: it is in the curated registry,
   * the configuration or the package registry) with the engine's other candidates (trust 5); `snippets` is the
   * number of documentation pages in the resolved library's table of contents (0 for the others, not fetched).
   * A name the engine does not know goes to the remote docs when configured.
   */
  async resolve(
    args: z.output<typeof resolveLibraryInput>,
    signal?: AbortSignal,
  ): Promise<{ data: z.output<typeof resolveLibraryOutput>; origin: DocsAnswerOrigin }> {
    const { outcome, library } = await this.resolveLocal(args.libraryName, signal);
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
    if (!notLocal(outcome)) throw (outcome as Extract<ToolOutcome, { ok: false }>).error;
    if (this.remote) {
      const matches = await this.remote.resolve(args.libraryName, signal);
      return { data: { matches }, origin: { source: this.remote.id } };
    }
    return {
      data: { matches: [] },
      origin: {
        source: 'local',
        note: `No library named '${args.libraryName}' is known locally, and no remote docs are configured.`,
      },
    };
  }

  /**
   * `search_documentation`: the engine's best sections on the topic within `tokens` (clamped to get-docs'
   * 500–10 000), `codeExamples` counted in them, `trustScore` the engine's confidence that they match the
   * topic, on Context7's 0–10 scale. A library the engine does not know goes to the remote docs when
   * configured; otherwise `LIBRARY_NOT_FOUND`.
   */
  async search(
    args: z.output<typeof searchDocumentationInput>,
    signal?: AbortSignal,
  ): Promise<{ data: SearchDocumentationResult; origin: DocsAnswerOrigin }> {
    const { outcome, library } = await this.resolveLocal(args.libraryName, signal);
    if (!library) {
      if (!notLocal(outcome)) throw (outcome as Extract<ToolOutcome, { ok: false }>).error;
      const answer = await this.remote?.search(
        { libraryName: args.libraryName, ...(args.topic ? { topic: args.topic } : {}), tokens: args.tokens },
        signal,
      );
      if (answer && this.remote) return { data: answer, origin: { source: this.remote.id } };
      throw (outcome as Extract<ToolOutcome, { ok: false }>).error;
    }
    const maxTokens = Math.min(GET_DOCS_MAX_TOKENS, Math.max(GET_DOCS_MIN_TOKENS, args.tokens));
    const docs = await this.runner.call(
      'get-docs',
      { libraryId: library.libraryId, topic: args.topic ?? DEFAULT_TOPIC, maxTokens },
      signal ? { signal } : {},
    );
    if (!docs.ok) throw docs.error;
    const structured = docs.structured as { content: string; confidence: number; version: string; source: string };
    return {
      data: {
        libraryId: library.libraryId,
        documentation: structured.content,
        codeExamples: countCodeExamples(structured.content),
        trustScore: Math.round(structured.confidence * 100) / 10,
      },
      origin: { source: 'local', version: structured.version, url: structured.source, maxTokens },
    };
  }
}

/** Raised by the client for a tool name nobody provides. */
export function unknownToolError(name: string, available: readonly string[]): ProContextError {
  return new ProContextError('INVALID_INPUT', `Tool "${name}" not found.`, {
    suggestion: `Available tools: ${available.join(', ')}.`,
  });
}

import {
  type DocsFallback,
  type ProContextError,
  type ToolContext,
  type ToolDefinition,
  toProContextError,
} from '@pro-context/kernel';
import { docsFallbackSuppressed, withEnableHint } from '@pro-context/plugin-kit';

/**
 * Context7 (or any {@link DocsFallback}) behind the engine's `resolve-library` and `get-docs` (issue #26): when
 * the engine does not know a library, or cannot fetch its documentation, the fallback answers, and the answer
 * says so; when the fallback is bound but cannot answer (no key), the error names what would enable it. A
 * wrapper around the tools' handlers, so that the engine itself knows nothing of Context7.
 */

/** Engine errors about the question, not about reaching documentation: the fallback is not asked. */
const NOT_A_FETCH_FAILURE = new Set(['TOPIC_NOT_FOUND', 'VERSION_NOT_FOUND', 'INVALID_INPUT', 'PAGE_NOT_FOUND']);

/** Whether the fallback may answer instead of this failure. */
function fallsBack(error: ProContextError, context: ToolContext): boolean {
  return !NOT_A_FETCH_FAILURE.has(error.code) && !context.signal.aborted && !docsFallbackSuppressed();
}

/** Why the engine did not answer, in a few words. */
function reasonOf(error: ProContextError, library: string): string {
  return error.code === 'LIBRARY_NOT_FOUND'
    ? `pro-context's docs engine does not know '${library}'`
    : `the documentation of '${library}' could not be fetched (${error.code}: ${error.message.replace(/\.$/, '')})`;
}

type Handler = ToolDefinition['handler'];

/** `resolve-library`: a library the engine does not know, from the fallback's search. */
function resolveWithFallback(handler: Handler, fallback: () => DocsFallback | undefined): Handler {
  return async (args, context) => {
    const service = docsFallbackSuppressed() ? undefined : fallback();
    let result: Awaited<ReturnType<Handler>>;
    try {
      result = await handler(args, context);
    } catch (thrown) {
      const error = toProContextError(thrown);
      if (!service || !fallsBack(error, context) || args.libraryId) throw error;
      if (!service.available) throw withEnableHint(error, service.enableHint);
      const query = String(args.query);
      const [best, ...others] = await service.search(query, context.signal);
      if (!best) throw error;
      const reason = reasonOf(error, query);
      // get-docs' libraryId starts with a letter or digit: Context7's `/org/project` without its slash
      const libraryId = best.id.replace(/^\/+/, '');
      // a misspelt name of a library the engine serves: the agent sees the engine's own close matches too
      const near = (error.details?.suggestions as string[] | undefined) ?? [];
      const closeMatches = near.length > 0 ? ` The docs engine's close matches: ${near.join(', ')}.` : '';
      const note = `Found on ${service.name}, not in pro-context's docs engine (${reason}): get-docs with libraryId '${libraryId}' answers from ${service.name}.${closeMatches}`;
      const structured = {
        libraryId,
        name: best.title,
        description: best.description,
        language: '',
        defaultVersion: 'latest',
        availableVersions: [],
        sources: [service.id],
        toc: [],
        tocTruncated: false,
        alternatives: others
          .slice(0, 5)
          .map((l) => ({ id: l.id.replace(/^\/+/, ''), name: l.title, description: l.description })),
        notes: [note],
      };
      const text = [
        `# ${best.title} (${libraryId})`,
        best.description ? `\n${best.description}` : '',
        `\nSource: ${service.name}.`,
        `\n**Note:** ${note}`,
        others.length > 0 ? `\nAlso matched on ${service.name}: ${others.map((l) => l.id).join(', ')}.` : '',
      ]
        .filter(Boolean)
        .join('\n');
      return { structured, text };
    }
    // a library whose documentation could not be fetched: say who could answer get-docs instead
    const structured = result.structured as { toc?: unknown[]; notes?: string[]; name?: string };
    if (service && Array.isArray(structured.toc) && structured.toc.length === 0) {
      const note = service.available
        ? `get-docs answers from ${service.name} while ${structured.name ?? 'this library'}'s documentation cannot be fetched.`
        : service.enableHint;
      return {
        ...result,
        structured: { ...structured, notes: [...(structured.notes ?? []), note] },
        text: `${result.text}\n\n**Note:** ${note}`,
      };
    }
    return result;
  };
}

/** `get-docs`: the fallback's documentation when the engine does not know the library or cannot fetch it. */
function docsWithFallback(
  handler: Handler,
  fallback: () => DocsFallback | undefined,
  nameOf: (libraryId: string) => string | undefined,
): Handler {
  return async (args, context) => {
    try {
      return await handler(args, context);
    } catch (thrown) {
      const error = toProContextError(thrown);
      const service = fallback();
      if (!service || !fallsBack(error, context)) throw error;
      if (!service.available) throw withEnableHint(error, service.enableHint);
      const library = String(args.libraryId);
      const topic = typeof args.topic === 'string' ? args.topic : '';
      // the fallback is asked by the library's name (a configured id such as `nextjs-docs` names nothing there)
      const answer = await service.docs(
        { library: nameOf(library) ?? library, ...(topic ? { topic } : {}), tokens: Number(args.maxTokens) || 5000 },
        context.signal,
      );
      if (!answer) throw error;
      const reason = reasonOf(error, library);
      const structured = {
        content: answer.content,
        source: answer.url,
        version: 'latest',
        lastUpdated: new Date().toISOString(),
        confidence: 0.5,
        cached: false,
        stale: false,
        relatedPages: [],
        moreSections: 0,
      };
      const asked =
        typeof args.version === 'string' && args.version
          ? ` (version ${args.version} was asked; ${service.name} serves its latest)`
          : '';
      return {
        structured,
        text: `${answer.content}\n\n---\n\nSource: ${service.name} ${answer.libraryId} · ${answer.url}${asked} · fallback: ${reason}`,
      };
    }
  };
}

/** The engine's tools with `resolve-library` and `get-docs` backed by `fallback` (when one is bound). */
export function withDocsFallback(
  tools: ToolDefinition[],
  fallback: () => DocsFallback | undefined,
  nameOf: (libraryId: string) => string | undefined = () => undefined,
): ToolDefinition[] {
  return tools.map((tool) => {
    if (tool.name === 'resolve-library') return { ...tool, handler: resolveWithFallback(tool.handler, fallback) };
    if (tool.name === 'get-docs') return { ...tool, handler: docsWithFallback(tool.handler, fallback, nameOf) };
    return tool;
  });
}

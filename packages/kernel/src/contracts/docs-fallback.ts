import type { ProContextError } from '../errors/pro-context-error.js';
import { createToken } from './token.js';

/** A library a {@link DocsFallback} knows. */
export interface FallbackLibrary {
  /** The service's id of the library (Context7: `/org/project`). */
  id: string;
  title: string;
  description: string;
  /** The service's trust in the library, 0–10, when it rates libraries. */
  trustScore?: number;
  /** Code snippets or pages the service holds for it, when it says. */
  snippets?: number;
}

/** Documentation a {@link DocsFallback} answered. */
export interface FallbackDocs {
  /** The library it answered about (its own id). */
  libraryId: string;
  title: string;
  /** Markdown within the tokens asked for. */
  content: string;
  /** Where it comes from, for provenance (`https://context7.com/vercel/next.js`). */
  url: string;
  trustScore?: number;
}

/**
 * A documentation service the docs engine's tools, and tools built beside them, turn to when the engine does
 * not know a library or cannot fetch its documentation (issue #26: Context7, when the context7 plugin is
 * enabled). Bound by the plugin that provides it, whether or not it can answer: when `available` is false
 * (its key is not set), answers name what would enable it (`enableHint`) instead of saying nothing matched.
 */
export interface DocsFallback {
  /** Who answers, in provenance (`context7`). */
  readonly id: string;
  /** Its name for people (`Context7`). */
  readonly name: string;
  /** Whether it can answer now (its key is configured). */
  readonly available: boolean;
  /** One sentence naming what enables it (`Set CONTEXT7_API_KEY to answer from Context7.`). */
  readonly enableHint: string;
  /** Libraries matching a name, best first (empty when none). Throws the service's coded errors. */
  search(name: string, signal?: AbortSignal): Promise<FallbackLibrary[]>;
  /**
   * Documentation of a library (a name, or one of its ids) on a topic within `tokens`; `undefined` when the
   * service has none. Throws the service's coded errors.
   */
  docs(
    request: { library: string; topic?: string; tokens: number },
    signal?: AbortSignal,
  ): Promise<FallbackDocs | undefined>;
  /**
   * The service's own text for one of its library ids and a query, both as given (not normalized, not cut), for
   * a tool that passes an agent's request through unchanged (Codex7's `get-context7-docs`); empty when it has
   * none. Throws the service's coded errors.
   */
  text?(libraryId: string, query: string, signal?: AbortSignal): Promise<string>;
  /** The text of a tool's error result for the service's own errors (Context7's plain `[…]`); else undefined. */
  renderError?(error: ProContextError): string | undefined;
}

/**
 * The {@link DocsFallback} of a kernel, when a plugin provides one (optional: check `isBound`). A tool that consults
 * it itself runs the engine's tools inside plugin-kit's `withoutDocsFallback`.
 */
export const docsFallbackToken = createToken<DocsFallback>('kernel.docsFallback');

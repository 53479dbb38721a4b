import { createToken, estimateTokens } from '@pro-context/kernel';
import type { Context7Client, Context7Library } from './client.js';

/** A candidate library, as `@pro-context/embed`'s `resolve_library` lists it (seed 004 §2.2). */
export interface RemoteLibraryMatch {
  libraryId: string;
  name: string;
  description: string;
  trustScore: number;
  snippets: number;
}

/** Documentation of one library on a topic, as `@pro-context/embed`'s `search_documentation` answers it. */
export interface RemoteDocumentation {
  libraryId: string;
  documentation: string;
  codeExamples: number;
  trustScore: number;
}

/**
 * The remote documentation service `@pro-context/embed` asks about libraries the local docs engine does not know
 * (its `RemoteDocs`; the token is the same global id, so neither package imports the other).
 */
export interface Context7RemoteDocs {
  readonly id: 'context7';
  resolve(libraryName: string): Promise<RemoteLibraryMatch[]>;
  search(request: { libraryName: string; topic?: string; tokens: number }): Promise<RemoteDocumentation | undefined>;
}

/** `@pro-context/embed`'s `remoteDocsToken`, declared by id. */
export const remoteDocsToken = createToken<Context7RemoteDocs>('embed.remoteDocs');

const trust = (library: Context7Library | undefined) => Math.max(0, Math.min(10, library?.trustScore ?? 0));

/** Context7 as the embed client's remote documentation (bound only when a Context7 key is configured). */
export function context7RemoteDocs(client: Context7Client): Context7RemoteDocs {
  return {
    id: 'context7',
    async resolve(libraryName) {
      const libraries = await client.searchLibraries(libraryName);
      return libraries.map((l) => ({
        libraryId: l.id.startsWith('/') ? l.id : `/${l.id}`,
        name: l.title,
        description: l.description,
        trustScore: trust(l),
        snippets: l.totalSnippets ?? 0,
      }));
    },
    async search({ libraryName, topic, tokens }) {
      const [best] = await client.searchLibraries(libraryName, topic ?? libraryName);
      if (!best) return undefined;
      const key = best.id.replace(/^\/+/, '');
      const text = await client.text(`/${key}`, topic ?? libraryName);
      if (!text.trim()) return undefined;
      // within `tokens`: whole paragraphs while they fit
      const kept: string[] = [];
      let used = 0;
      for (const block of text.split(/\n{2,}/)) {
        const cost = estimateTokens(block);
        if (used + cost > tokens && kept.length > 0) break;
        kept.push(block);
        used += cost;
      }
      const documentation = kept.join('\n\n');
      return {
        libraryId: `/${key}`,
        documentation,
        codeExamples: Math.floor((documentation.match(/^```/gm)?.length ?? 0) / 2),
        trustScore: trust(best),
      };
    },
  };
}

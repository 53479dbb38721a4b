import { type DocsFallback, estimateTokens, type FallbackLibrary } from '@pro-context/kernel';
import type { Context7Client, Context7Library } from './client.js';
import { ownErrorText } from './errors.js';
import { normalizeLibraryKey, normalizeTopic } from './normalize.js';
import { CONTEXT7_API_KEY_ENV, DEFAULT_CONTEXT7_URL } from './options.js';

/** The sentence a keyless fallback answers with: what would let Context7 answer. */
export const CONTEXT7_ENABLE_HINT = `Set ${CONTEXT7_API_KEY_ENV} to answer from Context7.`;

const trust = (library: Context7Library | undefined) => Math.max(0, Math.min(10, library?.trustScore ?? 0));
const withSlash = (id: string) => (id.startsWith('/') ? id : `/${id}`);

/** Whole paragraphs of `text` while they fit in `tokens` (the first one always). */
export function withinTokens(text: string, tokens: number): string {
  const kept: string[] = [];
  let used = 0;
  for (const block of text.split(/\n{2,}/)) {
    const cost = estimateTokens(block);
    if (used + cost > tokens && kept.length > 0) break;
    kept.push(block);
    used += cost;
  }
  return kept.join('\n\n');
}

/**
 * Context7 as the kernel's {@link DocsFallback} (issue #26): bound whenever a Context7 plugin is enabled, so that
 * the tools that consult it can say what is missing (`available` false without a key) instead of "no match".
 */
export function context7Fallback(client: Context7Client): DocsFallback {
  const pageOf = (key: string) =>
    client.url.replace(/(?<!\/)\/+$/, '') === DEFAULT_CONTEXT7_URL
      ? `https://context7.com/${key}`
      : `${client.url.replace(/(?<!\/)\/+$/, '')}/v2/context?libraryId=/${key}`;
  return {
    id: 'context7',
    name: 'Context7',
    get available() {
      return client.configured;
    },
    enableHint: CONTEXT7_ENABLE_HINT,
    async search(name): Promise<FallbackLibrary[]> {
      const libraries = await client.searchLibraries(name);
      return libraries.map((l) => ({
        id: withSlash(l.id),
        title: l.title,
        description: l.description,
        trustScore: trust(l),
        snippets: l.totalSnippets ?? 0,
      }));
    },
    async docs({ library, topic, tokens }) {
      const normalized = normalizeLibraryKey(library);
      const asked = normalizeTopic(topic);
      let key: string;
      let title: string;
      let trustScore: number | undefined;
      if (normalized.kind === 'key') {
        key = normalized.key;
        title = key;
      } else {
        const [best] = await client.searchLibraries(normalized.name, asked || normalized.name);
        if (!best) return undefined;
        key = best.id.replace(/^\/+/, '');
        title = best.title;
        trustScore = trust(best);
      }
      // Context7 requires a query: without a topic, the library's name (its general documentation)
      const text = await client.text(`/${key}`, asked || (key.split('/')[1] ?? key));
      if (!text.trim()) return undefined;
      return {
        libraryId: `/${key}`,
        title,
        content: withinTokens(text, tokens),
        url: pageOf(key),
        ...(trustScore === undefined ? {} : { trustScore }),
      };
    },
    // Codex7's get-context7-docs: the agent's library id (a version kept) and topic, passed through as given
    text: (libraryId, query) => client.text(libraryId, query),
    renderError: ownErrorText,
  };
}

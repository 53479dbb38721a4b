import { type LibraryDescriptor, ProContextError, type ResolvedConfig } from '@pro-context/kernel';
import { distance } from 'fastest-levenshtein';

/** A catalog match: the library, and how the query reached it. */
export interface CatalogMatch {
  library: LibraryDescriptor;
  matchedBy: 'id' | 'name' | 'alias' | 'fuzzy';
  /** Edit distance for fuzzy matches (0 otherwise). */
  distance: number;
  /** A version written right after the library's name in the query ("pydantic v2" → `'2'`), if any. */
  versionHint?: string;
}

/** Words agents put around a library name that are never the name themselves (unless they are the whole query). */
const STOP_WORDS = new Set([
  'python',
  'javascript',
  'typescript',
  'js',
  'ts',
  'node',
  'library',
  'package',
  'doc',
  'docs',
  'documentation',
  'the',
  'for',
  'lib',
]);

const VERSION_TOKEN = /^v?(\d+(?:\.\d+)*(?:\.[x*])?)$/i;

/** Lower-cases and strips what agents add around a library name ("python fastapi", "pydantic v2", "the httpx docs"). */
export function normalizeQuery(query: string): string {
  return queryTokens(query)
    .filter((t) => !STOP_WORDS.has(t) && !VERSION_TOKEN.test(t))
    .join('-');
}

/**
 * The words of a query, lower-cased, with `_` as `-` (PyPI's spelling rule) and the punctuation of prose
 * trimmed ("langgraph's", "zod?"). Hyphenated and dotted names stay one word ("pydantic-settings", "next.js").
 */
function queryTokens(query: string): string[] {
  return query
    .toLowerCase()
    .split(/[\s,;:!?()[\]{}"`]+/)
    .map((t) =>
      t
        .replace(/['\u2019]s$/, '')
        .replace(/_/g, '-')
        .replace(/^[^a-z0-9@]+|[^a-z0-9]+$/g, ''),
    )
    .filter(Boolean);
}

/** A name as compared: lower-case, words joined by `-` ("Pydantic Settings" → `pydantic-settings`). */
const canonical = (name: string) =>
  name
    .toLowerCase()
    .replace(/[\s_]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '');

/** Splits a version-ish suffix off a query ("pydantic v2" → "2", "fastapi 0.110" → "0.110"). */
export function versionHint(query: string): string | undefined {
  return /(?:^|\s)v?(\d+(?:\.\d+)*(?:\.x)?)\s*$/i.exec(query.trim())?.[1];
}

/** How one name of a library met the query; lower tiers rank first. */
interface NameHit {
  tier: 0 | 1 | 2;
  /** Characters of the name matched (longer names are more specific: "pydantic settings" over "pydantic"). */
  length: number;
  distance: number;
  by: CatalogMatch['matchedBy'];
  /** Index of the query word after the match, for its version hint. */
  after?: number;
}

/** The version written right after the words at `after` ("zod v3", "zod version 3.25"), if any. */
function versionAfter(tokens: readonly string[], after: number | undefined): string | undefined {
  if (after === undefined) return undefined;
  const next = tokens[after] === 'version' || tokens[after] === 'v' ? tokens[after + 1] : tokens[after];
  return next ? VERSION_TOKEN.exec(next)?.[1] : undefined;
}

const better = (a: NameHit, b: NameHit | undefined) =>
  !b ||
  a.tier < b.tier ||
  (a.tier === b.tier && (a.length > b.length || (a.length === b.length && a.distance < b.distance)));

const slug = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9._/-]+/g, '-')
    .replace(/^-+|-+$/g, '');

/**
 * The known libraries: those configured by hand (`libraries:`), with `project.libraryOverrides` applied.
 * Matches queries exactly by id, name or alias, then fuzzily (Levenshtein distance up to 3).
 */
export class LibraryCatalog {
  private readonly libraries = new Map<string, LibraryDescriptor>();

  constructor(config: ResolvedConfig) {
    for (const entry of config.libraries) {
      const id = entry.id ?? slug(entry.name);
      this.libraries.set(id, { ...entry, id });
    }
    for (const [name, override] of Object.entries(config.project.libraryOverrides)) {
      const target = this.find(name);
      if (target)
        this.libraries.set(target.id, { ...target, ...override, id: target.id, name: override.name ?? target.name });
      else if (override.docsUrl || override.llmsTxtUrl || override.repository || override.localPath) {
        this.libraries.set(slug(name), { ...override, id: slug(name), name: override.name ?? name });
      }
    }
  }

  /** Every known library. */
  all(): LibraryDescriptor[] {
    return [...this.libraries.values()];
  }

  /** Adds or replaces a library (registry lookups, project detection). */
  add(library: LibraryDescriptor): void {
    this.libraries.set(library.id, library);
  }

  /** The library with this exact id (case-insensitive), name or alias, if any. */
  find(idOrName: string): LibraryDescriptor | undefined {
    const wanted = idOrName.trim().toLowerCase();
    const direct = this.libraries.get(idOrName) ?? this.libraries.get(wanted);
    if (direct) return direct;
    for (const lib of this.libraries.values()) {
      if (lib.id.toLowerCase() === wanted || lib.name.toLowerCase() === wanted) return lib;
      if (lib.aliases?.some((a) => a.toLowerCase() === wanted)) return lib;
      if (lib.packageName?.toLowerCase() === wanted) return lib;
    }
    return undefined;
  }

  /**
   * Libraries ranked by how well they match a free-text query, best first: the whole query naming a
   * library (id, name, package name or alias), then a library named by some words of it ("how do I stream
   * with langgraph", "pydantic settings"), longer names first, then close spellings (Levenshtein: up to 3
   * for a query that is just a name, up to 2 for a word inside a sentence).
   */
  match(query: string, language?: string): CatalogMatch[] {
    const candidates = this.all().filter((lib) => !language || !lib.language || lib.language === language);
    const tokens = queryTokens(query);
    const whole = normalizeQuery(query);
    const raw = canonical(query.trim());
    const isWord = (t: string) => !STOP_WORDS.has(t) && !VERSION_TOKEN.test(t);
    const ranked: { rank: NameHit; match: CatalogMatch }[] = [];
    for (const library of candidates) {
      let best: NameHit | undefined;
      const names: [string | undefined, CatalogMatch['matchedBy']][] = [
        [library.id, 'id'],
        [library.name, 'name'],
        [library.packageName, 'alias'],
        ...(library.aliases ?? []).map((a): [string, CatalogMatch['matchedBy']] => [a, 'alias']),
      ];
      for (const [name, by] of names) {
        if (!name) continue;
        const full = canonical(name);
        const tail = full.slice(full.lastIndexOf('/') + 1);
        const forms = new Set([full, tail]);
        // 1. the whole query is the name (a library called "Lib" is found by "lib" although "lib" is a stop word)
        if (forms.has(raw) || (whole && forms.has(whole))) {
          const hit: NameHit = { tier: 0, length: full.length, distance: 0, by, after: tokens.length };
          if (better(hit, best)) best = hit;
          continue;
        }
        // 2. some consecutive words of the query are the name: "pydantic settings", "lang graph", "langgraph's"
        const parts = tail.split('-').length;
        for (let size = 1; size <= Math.min(tokens.length, Math.max(parts, 2)); size++) {
          for (let start = 0; start + size <= tokens.length; start++) {
            const window = tokens.slice(start, start + size);
            if (!window.some(isWord)) continue;
            const hyphenated = window.join('-');
            const joined = size > 1 && window.join('') === tail.replace(/-/g, '');
            if (forms.has(hyphenated) || joined) {
              const hit: NameHit = { tier: 1, length: tail.length, distance: 0, by, after: start + size };
              if (better(hit, best)) best = hit;
            }
          }
        }
        if (best && best.tier < 2) continue;
        // 3. a close spelling of the whole query, or of a word (or words) of it
        if (whole) {
          const d = Math.min(distance(full, whole), distance(tail, whole));
          const limit = Math.min(3, Math.max(1, Math.floor(whole.length / 3)));
          if (d <= limit) {
            const hit: NameHit = { tier: 2, length: tail.length, distance: d, by: 'fuzzy', after: tokens.length };
            if (better(hit, best)) best = hit;
          }
        }
        if (tokens.length > 1) {
          for (let start = 0; start + parts <= tokens.length; start++) {
            const window = tokens.slice(start, start + parts);
            if (!window.every(isWord)) continue;
            const text = window.join('-');
            // a word inside a sentence is held to a stricter limit: "stream" must not become "streamlit"
            const limit = text.length < 5 ? 0 : Math.min(2, Math.floor(text.length / 4));
            const d = distance(tail, text);
            if (d > 0 && d <= limit) {
              const hit: NameHit = { tier: 2, length: tail.length, distance: d, by: 'fuzzy', after: start + parts };
              if (better(hit, best)) best = hit;
            }
          }
        }
      }
      if (!best) continue;
      const hint = best.tier === 0 ? versionHint(query) : versionAfter(tokens, best.after);
      ranked.push({
        rank: best,
        match: {
          library,
          matchedBy: best.tier === 2 ? 'fuzzy' : best.by,
          distance: best.distance,
          ...(hint ? { versionHint: hint } : {}),
        },
      });
    }
    return ranked
      .sort(
        (a, b) =>
          a.rank.tier - b.rank.tier ||
          b.rank.length - a.rank.length ||
          a.rank.distance - b.rank.distance ||
          a.match.library.id.localeCompare(b.match.library.id),
      )
      .map((r) => r.match);
  }

  /**
   * The library a tool's `libraryId` names. Unknown ids fail with `LIBRARY_NOT_FOUND` and the closest
   * known names as the suggestion (seed 001 §11.3).
   */
  require(libraryId: string): LibraryDescriptor {
    const found = this.find(libraryId);
    if (found) return found;
    const near = this.match(libraryId).map((m) => m.library.id);
    throw new ProContextError('LIBRARY_NOT_FOUND', `No library '${libraryId}' is known.`, {
      suggestion:
        near.length > 0
          ? `Did you mean '${near[0]}'?${near.length > 1 ? ` Other close matches: ${near.slice(1, 4).join(', ')}.` : ''}`
          : 'Call resolve-library with the library name to find its ID, or list-libraries to see what is available.',
      details: { suggestions: near.slice(0, 5) },
    });
  }
}

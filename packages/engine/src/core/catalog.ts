import { type LibraryDescriptor, ProContextError, type ResolvedConfig } from '@pro-context/kernel';
import { distance } from 'fastest-levenshtein';

/** A catalog match: the library, and how the query reached it. */
export interface CatalogMatch {
  library: LibraryDescriptor;
  matchedBy: 'id' | 'name' | 'alias' | 'fuzzy';
  /** Edit distance for fuzzy matches (0 otherwise). */
  distance: number;
}

/** Lower-cases and strips what agents add around a library name ("python fastapi", "pydantic v2", "the httpx docs"). */
export function normalizeQuery(query: string): string {
  return query
    .toLowerCase()
    .replace(/\b(python|javascript|typescript|js|ts|node|library|package|docs?|documentation|the|for|lib)\b/g, ' ')
    .replace(/\bv?\d+(\.\d+)*(\.x)?\b/g, ' ')
    .replace(/[^a-z0-9._/-]+/g, ' ')
    .trim()
    .replace(/\s+/g, '-');
}

/** Splits a version-ish suffix off a query ("pydantic v2" → "2", "fastapi 0.110" → "0.110"). */
export function versionHint(query: string): string | undefined {
  return /\bv?(\d+(?:\.\d+)*(?:\.x)?)\s*$/i.exec(query.trim())?.[1];
}

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

  /** Libraries ranked by how well they match a free-text query, best first. */
  match(query: string, language?: string): CatalogMatch[] {
    const candidates = this.all().filter((lib) => !language || !lib.language || lib.language === language);
    const wanted = normalizeQuery(query);
    if (!wanted) return [];
    const out: CatalogMatch[] = [];
    for (const library of candidates) {
      const names = [library.id, library.name, library.packageName, ...(library.aliases ?? [])]
        .filter((n): n is string => Boolean(n))
        .map((n) => ({ raw: n, norm: normalizeQuery(n) || n.toLowerCase() }));
      const tail = (n: string) => n.slice(n.lastIndexOf('/') + 1);
      const exact = names.find(
        (n) => n.norm === wanted || tail(n.norm) === wanted || n.raw.toLowerCase() === query.trim().toLowerCase(),
      );
      if (exact) {
        out.push({
          library,
          matchedBy: exact.raw === library.id ? 'id' : exact.raw === library.name ? 'name' : 'alias',
          distance: 0,
        });
        continue;
      }
      const best = Math.min(...names.map((n) => Math.min(distance(n.norm, wanted), distance(tail(n.norm), wanted))));
      const limit = Math.min(3, Math.max(1, Math.floor(wanted.length / 3)));
      if (best <= limit) out.push({ library, matchedBy: 'fuzzy', distance: best });
    }
    return out.sort((a, b) => a.distance - b.distance || a.library.id.localeCompare(b.library.id));
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

import type {
  FetchContext,
  LibraryDescriptor,
  LibraryLookupHints,
  LibraryProvider,
  LibrarySettingsDeclaration,
  Logger,
} from '@pro-context/kernel';
import { applyLibrarySettings } from '@pro-context/plugin-kit';
import { slug } from '../libraries/config-provider.js';
import { engineMessages } from '../tools/render-errors.js';
import { type CatalogMatch, canonical, rankByName } from './name-match.js';

export type { CatalogMatch } from './name-match.js';
export { normalizeQuery, trimToken, versionHint } from './name-match.js';

/** The languages of each package ecosystem's libraries. */
const ECOSYSTEM_LANGUAGES: Record<string, string[]> = { pypi: ['python'], npm: ['javascript', 'typescript'] };

/**
 * `over`'s defined fields over `base`'s, field by field; `sources` bags merge per adapter key, field by field.
 */
export function mergeLibrary<T extends Partial<LibraryDescriptor>>(base: T, over: Partial<LibraryDescriptor>): T {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue;
    if (key === 'sources' && base.sources) {
      const bags: Record<string, Record<string, unknown>> = { ...base.sources };
      for (const [bag, settings] of Object.entries(value as Record<string, Record<string, unknown>>))
        bags[bag] = { ...(bags[bag] ?? {}), ...settings };
      out.sources = bags;
    } else out[key] = value;
  }
  return out as T;
}

/**
 * The known libraries, from every {@link LibraryProvider} (config first: it binds priority 0): each library
 * merged field by field across providers, the lowest priority number winning, then the providers' overrides
 * (`project.libraryOverrides`) applied. A name no provider listed is looked up through the providers
 * ({@link lookup}). Matches queries exactly by id, name or alias, then fuzzily (Levenshtein distance up to 3).
 */
export class LibraryCatalog {
  /** Built on first use ({@link held}): a server answers `initialize` and `tools/list` without reading it. */
  private built: Map<string, LibraryDescriptor> | undefined;
  private readonly providers: readonly LibraryProvider[];
  /**
   * What the providers whose libraries arrive after start (`watch`: project detection) listed at construction:
   * the catalog holds that, read when it is built; what they deliver later comes through {@link adopt}.
   */
  private readonly atStart = new Map<LibraryProvider, readonly LibraryDescriptor[]>();

  constructor(
    providers: readonly LibraryProvider[],
    private readonly settings: readonly LibrarySettingsDeclaration[] = [],
    private readonly logger?: Logger,
    /** Called when a library joins, changes or leaves the catalog after start (answers may change with it). */
    private readonly onChange?: (reason: string) => void,
    /**
     * Called once with every library, when the catalog is first read (what start-up used to do: let read-page
     * fetch from their documentation hosts).
     */
    private readonly onLoad?: (libraries: readonly LibraryDescriptor[]) => void,
  ) {
    this.providers = [...providers].sort((a, b) => a.priority - b.priority);
    for (const provider of this.providers) if (provider.watch) this.atStart.set(provider, [...provider.libraries()]);
  }

  /**
   * Reads the providers' libraries (the curated registry: some 470 entries, each settings bag validated) on
   * first use, not at start: nothing of it is needed before the first tool call. The catalog built is the one
   * construction would have built (a watching provider as it was then).
   */
  load(): void {
    this.held();
  }

  /** The libraries by id, read from the providers the first time. */
  private held(): Map<string, LibraryDescriptor> {
    if (this.built) return this.built;
    const libraries = new Map<string, LibraryDescriptor>();
    // set first: an override is placed by name through find(), which reads this map
    this.built = libraries;
    try {
      this.fill(libraries);
    } catch (error) {
      this.built = undefined;
      throw error;
    }
    this.onLoad?.([...libraries.values()]);
    return libraries;
  }

  private fill(libraries: Map<string, LibraryDescriptor>): void {
    // highest priority number first, so a lower one overrides it field by field
    const weakestFirst = [...this.providers].reverse();
    for (const provider of weakestFirst) {
      for (const library of this.atStart.get(provider) ?? provider.libraries()) {
        const known = libraries.get(library.id);
        libraries.set(library.id, this.settled(known ? mergeLibrary(known, library) : library, provider.id));
      }
    }
    for (const provider of weakestFirst) {
      for (const [name, override] of Object.entries(provider.overrides?.() ?? {})) {
        const target = this.find(name);
        if (target)
          libraries.set(target.id, {
            ...mergeLibrary(target, override),
            id: target.id,
            name: override.name ?? target.name,
          });
        else if (
          override.docsUrl ||
          override.repository ||
          override.localPath ||
          Object.keys(override.sources ?? {}).length > 0
        ) {
          libraries.set(slug(name), { ...override, id: slug(name), name: override.name ?? name });
        }
      }
    }
  }

  /** A library as a provider gave it, with legacy keys in their bags and bags checked (a bad bag is dropped). */
  private settled(library: LibraryDescriptor, providerId: string): LibraryDescriptor {
    const report = applyLibrarySettings(library, this.settings);
    for (const issue of report.issues) {
      this.logger?.warn(`library provider '${providerId}' gave ${library.id} a bad ${issue.path}: ${issue.message}`);
    }
    return report.library;
  }

  /**
   * Asks the providers, in priority order, for a name none of them listed; a library found joins the
   * catalog. `undefined` when no provider knows it (a failing provider is logged and skipped, and its error
   * pushed to `failures` when given: a registry that could not be asked is not a registry that said no).
   */
  async lookup(
    name: string,
    context?: FetchContext,
    hints?: LibraryLookupHints,
    failures?: unknown[],
  ): Promise<LibraryDescriptor | undefined> {
    for (const provider of this.providers) {
      if (!provider.lookup) continue;
      context?.signal?.throwIfAborted();
      try {
        const found = await provider.lookup(name, context, hints);
        if (!found) continue;
        const library = this.settled(found, provider.id);
        // a lookup never replaces a library the catalog knows (a package name spelt otherwise than its id): the
        // same library is answered as known; another language's library of that id is not taken
        const known = this.held().get(library.id);
        if (known?.language && library.language && known.language !== library.language) continue;
        if (known) return known;
        this.add(library);
        return library;
      } catch (error) {
        if (context?.signal?.aborted) throw error;
        this.logger?.warn(`library provider '${provider.id}' failed to look up '${name}'`, { error });
        failures?.push(error);
      }
    }
    return undefined;
  }

  /** Every known library. */
  all(): LibraryDescriptor[] {
    return [...this.held().values()];
  }

  /**
   * A library a provider delivered after start ({@link LibraryProvider.watch}: project detection), placed
   * beneath what is known: a known library with the same package (same ecosystem and name), or of that name
   * in a compatible language, keeps its fields and gains only those it lacks (`installedVersion`,
   * `detectedFrom`); otherwise the library joins as given. Returns the library as the catalog now holds it.
   */
  adopt(library: LibraryDescriptor, providerId: string): LibraryDescriptor {
    const target = this.samePackage(library);
    const merged = target ? mergeLibrary(this.settled(library, providerId), target) : this.settled(library, providerId);
    // an id another library holds (`requests` in npm, detected `requests` from PyPI) is qualified by ecosystem
    const ecosystem = Object.keys(library.packages ?? {})[0] ?? 'project';
    const id = target?.id ?? (this.held().has(library.id) ? `${ecosystem}/${library.id}` : library.id);
    // a new scan's installed version replaces the last one
    const held: LibraryDescriptor = { ...merged, id, name: target?.name ?? library.name };
    if (library.installedVersion) held.installedVersion = library.installedVersion;
    if (library.detectedFrom) held.detectedFrom = library.detectedFrom;
    this.held().set(id, held);
    this.onChange?.(`library ${id} adopted`);
    return held;
  }

  /** The known library that is the same package as `library` (see {@link adopt}), if any. */
  private samePackage(library: LibraryDescriptor): LibraryDescriptor | undefined {
    const packages = Object.entries(library.packages ?? {});
    for (const [ecosystem, name] of packages) {
      const wanted = name.toLowerCase();
      for (const known of this.held().values()) if (known.packages?.[ecosystem]?.toLowerCase() === wanted) return known;
    }
    const languages = new Set(packages.flatMap(([ecosystem]) => ECOSYSTEM_LANGUAGES[ecosystem]));
    for (const name of [library.id, ...packages.map(([, n]) => n)]) {
      const known = this.find(name);
      if (!known || (known.packages && Object.keys(known.packages).length > 0)) continue;
      if (!known.language || languages.size === 0 || languages.has(known.language.toLowerCase())) return known;
    }
    return undefined;
  }

  /** Removes a library (a placeholder a provider's lookup replaced). */
  remove(id: string): void {
    if (this.held().delete(id)) this.onChange?.(`library ${id} removed`);
  }

  /** Adds or replaces a library (registry lookups, project detection). */
  add(library: LibraryDescriptor): void {
    this.held().set(library.id, library);
    this.onChange?.(`library ${library.id} added`);
  }

  /** The library with this exact id (case-insensitive), name or alias, if any. */
  find(idOrName: string): LibraryDescriptor | undefined {
    const wanted = idOrName.trim().toLowerCase();
    const direct = this.held().get(idOrName) ?? this.held().get(wanted);
    if (direct) return direct;
    for (const lib of this.held().values()) {
      if (lib.id.toLowerCase() === wanted || lib.name.toLowerCase() === wanted) return lib;
      if (lib.aliases?.some((a) => a.toLowerCase() === wanted)) return lib;
      if (lib.packageName?.toLowerCase() === wanted) return lib;
    }
    return undefined;
  }

  /**
   * Libraries ranked by how well they match a free-text query, best first: the whole query naming a
   * library (id, name, package name or alias), then a library named by some words of it ("how do I stream
   * with langgraph", "pydantic settings"), longer names first, then close spellings: up to 3 edits
   * (Levenshtein) for a query that is just a name of 5 letters or more; for a word inside a sentence, one
   * edit in a word of 6 letters or more that is not an inflection of the name ("types" is not Typer).
   * A version written onto the name ("zod@3", "pydantic>=2", "typer 0.15") is the match's `versionHint`.
   */
  match(query: string, language?: string): CatalogMatch[] {
    return this.rank(query, language, 'match');
  }

  /**
   * Ids of libraries a query may have meant, closest first, for a `LIBRARY_NOT_FOUND` suggestion: what
   * {@link match} finds, and close spellings too loose to resolve to ("http" → httpx, "type" → typer).
   */
  suggest(query: string, language?: string): string[] {
    return this.rank(query, language, 'suggest').map((m) => m.library.id);
  }

  private rank(query: string, language: string | undefined, mode: 'match' | 'suggest'): CatalogMatch[] {
    const candidates = this.all().filter((lib) => !language || !lib.language || lib.language === language);
    return rankByName(candidates, query, mode);
  }

  /**
   * The other libraries of a library's family: those whose id or name is its name followed by more words
   * (`pydantic` → `pydantic-ai`, `pydantic-settings`), in the language asked, by id.
   */
  family(library: LibraryDescriptor, language?: string): LibraryDescriptor[] {
    const stems = new Set([library.id, library.name].map((n) => canonical(n).slice(canonical(n).lastIndexOf('/') + 1)));
    return this.all()
      .filter((lib) => lib.id !== library.id && (!language || !lib.language || lib.language === language))
      .filter((lib) =>
        [lib.id, lib.name].some((n) => {
          const c = canonical(n);
          const tail = c.slice(c.lastIndexOf('/') + 1);
          return [...stems].some((stem) => stem.length > 1 && tail.startsWith(`${stem}-`));
        }),
      )
      .sort((a, b) => a.id.localeCompare(b.id));
  }

  /**
   * The library a tool's `libraryId` names. Unknown ids fail with `LIBRARY_NOT_FOUND` and the closest
   * known names as the suggestion (seed 001 §11.3).
   */
  require(libraryId: string): LibraryDescriptor {
    const found = this.find(libraryId);
    if (found) return found;
    const near = this.suggest(libraryId);
    const suggestion = didYouMean(near);
    throw engineMessages.create(
      'UNKNOWN_LIBRARY',
      { libraryId },
      { ...(suggestion ? { suggestion } : {}), details: { suggestions: near.slice(0, 5) } },
    );
  }
}

/** "Did you mean 'httpx'?", naming up to three other close matches, for a `LIBRARY_NOT_FOUND`; none without ids. */
export function didYouMean(ids: readonly string[]): string | undefined {
  if (ids.length === 0) return undefined;
  const others = ids.slice(1, 4);
  return `Did you mean '${ids[0]}'?${others.length > 0 ? ` Other close matches: ${others.join(', ')}.` : ''}`;
}

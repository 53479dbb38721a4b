import { lookupKey, registryId } from './ids.js';
import { type KnownLibrary, type Language, languages } from './schema.js';

/** A name that two entries of one language both claim (as id, package name or alias), or an id off the rule. */
export interface RegistryProblem {
  key: string;
  language: Language;
  message: string;
}

type Kind = 'id' | 'package' | 'alias';

/**
 * Lookups over a list of entries: by id, by package name per language, by alias. Names are compared by
 * {@link lookupKey}. Within a language every id, package name and alias names one entry only; a name may name
 * one entry in each language (`openai` is the Python SDK's id and the npm package of `openai-js`).
 */
export class KnownLibraryRegistry {
  readonly libraries: readonly KnownLibrary[];
  readonly #byId = new Map<string, KnownLibrary>();
  readonly #names = new Map<Language, Map<string, { library: KnownLibrary; kind: Kind }>>();
  readonly #problems: RegistryProblem[] = [];

  constructor(libraries: readonly KnownLibrary[]) {
    this.libraries = libraries;
    for (const language of languages) this.#names.set(language, new Map());
    const pythonIds = new Set(libraries.filter((l) => l.language === 'python').map((l) => l.id));
    for (const library of libraries) {
      const { id, language } = library;
      if (this.#byId.has(id)) this.#problem(id, language, `id ${id} is used twice`);
      else this.#byId.set(id, library);
      const expected = registryId(library.packages[0]!, language, pythonIds);
      if (id !== expected) this.#problem(id, language, `id ${id} should be ${expected} by the id rule`);
      this.#claim(id, library, 'id');
      for (const name of library.packages) this.#claim(name, library, 'package');
      for (const alias of library.aliases) this.#claim(alias, library, 'alias');
    }
  }

  /** Conflicts found while indexing; empty for a well-formed list. */
  problems(): readonly RegistryProblem[] {
    return this.#problems;
  }

  /** The entry with this exact id. */
  get(id: string): KnownLibrary | undefined {
    return this.#byId.get(id);
  }

  /** The entry that publishes `packageName` in `language`'s registry (PyPI names compared PEP 503-normalized). */
  findByPackage(packageName: string, language: Language): KnownLibrary | undefined {
    const key = lookupKey(packageName, language);
    const library = this.#names.get(language)!.get(key)?.library;
    return library?.packages.some((p) => lookupKey(p, language) === key) ? library : undefined;
  }

  /**
   * The entry `name` designates in `language`: its id, one of its package names or one of its aliases.
   * Without a language, every language is tried, Python first.
   */
  find(name: string, language?: Language): KnownLibrary | undefined {
    for (const lang of language ? [language] : languages) {
      const hit = this.#names.get(lang)!.get(lookupKey(name, lang));
      if (hit) return hit.library;
    }
    return undefined;
  }

  /** Every entry `name` designates, one per language at most, Python first (`openai` → the Python and JS SDKs). */
  findAll(name: string): KnownLibrary[] {
    const found: KnownLibrary[] = [];
    for (const lang of languages) {
      const hit = this.#names.get(lang)!.get(lookupKey(name, lang));
      if (hit) found.push(hit.library);
    }
    return found;
  }

  /** The entries of one language, or carrying one category. */
  filter(options: { language?: Language; category?: string }): KnownLibrary[] {
    return this.libraries.filter(
      (l) =>
        (!options.language || l.language === options.language) &&
        (!options.category || (l.categories as readonly string[]).includes(options.category)),
    );
  }

  #claim(name: string, library: KnownLibrary, kind: Kind): void {
    const key = lookupKey(name, library.language);
    const names = this.#names.get(library.language)!;
    const held = names.get(key);
    if (!held) {
      names.set(key, { library, kind });
    } else if (held.library !== library) {
      this.#problem(
        key,
        library.language,
        `${kind} "${name}" of ${library.id} is already the ${held.kind} of ${held.library.id} (${library.language})`,
      );
    }
  }

  #problem(key: string, language: Language, message: string): void {
    this.#problems.push({ key, language, message });
  }
}

import {
  type FetchContext,
  type LibraryDescriptor,
  type LibraryLookupHints,
  type LibraryProvider,
  type LibrarySettingsDeclaration,
  type Logger,
  ProContextError,
} from '@pro-context/kernel';
import { distance } from 'fastest-levenshtein';
import { withinOneEdit } from '../core/ranking.js';
import { slug } from '../libraries/config-provider.js';
import { applyLibrarySettings } from '../libraries/settings.js';

/** The languages of each package ecosystem's libraries. */
const ECOSYSTEM_LANGUAGES: Record<string, string[]> = { pypi: ['python'], npm: ['javascript', 'typescript'] };

/** A catalog match: the library, and how the query reached it. */
export interface CatalogMatch {
  library: LibraryDescriptor;
  matchedBy: 'id' | 'name' | 'alias' | 'fuzzy';
  /** Edit distance for fuzzy matches (0 otherwise). */
  distance: number;
  /**
   * A version written right after the library's name in the query, a range as written ("pydantic v2" → `'2'`,
   * "zod@^3.22" → `'^3.22'`, "pydantic>=2" → `'>=2'`), if any.
   */
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

/**
 * A version requirement written onto a name, as package managers spell it: `zod@3`, `zod@^3.22`,
 * `pydantic==2.5`, `pydantic >= 2`, `typer~=0.15`, `zod^3`. Its version is read like "pydantic v2".
 */
// `@(?:\s*[\^~])?\s*` rather than `@\s*[\^~]?\s*`: one way to match the blanks after `@` keeps it linear (issue #25)
const VERSION_OPERATOR = /(?<=[a-z0-9_\])-])\s*(?:@(?:\s*[\^~])?|={1,3}|>=|~=|~>|\^|~)\s*(?=v?\d)/gi;
/** Bounds that name no version to serve (`pydantic<2`, `httpx != 0.28`, `zod>3`): dropped, never read as a hint. */
const VERSION_EXCLUSION = /(?<=[a-z0-9_\])-])\s*(?:<=?|!=|>(?!=))\s*v?\d[\w.*]*/gi;

/**
 * The query with version requirements spaced off the name: "zod@3" → "zod 3", "pydantic<2" → "pydantic".
 * With `keepOperators`, a range's operator stays on its version ("zod@^3.22" → "zod ^3.22", "pydantic>=2" →
 * "pydantic >=2"), so the hint is the range as written; an npm-style `@` alone is dropped ("zod@3" → "zod 3").
 */
function spaceVersions(query: string, keepOperators = false): string {
  return query
    .replace(VERSION_EXCLUSION, ' ')
    .replace(VERSION_OPERATOR, (operator) => (keepOperators ? ` ${operator.replace(/[@\s]/g, '')}` : ' '));
}

/** The operator a word of a query starts with (`^`, `~`, `==`, `>=`, `~=`), kept as written in a version hint. */
const LEADING_OPERATOR = /^(?:[<>=!~]=|={2,3}|~>|[\^~=])/;

/** Word endings of English inflections ("types", "typed", "typer", "settings", "streaming"). */
const INFLECTIONS = ['s', 'es', 'd', 'ed', 'r', 'er', 'ing'];

/**
 * Whether two words are forms of one English word ("types"/"typer", "typed"/"types") rather than a typo of
 * each other: a sentence saying "types" is about types, not about Typer.
 */
function inflections(a: string, b: string): boolean {
  const stems = (w: string) =>
    new Set([
      w,
      ...INFLECTIONS.filter((e) => w.endsWith(e) && w.length > e.length + 2).map((e) => w.slice(0, -e.length)),
    ]);
  const of = stems(a);
  return [...stems(b)].some((s) => of.has(s));
}

/**
 * Whether a word (or words) of a sentence is a misspelling of a name. Held far stricter than a query that
 * is just a name, because most words one edit from a short name are English words ("types" is not Typer,
 * "stream" is not Streamlit): 6 letters or more, one edit, and not an inflection of the name.
 */
function sentenceTypo(name: string, text: string, words: number): boolean {
  if (text.length < 6 || text === name || !withinOneEdit(name, text)) return false;
  return words > 1 || !inflections(name, text);
}

/** Lower-cases and strips what agents add around a library name ("python fastapi", "pydantic v2", "the httpx docs"). */
export function normalizeQuery(query: string): string {
  return queryTokens(spaceVersions(query))
    .filter((t) => !STOP_WORDS.has(t) && !VERSION_TOKEN.test(t))
    .join('-');
}

/**
 * The words of a query, lower-cased, with `_` as `-` (PyPI's spelling rule) and the punctuation of prose
 * trimmed ("langgraph's", "zod?"). Hyphenated and dotted names stay one word ("pydantic-settings", "next.js").
 */
function queryTokens(query: string): string[] {
  return queryWords(query).map((w) => w.token);
}

/** The words of {@link queryTokens}, each with the operator it was written with (`^3.22` → `^`). */
function queryWords(query: string): { token: string; operator: string }[] {
  return query
    .toLowerCase()
    .split(/[\s,;:!?()[\]{}"`]+/)
    .map((t) => ({
      token: trimToken(t.replace(/['\u2019]s$/, '').replace(/_/g, '-')),
      operator: LEADING_OPERATOR.exec(t)?.[0] ?? '',
    }))
    .filter((w) => w.token);
}

const isAlphanumeric = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 48 && c <= 57);

/**
 * A word without leading punctuation other than `@` and without trailing punctuation: what
 * `/^[^a-z0-9@]+|[^a-z0-9]+$/g` removed, as a scan (the regex retried its trailing run from every position, issue #25).
 */
export function trimToken(word: string): string {
  let start = 0;
  while (start < word.length && !isAlphanumeric(word.charCodeAt(start)) && word[start] !== '@') start++;
  let end = word.length;
  while (end > start && !isAlphanumeric(word.charCodeAt(end - 1))) end--;
  return word.slice(start, end);
}

/** A name as compared: lower-case, words joined by `-` ("Pydantic Settings" → `pydantic-settings`). */
const canonical = (name: string) =>
  name
    .toLowerCase()
    .replace(/[\s_]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^-|-$/g, '');

/**
 * Splits a version-ish suffix off a query, a range as written ("pydantic v2" → "2", "fastapi 0.110" →
 * "0.110", "zod@3" → "3", "zod@^3.22" → "^3.22", "pydantic==2.5" → "==2.5", "pydantic >= 2" → ">=2").
 * Tokenizing only: the range is evaluated by the registry or the engine's version matching.
 */
export function versionHint(query: string): string | undefined {
  const found = /(?:^|\s)((?:[<>=!~]=|={2,3}|~>|[\^~=])?)v?(\d+(?:\.\d+)*(?:\.x)?)\s*$/i.exec(
    spaceVersions(query, true).trim(),
  );
  return found ? `${found[1]}${found[2]}` : undefined;
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

/** Words that announce the version after them ("zod version 3.25", "zod ver 3"). */
const VERSION_WORDS = new Set(['version', 'ver', 'v']);

/**
 * The version written right after the words at `after` ("zod v3", "zod version 3.25", "pydantic==2.5
 * validators" → "==2.5"), with its operator, if any.
 */
function versionAfter(
  words: readonly { token: string; operator: string }[],
  after: number | undefined,
): string | undefined {
  if (after === undefined) return undefined;
  const next = VERSION_WORDS.has(words[after]?.token ?? '') ? words[after + 1] : words[after];
  const version = next ? VERSION_TOKEN.exec(next.token)?.[1] : undefined;
  return version === undefined ? undefined : `${next?.operator ?? ''}${version}`;
}

/** Between equally good hits, a library whose id the query is comes first, then by name, then by alias. */
const BY_RANK: Record<CatalogMatch['matchedBy'], number> = { id: 0, name: 1, alias: 2, fuzzy: 3 };

const better = (a: NameHit, b: NameHit | undefined) =>
  !b ||
  a.tier < b.tier ||
  (a.tier === b.tier && (a.length > b.length || (a.length === b.length && a.distance < b.distance)));

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
  private readonly libraries = new Map<string, LibraryDescriptor>();
  private readonly providers: readonly LibraryProvider[];

  constructor(
    providers: readonly LibraryProvider[],
    private readonly settings: readonly LibrarySettingsDeclaration[] = [],
    private readonly logger?: Logger,
    /** Called when a library joins, changes or leaves the catalog after start (answers may change with it). */
    private readonly onChange?: (reason: string) => void,
  ) {
    this.providers = [...providers].sort((a, b) => a.priority - b.priority);
    // highest priority number first, so a lower one overrides it field by field
    const weakestFirst = [...this.providers].reverse();
    for (const provider of weakestFirst) {
      for (const library of provider.libraries()) {
        const known = this.libraries.get(library.id);
        this.libraries.set(library.id, this.settled(known ? mergeLibrary(known, library) : library, provider.id));
      }
    }
    for (const provider of weakestFirst) {
      for (const [name, override] of Object.entries(provider.overrides?.() ?? {})) {
        const target = this.find(name);
        if (target)
          this.libraries.set(target.id, {
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
          this.libraries.set(slug(name), { ...override, id: slug(name), name: override.name ?? name });
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
        const known = this.libraries.get(library.id);
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
    return [...this.libraries.values()];
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
    const id = target?.id ?? (this.libraries.has(library.id) ? `${ecosystem}/${library.id}` : library.id);
    // a new scan's installed version replaces the last one
    const held: LibraryDescriptor = { ...merged, id, name: target?.name ?? library.name };
    if (library.installedVersion) held.installedVersion = library.installedVersion;
    if (library.detectedFrom) held.detectedFrom = library.detectedFrom;
    this.libraries.set(id, held);
    this.onChange?.(`library ${id} adopted`);
    return held;
  }

  /** The known library that is the same package as `library` (see {@link adopt}), if any. */
  private samePackage(library: LibraryDescriptor): LibraryDescriptor | undefined {
    const packages = Object.entries(library.packages ?? {});
    for (const [ecosystem, name] of packages) {
      const wanted = name.toLowerCase();
      for (const known of this.libraries.values())
        if (known.packages?.[ecosystem]?.toLowerCase() === wanted) return known;
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
    if (this.libraries.delete(id)) this.onChange?.(`library ${id} removed`);
  }

  /** Adds or replaces a library (registry lookups, project detection). */
  add(library: LibraryDescriptor): void {
    this.libraries.set(library.id, library);
    this.onChange?.(`library ${library.id} added`);
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
    const spaced = spaceVersions(query);
    const tokens = queryTokens(spaced);
    // the same words, each with the range operator written before it ("zod@^3.22" → `^`)
    const words = queryWords(spaceVersions(query, true));
    const whole = normalizeQuery(spaced);
    const raw = canonical(spaced.trim());
    const isWord = (t: string) => !STOP_WORDS.has(t) && !VERSION_TOKEN.test(t);
    // a query of more than one word (a version aside) is a sentence, held to the stricter spelling rule
    const sentence = tokens.filter((t) => !VERSION_TOKEN.test(t) && !VERSION_WORDS.has(t)).length > 1;
    const strict = mode === 'match';
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
          // a scoped name met by its tail ("@ai-sdk/openai" by "openai") is as specific as the tail, and ranks
          // after a name met whole ("openai")
          const met = forms.has(raw) ? raw : whole;
          const length = full === met ? met.length : met.length - 0.5;
          const hit: NameHit = { tier: 0, length, distance: 0, by, after: tokens.length };
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
          // a suggestion reaches the seed's distance (Levenshtein ≤ 3: "pydan" → pydantic) unless the query is
          // too short for it to mean anything ("abc" is 3 edits from every three-letter name)
          const limit = strict
            ? Math.min(3, Math.max(1, Math.floor(whole.length / 3)))
            : Math.min(3, Math.max(1, whole.length - 2));
          // "http" is a word, not a typo of httpx: a short query only suggests a name
          const close = !strict
            ? d <= limit
            : sentence
              ? sentenceTypo(tail, whole, whole.split('-').length) || sentenceTypo(full, whole, whole.split('-').length)
              : whole.length >= 5 && d <= limit;
          if (close) {
            const hit: NameHit = { tier: 2, length: tail.length, distance: d, by: 'fuzzy', after: tokens.length };
            if (better(hit, best)) best = hit;
          }
        }
        if (tokens.length > 1) {
          for (let start = 0; start + parts <= tokens.length; start++) {
            const window = tokens.slice(start, start + parts);
            if (!window.every(isWord)) continue;
            const text = window.join('-');
            const limit = text.length < 5 ? 0 : Math.min(2, Math.floor(text.length / 4));
            const d = distance(tail, text);
            if (strict ? sentenceTypo(tail, text, parts) : d > 0 && d <= limit) {
              const hit: NameHit = { tier: 2, length: tail.length, distance: d, by: 'fuzzy', after: start + parts };
              if (better(hit, best)) best = hit;
            }
          }
        }
      }
      if (!best) continue;
      const hint = best.tier === 0 ? versionHint(query) : versionAfter(words, best.after);
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
          BY_RANK[a.rank.by] - BY_RANK[b.rank.by] ||
          a.rank.distance - b.rank.distance ||
          a.match.library.id.localeCompare(b.match.library.id),
      )
      .map((r) => r.match);
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
    throw new ProContextError('LIBRARY_NOT_FOUND', `No library '${libraryId}' is known.`, {
      suggestion:
        didYouMean(near) ??
        "Call resolve-library with the library's name to find its ID (list-libraries with a query, e.g. query: 'http client', lists candidates).",
      details: { suggestions: near.slice(0, 5) },
    });
  }
}

/** "Did you mean 'httpx'?", naming up to three other close matches, for a `LIBRARY_NOT_FOUND`; none without ids. */
export function didYouMean(ids: readonly string[]): string | undefined {
  if (ids.length === 0) return undefined;
  const others = ids.slice(1, 4);
  return `Did you mean '${ids[0]}'?${others.length > 0 ? ` Other close matches: ${others.join(', ')}.` : ''}`;
}

import { type Language, languages } from './schema.js';

/**
 * PEP 503 normalization of a PyPI name: lower case, runs of `-`, `_` and `.` become one `-`
 * (`Typing_Extensions` → `typing-extensions`).
 */
export function normalizePypiName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

/**
 * The key a name is compared by within a language: package names as their registry compares them (PyPI
 * names PEP 503-normalized, npm names lower-cased), aliases and ids lower-cased with runs of whitespace made
 * one space. `Pydantic v2`, `pydantic  V2` → `pydantic v2`; `typing_extensions` (python) → `typing-extensions`.
 */
export function lookupKey(name: string, language: Language): string {
  const trimmed = name.trim().toLowerCase().replace(/\s+/g, ' ');
  if (language === 'python' && !trimmed.includes(' ')) return normalizePypiName(trimmed);
  return trimmed;
}

/**
 * The id the registry's rule gives the primary package of an entry, before the cross-ecosystem suffix:
 *
 * - PyPI: the PEP 503-normalized name (`Flask` → `flask`, `llama_index` → `llama-index`).
 * - npm, unscoped: the name itself (`react`, `socket.io`).
 * - npm, scoped `@scope/name`: `scope-name` (`@tanstack/react-query` → `tanstack-react-query`), or just `name`
 *   when one of scope and name begins with the other (`@supabase/supabase-js` → `supabase-js`,
 *   `@biomejs/biome` → `biome`).
 *
 * A JavaScript entry whose id would equal a Python entry's id (the same project in both ecosystems: `openai`,
 * `langchain`, `stripe`) takes the suffix `-js` (`openai-js`); the Python entry keeps the bare id, since the
 * project's tools were Python-first. See {@link registryId}.
 */
export function baseId(primaryPackage: string, language: Language): string {
  if (language === 'python') return normalizePypiName(primaryPackage);
  const name = primaryPackage.toLowerCase();
  const scoped = /^@([^/]+)\/(.+)$/.exec(name);
  if (!scoped) return name;
  const [, scope, rest] = scoped as unknown as [string, string, string];
  return rest.startsWith(scope) || scope.startsWith(rest) ? rest : `${scope}-${rest}`;
}

/** The id of an entry under the rule of {@link baseId}, given the ids Python entries already hold. */
export function registryId(primaryPackage: string, language: Language, pythonIds: ReadonlySet<string>): string {
  const id = baseId(primaryPackage, language);
  return language === 'javascript' && pythonIds.has(id) ? `${id}-js` : id;
}

const languageNames: Record<string, Language> = {
  py: 'python',
  python3: 'python',
  pypi: 'python',
  js: 'javascript',
  ts: 'javascript',
  typescript: 'javascript',
  node: 'javascript',
  nodejs: 'javascript',
  'node.js': 'javascript',
  npm: 'javascript',
};

/**
 * The registry language a caller's language name means (`TypeScript`, `ts`, `node`, `npm` → `javascript`;
 * `py`, `pypi` → `python`), or `undefined` for a language the registry does not cover (`rust`).
 */
export function toLanguage(name: string): Language | undefined {
  const key = name.trim().toLowerCase();
  return (languages as readonly string[]).includes(key) ? (key as Language) : languageNames[key];
}

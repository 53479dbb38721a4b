/**
 * Words that mean the same in programming documentation: abbreviations and their long forms, and a few
 * general synonyms. A query word also matches its alternatives, at {@link SYNONYM_WEIGHT} of an exact
 * match. Only general vocabulary belongs here, nothing specific to one library.
 */
export const englishSynonymGroups: readonly (readonly string[])[] = [
  ['env', 'environment'],
  ['envs', 'environments'],
  ['var', 'variable'],
  ['vars', 'variables'],
  ['config', 'configuration', 'cfg', 'conf'],
  ['param', 'parameter'],
  ['params', 'parameters'],
  ['arg', 'argument'],
  ['args', 'arguments'],
  ['db', 'database'],
  ['auth', 'authentication'],
  ['async', 'asynchronous'],
  ['sync', 'synchronous'],
  ['dep', 'dependency'],
  ['deps', 'dependencies'],
  ['dir', 'directory', 'folder'],
  ['dirs', 'directories', 'folders'],
  ['repo', 'repository'],
  ['app', 'application'],
  ['func', 'function', 'fn'],
  ['impl', 'implementation'],
  ['init', 'initialize', 'initialization'],
  ['msg', 'message'],
  ['req', 'request'],
  ['resp', 'response'],
  ['err', 'error'],
  ['ctx', 'context'],
  ['info', 'information'],
  ['spec', 'specification'],
  ['lib', 'library'],
  ['pkg', 'package'],
  ['util', 'utility'],
  ['str', 'string'],
  ['int', 'integer'],
  ['bool', 'boolean'],
  ['dict', 'dictionary'],
  ['obj', 'object'],
  ['attr', 'attribute'],
  ['attrs', 'attributes'],
  ['prop', 'property'],
  ['props', 'properties'],
  ['regex', 'regexp'],
  ['tmp', 'temp', 'temporary'],
  ['max', 'maximum'],
  ['min', 'minimum'],
  ['perf', 'performance'],
  ['dev', 'development'],
  ['prod', 'production'],
  ['admin', 'administrator'],
  ['k8s', 'kubernetes'],
  ['js', 'javascript'],
  ['ts', 'typescript'],
  ['py', 'python'],
  ['enum', 'enumeration'],
  ['several', 'multiple'],
  ['immutable', 'frozen'],
  ['interceptor', 'middleware'],
  ['delete', 'remove'],
];

/** Weight of a match through a synonym, relative to the word itself: just below, so the word as asked wins ties. */
export const SYNONYM_WEIGHT = 0.85;

/**
 * Indexed term → the indexed terms of its alternatives, built with `termOf` (the tokenizer's analysis, so
 * `parameters` and `params` meet whatever their stems are).
 */
export function synonymIndex(
  groups: readonly (readonly string[])[],
  termOf: (word: string) => string,
): ReadonlyMap<string, readonly string[]> {
  const index = new Map<string, Set<string>>();
  for (const group of groups) {
    const terms = [...new Set(group.map(termOf).filter((t) => t !== ''))];
    for (const term of terms) {
      let alternatives = index.get(term);
      if (alternatives === undefined) {
        alternatives = new Set();
        index.set(term, alternatives);
      }
      for (const other of terms) if (other !== term) alternatives.add(other);
    }
  }
  return new Map([...index].map(([term, alternatives]) => [term, [...alternatives]]));
}

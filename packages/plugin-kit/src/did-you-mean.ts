import type { z } from '@pro-context/kernel';
import { distance } from 'fastest-levenshtein';

/** Two neighbouring letters swapped (`prot` for `port`) count as one edit, as a typist would count them. */
function edits(a: string, b: string): number {
  if (a.length === b.length) {
    const differ: number[] = [];
    for (let i = 0; i < a.length && differ.length <= 2; i++) if (a[i] !== b[i]) differ.push(i);
    const [i, j] = differ;
    if (differ.length === 2 && j === (i as number) + 1 && a[i as number] === b[j] && a[j] === b[i as number]) return 1;
  }
  return distance(a, b);
}

/**
 * The known name closest to `name`, when it is a likely misspelling: the same name in another case, else at most
 * two edits and under a third of the known name's length (`loging` → `logging`, `server.prot` → `port`,
 * `openai-embedings` → `openai-embeddings`; `port` is no guess for `host`).
 */
export function closestName<T extends string>(name: string, known: Iterable<T>): T | undefined {
  const wanted = name.trim().toLowerCase();
  let best: { name: T; edits: number } | undefined;
  for (const candidate of known) {
    if (candidate === name) continue;
    const n = edits(wanted, candidate.toLowerCase());
    if (n === 0) return candidate;
    if (n <= 2 && n * 3 < candidate.length && (best === undefined || n < best.edits))
      best = { name: candidate, edits: n };
  }
  return best?.name;
}

/**
 * An unrecognized key's issue (`flattenZodIssues`' "Unrecognized key …") with the name its last key was likely
 * meant to have among `siblings(parent)`, the names the key's parent path holds: "…: did you mean 'logging'?".
 * Any other issue is returned as it is.
 */
export function withKeyGuess<T extends { path: string; message: string }>(
  issue: T,
  siblings: (parent: string) => Iterable<string>,
): T {
  if (!issue.message.startsWith('Unrecognized key')) return issue;
  const cut = issue.path.lastIndexOf('.');
  const guess = closestName(issue.path.slice(cut + 1), siblings(cut < 0 ? '' : issue.path.slice(0, cut)));
  return guess ? { ...issue, message: `${issue.message}: did you mean '${guess}'?` } : issue;
}

/** The definition of a zod schema (v4's `_zod.def`), read structurally. */
type Def = {
  type?: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
};
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/**
 * The keys of the object a zod `schema` holds at `path` (optional/default wrappers, pipes and arrays looked
 * through: `['libraries', '0']`); none when the schema has no object there.
 */
export function schemaKeysAt(schema: z.ZodType | undefined, path: readonly string[]): string[] {
  let node = schema;
  let rest = [...path];
  for (let steps = 0; node && steps < 64; steps++) {
    const def = defOf(node);
    if (def.innerType) node = def.innerType;
    else if (def.type === 'pipe' && def.in) node = def.in;
    else if (def.type === 'array' && def.element && rest.length > 0 && /^\d+$/.test(rest[0] as string)) {
      node = def.element;
      rest = rest.slice(1);
    } else if (def.type === 'object' && def.shape) {
      if (rest.length === 0) return Object.keys(def.shape);
      node = def.shape[rest[0] as string];
      rest = rest.slice(1);
    } else return [];
  }
  return [];
}

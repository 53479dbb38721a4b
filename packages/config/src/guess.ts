import type { ConfigIssue, z } from '@pro-context/kernel';
import type { DeclaredConfigSection } from '@pro-context/runtime';
import { distance } from 'fastest-levenshtein';

/** The start of the message of a key no schema knows (the kernel's and the unclaimed-key check's). */
const UNRECOGNIZED = 'Unrecognized key';

/** Two neighbouring letters swapped (`prot` for `port`) count as one edit, as a typist would count them. */
function edited(a: string, b: string): number {
  if (a.length === b.length) {
    const differ: number[] = [];
    for (let i = 0; i < a.length && differ.length <= 2; i++) if (a[i] !== b[i]) differ.push(i);
    const [i, j] = differ;
    if (differ.length === 2 && j === (i as number) + 1 && a[i as number] === b[j] && a[j] === b[i as number]) return 1;
  }
  return distance(a, b);
}

/**
 * The known name closest to `name`, when it is a likely misspelling: at most two edits and under a third of the
 * known name's length (`loging` → `logging`; `port` is no guess for `host`).
 */
export function closestName(name: string, known: Iterable<string>): string | undefined {
  let best: { name: string; edits: number } | undefined;
  for (const candidate of known) {
    if (candidate === name) continue;
    const edits = edited(name.toLowerCase(), candidate.toLowerCase());
    if (edits <= 2 && edits * 3 < candidate.length && (best === undefined || edits < best.edits)) {
      best = { name: candidate, edits };
    }
  }
  return best?.name;
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

/** The keys of the object `schema` holds at `path` (wrappers, pipes and arrays looked through); none when unknown. */
function keysAt(schema: z.ZodType | undefined, path: readonly string[]): string[] {
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

/** The names a key under `parent` could have had: sections declared there and the keys of the schema covering it. */
function siblings(declared: readonly DeclaredConfigSection[], parent: string): Set<string> {
  const out = new Set<string>();
  for (const section of declared) {
    const cut = section.key.lastIndexOf('.');
    if ((cut < 0 ? '' : section.key.slice(0, cut)) === parent) out.add(section.key.slice(cut + 1));
    if (parent === section.key || parent.startsWith(`${section.key}.`)) {
      const below = parent === section.key ? [] : parent.slice(section.key.length + 1).split('.');
      for (const key of keysAt(section.schema, below)) out.add(key);
    }
  }
  return out;
}

/** The issue of an unrecognized key with the likely name it was meant to have ("did you mean 'logging'?"). */
export function withGuess(issue: ConfigIssue, declared: readonly DeclaredConfigSection[]): ConfigIssue {
  if (!issue.message.startsWith(UNRECOGNIZED)) return issue;
  const cut = issue.path.lastIndexOf('.');
  const guess = closestName(issue.path.slice(cut + 1), siblings(declared, cut < 0 ? '' : issue.path.slice(0, cut)));
  return guess ? { ...issue, message: `${issue.message}: did you mean '${guess}'?` } : issue;
}

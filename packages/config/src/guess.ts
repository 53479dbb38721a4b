import type { ConfigIssue } from '@pro-context/kernel';
import { closestName, schemaKeysAt, withKeyGuess } from '@pro-context/plugin-kit';
import type { DeclaredConfigSection } from '@pro-context/runtime';

/**
 * The names a key under `parent` could have had: sections declared or reserved there (`contxt7` → `context7`, a
 * section of a plugin not enabled) and the keys of the schema covering it.
 */
function siblings(declared: readonly DeclaredConfigSection[], parent: string, reserved: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const key of reserved) {
    const cut = key.lastIndexOf('.');
    if ((cut < 0 ? '' : key.slice(0, cut)) === parent) out.add(key.slice(cut + 1));
  }
  for (const section of declared) {
    const cut = section.key.lastIndexOf('.');
    if ((cut < 0 ? '' : section.key.slice(0, cut)) === parent) out.add(section.key.slice(cut + 1));
    if (parent === section.key || parent.startsWith(`${section.key}.`)) {
      const below = parent === section.key ? [] : parent.slice(section.key.length + 1).split('.');
      for (const key of schemaKeysAt(section.schema, below)) out.add(key);
    }
  }
  return out;
}

/** The name the last key of `path` was likely meant to have among its siblings, if one is close. */
export function guessKey(
  path: string,
  declared: readonly DeclaredConfigSection[],
  reserved: Iterable<string> = [],
): string | undefined {
  const cut = path.lastIndexOf('.');
  return closestName(path.slice(cut + 1), siblings(declared, cut < 0 ? '' : path.slice(0, cut), reserved));
}

/** The issue of an unrecognized key with the likely name it was meant to have ("did you mean 'logging'?"). */
export function withGuess(
  issue: ConfigIssue,
  declared: readonly DeclaredConfigSection[],
  reserved: Iterable<string> = [],
): ConfigIssue {
  return withKeyGuess(issue, (parent) => siblings(declared, parent, reserved));
}

import type { ConfigIssue } from '@pro-context/kernel';
import { closestName, schemaKeysAt } from '@pro-context/plugin-kit';
import type { DeclaredConfigSection } from '@pro-context/runtime';

/** The start of the message of a key no schema knows (the kernel's and the unclaimed-key check's). */
const UNRECOGNIZED = 'Unrecognized key';

/** The names a key under `parent` could have had: sections declared there and the keys of the schema covering it. */
function siblings(declared: readonly DeclaredConfigSection[], parent: string): Set<string> {
  const out = new Set<string>();
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

/** The issue of an unrecognized key with the likely name it was meant to have ("did you mean 'logging'?"). */
export function withGuess(issue: ConfigIssue, declared: readonly DeclaredConfigSection[]): ConfigIssue {
  if (!issue.message.startsWith(UNRECOGNIZED)) return issue;
  const cut = issue.path.lastIndexOf('.');
  const guess = closestName(issue.path.slice(cut + 1), siblings(declared, cut < 0 ? '' : issue.path.slice(0, cut)));
  return guess ? { ...issue, message: `${issue.message}: did you mean '${guess}'?` } : issue;
}

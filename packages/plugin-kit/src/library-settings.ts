import {
  flattenZodIssues,
  type LibraryDescriptor,
  type LibrarySettingsDeclaration,
  type SourceAdapter,
} from '@pro-context/kernel';
import { schemaKeysAt, withKeyGuess } from './did-you-mean.js';

/** What {@link applyLibrarySettings} found wrong or outdated in one library's settings. */
export interface LibrarySettingsReport {
  /** The library with legacy keys moved into their bags and every declared bag validated (defaults applied). */
  library: LibraryDescriptor;
  /** Invalid bag values, `path: message` (`path` is relative to the library: `sources.llmsTxt.llmsTxtUrl`). */
  issues: { path: string; message: string }[];
  /** Deprecated top-level keys that were read: `from` (`llmsTxtUrl`) now lives at `to` (`sources.llmsTxt.llmsTxtUrl`). */
  deprecated: { from: string; to: string }[];
  /** Bags no installed adapter declares (`sources.github` without the GitHub plugin). */
  unread: string[];
}

/** The settings declarations of the installed source adapters (or of the plugins, which carry their adapter's). */
export function settingsDeclarations(
  declaring: readonly Pick<SourceAdapter, 'librarySettings'>[],
): LibrarySettingsDeclaration[] {
  return declaring.flatMap((a) => (a.librarySettings ? [a.librarySettings] : []));
}

/**
 * Moves each adapter's legacy top-level keys into its bag (a key also written in the bag keeps the bag's
 * value) and validates every bag an adapter declares with that adapter's schema.
 */
export function applyLibrarySettings(
  library: LibraryDescriptor,
  declarations: readonly LibrarySettingsDeclaration[],
): LibrarySettingsReport {
  const issues: LibrarySettingsReport['issues'] = [];
  const deprecated: LibrarySettingsReport['deprecated'] = [];
  const out: Record<string, unknown> = { ...library };
  const sources: Record<string, Readonly<Record<string, unknown>>> = { ...(library.sources ?? {}) };
  for (const declaration of declarations) {
    const legacy: Record<string, unknown> = {};
    for (const key of declaration.legacyKeys ?? []) {
      if (out[key] === undefined) continue;
      legacy[key] = out[key];
      delete out[key];
      deprecated.push({ from: key, to: `sources.${declaration.key}.${key}` });
    }
    const bag = { ...legacy, ...(sources[declaration.key] ?? {}) };
    if (Object.keys(bag).length === 0 && sources[declaration.key] === undefined) continue;
    const parsed = declaration.schema.safeParse(bag);
    if (parsed.success) sources[declaration.key] = parsed.data as Record<string, unknown>;
    else {
      const prefix = `sources.${declaration.key}`;
      // a misspelt key gets the key of the bag's schema it was likely meant to be
      const keysAt = (parent: string) =>
        parent === prefix || parent.startsWith(`${prefix}.`)
          ? schemaKeysAt(declaration.schema, parent === prefix ? [] : parent.slice(prefix.length + 1).split('.'))
          : [];
      issues.push(...flattenZodIssues(parsed.error, prefix).map((issue) => withKeyGuess(issue, keysAt)));
      delete sources[declaration.key];
    }
  }
  const declared = new Set(declarations.map((d) => d.key));
  const unread = Object.keys(sources)
    .filter((key) => !declared.has(key))
    .map((key) => `sources.${key}`);
  if (Object.keys(sources).length > 0) out.sources = sources;
  return { library: out as unknown as LibraryDescriptor, issues, deprecated, unread };
}

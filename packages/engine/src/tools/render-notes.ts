import type { SkippedPages } from '../indexing/doc-store.js';
import type { ResolveNote } from '../resolve-library/notes.js';

/** The note of a page left out of the index (`reason`: the page, the limit, the setting that raises it). */
export const leftOutNote = (reason: string) => `Left out of the index: ${reason}`;

/** The note of `count` pages left out besides those named (over a per-page limit, or not fetched). */
export const moreLeftOutNote = (count: number | string, one: boolean) =>
  `${count} more page${one ? ' was' : 's were'} left out of the index.`;

/** The notes an answer gives of the pages its library left out of the index: one sentence each. */
export function skippedPageNotes(skipped: SkippedPages | undefined): string[] {
  if (!skipped || skipped.count === 0) return [];
  const notes = skipped.pages.map((page) => leftOutNote(page.reason));
  const more = skipped.count - skipped.pages.length;
  if (more > 0) notes.push(moreLeftOutNote(more, more === 1));
  return notes;
}

/** One resolve-library note as the agent reads it: one sentence (or two). */
export function renderResolveNote(note: ResolveNote): string {
  switch (note.kind) {
    case 'registry-unreachable': {
      const why = note.reason ? ` (${note.reason})` : '';
      return note.fromConfig
        ? `The ${note.registry} registry could not be reached${why}, so ${note.library}'s versions could not be checked: this is its current documentation (${note.version}).`
        : `The ${note.registry} registry could not be reached${why}: ${note.library}'s versions are the last list it gave (cached).`;
    }
    case 'installed':
      return `${note.library} ${note.version} is the version installed in this project (${note.detectedFrom ?? 'project files'}); it is served when no version is asked${note.latest !== note.version ? ` (latest stable: ${note.latest})` : ''}.`;
    case 'installed-undocumented':
      return `${note.library} ${note.installed} is installed in this project, but its documentation is not available; this is the latest stable, ${note.version}.`;
    case 'fuzzy':
      return `Matched '${note.query}' to ${note.libraryId} (${note.library}) by a close spelling; check it is the library meant.`;
    case 'hint-unchecked':
      return `${note.library}'s versions could not be checked (the ${note.registry} registry could not be reached), so '${note.hint}' could not be checked either; this is its current documentation (${note.version}).`;
    case 'no-such-version':
      return note.known.length > 0
        ? `${note.library} has no version '${note.hint}' (available: ${note.known.join(', ')}); this is the latest stable, ${note.version}.`
        : `pro-context knows no versions of ${note.library}, so '${note.hint}' could not be checked; this is its current documentation.`;
    case 'version-undocumented':
      return `${note.library} ${note.released} exists, but only the documentation of the latest stable version, ${note.latest}, is available (its documentation URL is not version-specific); this TOC is ${note.latest}'s.`;
    case 'source':
      return note.text;
    case 'left-out':
      return leftOutNote(note.reason);
    case 'more-left-out':
      return moreLeftOutNote(note.count, note.count === 1);
    case 'passed-over':
      return `${note.library}'s documentation comes from ${note.adapterId}, because ${note.reasons.join('; ')}.`;
    case 'toc-stale':
      return `The table of contents is from the cache and has expired: it is being refreshed from ${note.library}'s source${note.failing ? ', which could not be reached on its last try' : ''}.`;
    case 'no-docs':
      return `No documentation could be indexed for ${note.library} ${note.version}: ${note.message}${note.suggestion ? ` ${note.suggestion}` : ''}`;
  }
}

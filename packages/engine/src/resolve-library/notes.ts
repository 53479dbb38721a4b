/**
 * What resolve-library tells the agent about its answer, as data; the sentences are the renderer's
 * (`tools/render-notes.ts`).
 */
export type ResolveNote =
  /** The registry could not be asked: the versions are the library's own (`fromConfig`) or its last list. */
  | {
      kind: 'registry-unreachable';
      library: string;
      registry: string;
      reason?: string;
      fromConfig: boolean;
      version: string;
    }
  /** The version served is the one installed in the project. */
  | { kind: 'installed'; library: string; version: string; detectedFrom?: string; latest: string }
  /** The version installed in the project has no documentation: the latest stable is served. */
  | { kind: 'installed-undocumented'; library: string; installed: string; version: string }
  /** The query met the library by a close spelling. */
  | { kind: 'fuzzy'; query: string; libraryId: string; library: string }
  /** A hinted version could not be checked: the registry could not be reached. */
  | { kind: 'hint-unchecked'; library: string; registry: string; hint: string; version: string }
  /** A hinted version does not exist (`known`: the versions that do). */
  | { kind: 'no-such-version'; library: string; hint: string; known: string[]; version: string }
  /** A hinted version exists but has no documentation of its own. */
  | { kind: 'version-undocumented'; library: string; released: string; latest: string }
  /** A note a source gave in words (files left out over a cap, and the setting that raises it). */
  | { kind: 'source'; text: string }
  /** A page left out of the index over a per-page limit (`reason`: the page, the limit, the setting). */
  | { kind: 'left-out'; reason: string }
  /** How many more pages were left out than are named. */
  | { kind: 'more-left-out'; count: number }
  /** A source before the one that served could not. */
  | { kind: 'passed-over'; library: string; adapterId: string; reasons: string[] }
  /** The TOC is from the cache and expired; it is being refreshed (`failing`: the source failed last time). */
  | { kind: 'toc-stale'; library: string; failing: boolean }
  /** No documentation could be indexed. */
  | { kind: 'no-docs'; library: string; version: string; message: string; suggestion?: string };

/** Cache namespaces the engine uses. */
export const ns = {
  /** Registry version lists, `registryId:package` (kept past their TTL as the fallback of an unreachable registry). */
  versions: 'versions',
  toc: 'toc',
  docs: 'docs',
  index: 'index',
  pages: 'pages',
  answers: 'answers',
  /**
   * Library versions being indexed, `libraryId@version`, by any process sharing the cache: a lease renewed while
   * the build runs and gone when it ends (or, for a process that died, when it expires).
   */
  indexing: 'indexing',
} as const;

/** `libraryId@version`: the key of one library version everywhere in the engine. */
export const versionKey = (libraryId: string, version: string) => `${libraryId}@${version}`;

/**
 * Leads every stored get-docs answer's key: bumped whenever ranking or answer assembly changes, so that an
 * upgraded server does not serve answers the old code composed (a2: the relevance cut-off, `moreSections`).
 */
const ANSWER_FORMAT = 'a2';

/** What every stored get-docs answer of a library version starts its key with (to drop them all on a rebuild). */
export const answerKeyPrefix = (libraryId: string, version: string) =>
  `${ANSWER_FORMAT}|${versionKey(libraryId, version)}|`;

/**
 * The cache key of a get-docs answer: format, library version, budget (and `variant`: the size of what the caller
 * prints beside the content, which the content left room for), normalised topic.
 */
export const answerKey = (libraryId: string, version: string, maxTokens: number, variant: string, topic: string) =>
  `${answerKeyPrefix(libraryId, version)}${maxTokens}${variant ? `+${variant}` : ''}|${topic.trim().toLowerCase().replace(/\s+/g, ' ')}`;

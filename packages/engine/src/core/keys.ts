/** Cache namespaces the engine uses. */
export const ns = {
  /** Registry version lists, `registryId:package` (kept past their TTL as the fallback of an unreachable registry). */
  versions: 'versions',
  toc: 'toc',
  docs: 'docs',
  index: 'index',
  pages: 'pages',
  answers: 'answers',
} as const;

/** `libraryId@version`: the key of one library version everywhere in the engine. */
export const versionKey = (libraryId: string, version: string) => `${libraryId}@${version}`;

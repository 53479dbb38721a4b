/** Cache namespaces the engine uses. */
export const ns = {
  toc: 'toc',
  docs: 'docs',
  index: 'index',
  pages: 'pages',
  answers: 'answers',
} as const;

/** `libraryId@version`: the key of one library version everywhere in the engine. */
export const versionKey = (libraryId: string, version: string) => `${libraryId}@${version}`;

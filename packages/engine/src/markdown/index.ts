/**
 * Markdown handling for the engine: cleanup of documentation dialects and heading-based chunking.
 */
export type { Chunk, ChunkablePage, ChunkOptions } from './chunk.js';
export { chunkMarkdown, cleanHeading, DEFAULT_MAX_CHUNK_TOKENS, DEFAULT_MIN_CHUNK_TOKENS } from './chunk.js';
export type { FrontMatterSplit } from './front-matter.js';
export { splitFrontMatter } from './front-matter.js';
export type { HeadingLine } from './headings.js';
export { ATX_HEADING, walkLines } from './headings.js';
export type { NormalizeOptions } from './normalize.js';
export { normalizeMarkdown } from './normalize.js';
export { sectionOffset } from './section.js';
export type { Slugger } from './slug.js';
export { createSlugger, slugify } from './slug.js';

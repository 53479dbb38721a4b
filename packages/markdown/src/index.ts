/**
 * @pro-context/markdown: the markdown and HTML processing the engine and source plugins share. Markdown:
 * cleanup of documentation dialects (MkDocs, Docusaurus, MDX, VitePress…), heading-based chunking with
 * code blocks intact, front matter, sections, heading anchors (one slug module, two flavours). HTML:
 * main-content extraction to markdown (loaded on first use) and the check that a body is documentation.
 *
 * Every export here is public API. Add exports deliberately.
 */
export type { ContentKind, ContentVerdict, NotDocumentationReason } from './html/content-check.js';
export { classifyContent, looksLikeDocumentation } from './html/content-check.js';
export type { HtmlToMarkdownResult } from './html/html-to-markdown.js';
export { loadHtmlToMarkdown } from './html/lazy.js';
export type { HtmlShape, PageLimits } from './html/limits.js';
export {
  checkHtmlPage,
  checkTextPage,
  DEFAULT_PAGE_LIMITS,
  oversizeBody,
  PAGE_LIMIT_SETTINGS,
  pageLimitError,
  pageLimits,
  scanHtml,
} from './html/limits.js';
// the llms.txt / llms-full.txt parsers (pure, linear): the llms-txt source and local-docs read llms.txt files
export type { LlmsFullStyle, SplitLlmsFullOptions, SplitLlmsFullResult } from './llms-txt/llms-full.js';
export { detectLlmsFull, splitLlmsFull } from './llms-txt/llms-full.js';
export type { LlmsFullSplitterOptions } from './llms-txt/llms-full-stream.js';
export { LlmsFullSplitter } from './llms-txt/llms-full-stream.js';
export type { LlmsTxtFormat, LlmsTxtSection, ParsedLlmsTxt } from './llms-txt/llms-txt.js';
export { llmsTxtPages, parseLlmsTxt } from './llms-txt/llms-txt.js';
export type { ScannedLine as LlmsScannedLine } from './llms-txt/markdown.js';
export {
  cleanTitle as cleanLlmsTitle,
  detach as detachString,
  firstSentence as llmsFirstSentence,
  looksLikeHtml,
  parseHeading as parseLlmsHeading,
  scanLines as scanLlmsLines,
  sniffNonMarkdown,
} from './llms-txt/markdown.js';
export type { Chunk, ChunkablePage, ChunkOptions } from './markdown/chunk.js';
export { chunkMarkdown, cleanHeading, DEFAULT_MAX_CHUNK_TOKENS, DEFAULT_MIN_CHUNK_TOKENS } from './markdown/chunk.js';
export type { FrontMatterSplit } from './markdown/front-matter.js';
export { splitFrontMatter } from './markdown/front-matter.js';
export type { HeadingLine } from './markdown/headings.js';
export { ATX_HEADING, atxHeading, walkLines } from './markdown/headings.js';
export type { NormalizeOptions } from './markdown/normalize.js';
export { normalizeMarkdown } from './markdown/normalize.js';
export type { ReadablePage } from './markdown/readable.js';
export { firstH1, readableMarkdown, readablePage } from './markdown/readable.js';
export { sectionOffset } from './markdown/section.js';
export type { SlugFlavour, Slugger } from './markdown/slug.js';
export { createSlugger, headingPlainText, inlinePlainText, slugify } from './markdown/slug.js';
export type { ConvertedPage, PageWork } from './page/convert.js';
export { convertPage } from './page/convert.js';
export type { PageConverterOptions } from './page-pool.js';
export { PageConverter, sharedPageConverter } from './page-pool.js';
export type { PageAnchors } from './prepare/anchors.js';
export {
  AnchorCollector,
  linkTarget,
  MAX_ANCHOR_CHARS,
  MAX_ANCHOR_TEXTS,
  markdownLinks,
  PagePaths,
  pathKey,
} from './prepare/anchors.js';
export type { BlockableChunk } from './prepare/blocks.js';
export { ChunkBlockCutter, encodeBlock, idFromRun, idInRun } from './prepare/blocks.js';
export type {
  PreparablePage,
  PreparedBatch,
  PreparedChunk,
  PreparedDocs,
  PreparedPage,
  PreparedTotals,
  PrepareOptions,
  PrepareProgress,
  SkippedPage,
} from './prepare/prepare.js';
export { chunkTermIndex, DocsPreparer, indexableChunk, prepareDocs } from './prepare/prepare.js';
export { buildTermIndex, TermIndex, TermIndexBuilder } from './prepare/terms.js';
export type {
  ChunkingPoolOptions,
  PipedBatch,
  PipedSession,
  PipedTotals,
  PrepareCallOptions,
  PrepareSession,
} from './prepare-pool.js';
export { ChunkingPool, defaultChunkingWorkers } from './prepare-pool.js';
export type { NormalizedTopic } from './topic.js';
export { normalizeTopic } from './topic.js';

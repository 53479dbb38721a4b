/**
 * HTML handling for the engine: main-content extraction to markdown, and the check that a fetched body is
 * documentation at all.
 */
export type { ContentKind, ContentVerdict, NotDocumentationReason } from './content-check.js';
export { classifyContent, looksLikeDocumentation } from './content-check.js';
export type { HtmlToMarkdownResult } from './html-to-markdown.js';
export { htmlToMarkdown } from './html-to-markdown.js';
export { loadHtmlToMarkdown } from './lazy.js';

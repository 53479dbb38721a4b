/**
 * @pro-context/embed: pro-context's tools inside an agent program, without an MCP transport (seed 004 §1.5,
 * §2.3): `createToolClient()` → `executeTool`, `getAvailableTools`, `getToolsPrompt`, `parseToolUse`.
 *
 * Every export here is public API.
 */
export type { ToolClient, ToolClientOptions, ToolDescription, ToolResult } from './client.js';
export { createToolClient } from './client.js';
export type { DocsAnswerOrigin, LibraryMatch, RemoteDocs, SearchDocumentationResult } from './docs-tools.js';
export {
  countCodeExamples,
  libraryMatchSchema,
  remoteDocsToken,
  resolveLibraryInput,
  resolveLibraryOutput,
  searchDocumentationInput,
  searchDocumentationOutput,
} from './docs-tools.js';
export type { ParsedToolUse, UnreadableToolUse } from './parse.js';
export { parseToolUse } from './parse.js';

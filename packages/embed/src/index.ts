/**
 * @pro-context/embed: pro-context's tools inside an agent program, without an MCP transport (seed 004 §1.5,
 * §2.3): `createToolClient()` → `executeTool`, `getAvailableTools`, `getToolsPrompt`, `parseToolUse`.
 *
 * Every export here is public API.
 */
export type { DocsFallback, FallbackDocs, FallbackLibrary } from '@pro-context/kernel';
export { docsFallbackToken } from '@pro-context/kernel';
export type {
  DocsAnswerOrigin,
  LibraryMatch,
  ResolveLibraryResult,
  SearchDocumentationResult,
} from '@pro-context/plugin-context7';
export {
  countCodeExamples,
  libraryMatchSchema,
  resolveLibraryInput,
  resolveLibraryOutput,
  searchDocumentationInput,
  searchDocumentationOutput,
} from '@pro-context/plugin-context7';
export type { ToolClient, ToolClientOptions, ToolDescription, ToolResult } from './client.js';
export { createToolClient, parametersLine, SEED_TOOLS } from './client.js';
export type { ParsedToolUse, UnreadableToolUse } from './parse.js';
export { parseToolUse } from './parse.js';

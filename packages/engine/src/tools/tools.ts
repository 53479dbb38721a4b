import type { ToolDefinition } from '@pro-context/kernel';
import type { DocsEngine } from '../engine.js';
import { getDocsTool } from './get-docs-tool.js';
import { listLibrariesTool } from './list-libraries-tool.js';
import { readPageTool } from './read-page-tool.js';
import { resolveLibraryTool } from './resolve-library-tool.js';
import { searchDocsTool } from './search-docs-tool.js';

/** The five tools of seed 001 §5 over a {@link DocsEngine}. */
export function docsTools(engine: DocsEngine): ToolDefinition[] {
  return [
    resolveLibraryTool(engine),
    getDocsTool(engine),
    searchDocsTool(engine),
    readPageTool(engine),
    listLibrariesTool(engine),
  ] as unknown as ToolDefinition[];
}

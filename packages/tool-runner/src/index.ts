/**
 * @pro-context/tool-runner: runs a started pro-context kernel's tools for any surface (the MCP binding, the
 * CLI, an embedded client): the same validation, tool context, error mapping and listing everywhere.
 */
export type {
  JsonObjectSchema,
  ListedTool,
  ProgressUpdate,
  ToolCallOptions,
  ToolFailure,
  ToolOutcome,
  ToolRunner,
  ToolSuccess,
} from './runner.js';
export { createToolRunner, errorPayloadText, invalidArgumentsError, jsonSchemaOf } from './runner.js';

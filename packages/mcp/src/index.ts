/**
 * @pro-context/mcp: puts a started pro-context kernel on MCP servers (any transport, one server per session).
 */
export { invalidArgumentsError } from '@pro-context/tool-runner';
export type { BoundMcpServer, McpBinding, McpServerOptions, McpSessionOptions } from './server.js';
export { createMcpBinding, createMcpServer, errorResult } from './server.js';

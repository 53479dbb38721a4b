/**
 * @pro-context/mcp: puts a started pro-context kernel on an MCP server (any transport).
 */
export type { BoundMcpServer, McpServerOptions } from './server.js';
export { createMcpServer, errorResult, invalidArgumentsError } from './server.js';

/**
 * @pro-context/host-stdio: serves a started pro-context kernel over MCP stdio.
 */
export type { StdioHostOptions, StdioServerHandle } from './stdio.js';
export { guardStdout, serveStdio } from './stdio.js';

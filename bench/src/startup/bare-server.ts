/**
 * The start-up section's baseline: the smallest MCP server the SDK makes, one tool over stdio, as its README's
 * first example writes it. What pro-context's start-up is measured against (`src/lib/startup.ts`).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'bare', version: '0.0.0' });
server.registerTool(
  'echo',
  { description: 'Echoes its text.', inputSchema: { text: z.string() } },
  async ({ text }) => ({ content: [{ type: 'text', text }] }),
);
await server.connect(new StdioServerTransport());

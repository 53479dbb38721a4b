import type { ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Logger } from '@pro-context/kernel';
import type { BoundMcpServer, McpBinding } from '@pro-context/mcp';
import type { MemoHooks } from './memo.js';
import { type HostRequest, sendRpcError } from './respond.js';
import { StatelessTransport } from './transport.js';

/**
 * Stateless mode (no sessions, no subscriptions): ONE MCP server answers every plain request on the direct path
 * ({@link StatelessTransport}); every other POST (initialize, batches, notifications, progress tokens, failed
 * checks) gets an MCP server and an SDK transport of its own (JSON answers), closed with the response.
 * `GET`/`DELETE` get 405.
 */
export class Stateless {
  private constructor(
    private readonly binding: McpBinding,
    private readonly shared: { bound: BoundMcpServer; transport: StatelessTransport },
    private readonly logger: Logger,
  ) {}

  static async start(binding: McpBinding, memo: MemoHooks | undefined, logger: Logger): Promise<Stateless> {
    const transport = new StatelessTransport(memo);
    const bound = binding.createServer({
      subscriptions: false,
      onToolReuse: (requestId, tool, reuse) => transport.noteReuse(requestId, tool, reuse),
    });
    await bound.server.connect(transport);
    return new Stateless(binding, { bound, transport }, logger);
  }

  /** POST /mcp (authenticated, body read). */
  async post(req: HostRequest, res: ServerResponse): Promise<void> {
    if (this.shared.transport.handleRequest(req as never, res, req.body)) return;
    const bound = this.binding.createServer({ subscriptions: false });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      bound.dispose();
      void transport.close().catch(() => undefined);
      void bound.server.close().catch(() => undefined);
    });
    try {
      await bound.server.connect(transport);
      await transport.handleRequest(req as never, res, req.body);
    } catch (error) {
      this.logger.error('request failed', { error });
      sendRpcError(res, 500, -32603, 'Internal server error');
    }
  }

  /** GET and DELETE /mcp: 405, POST only. */
  notAllowed(_req: HostRequest, res: ServerResponse): void {
    res.setHeader('Allow', 'POST');
    sendRpcError(res, 405, -32000, 'Method not allowed: this server is stateless (POST only).');
  }

  async close(): Promise<void> {
    this.shared.bound.dispose();
    await this.shared.transport.close();
    await this.shared.bound.server.close().catch(() => undefined);
  }
}

import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { StartedKernel } from '@pro-context/kernel';
import { createMcpServer, type McpServerOptions } from '@pro-context/mcp';

/** Options of {@link serveStdio}. */
export interface StdioHostOptions extends McpServerOptions {
  /** Input stream (default `process.stdin`). */
  stdin?: NodeJS.ReadableStream;
  /** Output stream (default `process.stdout`). Only MCP messages are ever written to it. */
  stdout?: NodeJS.WritableStream;
  /** Stop the kernel and exit the process when the client goes away or a signal arrives (default true). */
  exitOnClose?: boolean;
  /**
   * Called with the session's server before it connects: to add a handler (a client notification) or to act
   * once the client is initialized (`server.server.oninitialized`, chained). The preset follows the client's
   * `roots` this way.
   */
  configure?: (server: ReturnType<typeof createMcpServer>['server']) => void;
}

/** A running stdio server. */
export interface StdioServerHandle {
  /** Resolves when the client disconnected and the kernel stopped. */
  closed: Promise<void>;
  /** Disconnects and stops the kernel. */
  close(): Promise<void>;
}

/**
 * Makes sure nothing but MCP messages reaches stdout: `console.log`, `console.info` and `console.debug`
 * (from any dependency) go to stderr instead.
 */
export function guardStdout(): void {
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}

/**
 * Serves the kernel's tools, resources and prompts over stdio. Ends (stopping the kernel) when stdin
 * closes or on SIGINT/SIGTERM.
 */
export async function serveStdio(kernel: StartedKernel, options: StdioHostOptions): Promise<StdioServerHandle> {
  guardStdout();
  const bound = createMcpServer(kernel, options);
  options.configure?.(bound.server);
  const transport = new StdioServerTransport(
    (options.stdin ?? process.stdin) as never,
    (options.stdout ?? process.stdout) as never,
  );
  let resolveClosed: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  let closing: Promise<void> | undefined;
  const close = () => {
    // `closing` is set before any step runs: server.close() closes the transport, whose onclose calls us again
    closing ??= Promise.resolve().then(async () => {
      bound.dispose();
      await bound.server.close().catch(() => undefined);
      await kernel.stop();
      resolveClosed();
    });
    return closing;
  };
  transport.onclose = () => void close();
  const stdin = options.stdin ?? process.stdin;
  stdin.on('end', () => void close());
  if (options.exitOnClose ?? true) {
    const exit = () => void close().finally(() => process.exit(0));
    process.once('SIGINT', exit);
    process.once('SIGTERM', exit);
    void closed.then(() => process.exit(0));
  }
  await bound.server.connect(transport);
  kernel.logger.info('pro-context stdio server ready', { plugins: kernel.plugins.map((p) => p.id) });
  return { closed, close };
}

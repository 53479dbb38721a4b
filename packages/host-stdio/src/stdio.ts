import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { ProContextError, type StartedKernel } from '@pro-context/kernel';
import { createMcpServer, type McpServerOptions } from '@pro-context/mcp';
import { DEFAULT_MAX_MESSAGE_BYTES, LineLimiter, type OversizedMessage } from './line-limit.js';

/** Options of {@link serveStdio}. */
export interface StdioHostOptions extends McpServerOptions {
  /** Input stream (default `process.stdin`). */
  stdin?: NodeJS.ReadableStream;
  /** Output stream (default `process.stdout`). Only MCP messages are ever written to it. */
  stdout?: NodeJS.WritableStream;
  /** Stop the kernel and exit the process when the client goes away or a signal arrives (default true). */
  exitOnClose?: boolean;
  /**
   * Largest message read from stdin, bytes (default 10 MiB, the MCP SDK's own buffer size). A longer line is
   * dropped as it streams by: a request gets a JSON-RPC error (-32600) naming the limit, stderr gets a line
   * saying so, and the server keeps serving.
   */
  maxMessageBytes?: number;
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
  const maxBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  // whole lines up to the limit reach the SDK's transport; a longer one is answered here (the SDK's buffer
  // would close the transport, and the server with it)
  const lines = new LineLimiter(
    maxBytes,
    (message) => void refuse(message),
    (batch) => void refuseBatch(batch),
  );
  const transport = new StdioServerTransport(lines as never, (options.stdout ?? process.stdout) as never, {
    // the limiter passes one message at a time: the SDK's buffer never holds more than one line
    maxBufferSize: maxBytes + 64 * 1024,
  });
  const refuse = async ({ bytes, id }: OversizedMessage) => {
    const error = new ProContextError(
      'INVALID_INPUT',
      `A message of ${bytes} bytes arrived on stdin; this server reads messages up to ${maxBytes} bytes (maxMessageBytes). It was dropped${id === undefined ? '' : ` (request id ${JSON.stringify(id)})`}; the server keeps serving.`,
      { suggestion: 'Send smaller arguments (split the work into several calls).' },
    );
    // stderr (and, as for every error record, the client's MCP log once it is initialized)
    kernel.logger.error(error.message, { code: error.code, bytes, limit: maxBytes });
    // a request gets its error response; a line whose id could not be read may be a notification, which
    // JSON-RPC never answers
    if (id === undefined) return;
    await transport
      .send({
        jsonrpc: '2.0',
        id,
        error: { code: ErrorCode.InvalidRequest, message: `${error.code}: ${error.message}`, data: error.toPayload() },
      })
      .catch(() => undefined);
  };
  /** An error response written as it is (`id: null` when the message's id could not be read). */
  const answerError = (id: string | number | null, code: number, message: string) =>
    transport.send({ jsonrpc: '2.0', id, error: { code, message } } as never).catch(() => undefined);
  // a batch: every request in it gets an error naming why (the SDK's transport would drop the line unanswered)
  const refuseBatch = async (batch: unknown[] | undefined) => {
    if (!batch) {
      await answerError(null, ErrorCode.ParseError, 'Parse error: the line is not JSON.');
      return;
    }
    const message =
      'Invalid Request: JSON-RPC batches are not accepted over stdio (MCP 2025-06-18); send one message per line.';
    const ids = batch
      .map((m) => (m && typeof m === 'object' ? (m as { id?: unknown }).id : undefined))
      .filter((id): id is string | number => typeof id === 'string' || typeof id === 'number');
    kernel.logger.warn('a JSON-RPC batch arrived on stdin: refused', { messages: batch.length, requests: ids.length });
    if (batch.length === 0 || ids.length === 0) await answerError(null, ErrorCode.InvalidRequest, message);
    for (const id of ids) await answerError(id, ErrorCode.InvalidRequest, message);
  };
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
  stdin.pipe(lines);
  stdin.on('end', () => void close());
  if (options.exitOnClose ?? true) {
    const exit = () => void close().finally(() => process.exit(0));
    process.once('SIGINT', exit);
    process.once('SIGTERM', exit);
    void closed.then(() => process.exit(0));
  }
  await bound.server.connect(transport);
  // A line the SDK's transport cannot read (not JSON, or not a JSON-RPC message) reaches its onerror and is
  // dropped: answer it, as JSON-RPC asks (-32700 / -32600 with id null), so a client is not left waiting.
  const sdkOnError = transport.onerror;
  transport.onerror = (error) => {
    if (error instanceof SyntaxError)
      void answerError(null, ErrorCode.ParseError, 'Parse error: the line is not JSON.');
    else if ((error as { name?: unknown }).name === 'ZodError') {
      void answerError(null, ErrorCode.InvalidRequest, 'Invalid Request: the line is not a JSON-RPC message.');
    }
    sdkOnError?.(error);
  };
  kernel.logger.info('pro-context stdio server ready', { plugins: kernel.plugins.map((p) => p.id) });
  return { closed, close };
}

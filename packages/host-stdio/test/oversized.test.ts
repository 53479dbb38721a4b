import { PassThrough } from 'node:stream';
import type { LogRecord } from '@pro-context/kernel';
import { createTestKernel } from '@pro-context/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type StdioServerHandle, serveStdio } from '../src/index.js';

// issue #25.6: the real stdio host on in-process streams, fed byte chunks as a pipe delivers them
// (the built CLI's end-to-end test, packages/pro-context/test/host-protocol-e2e.test.ts, sends 11 MB through the SDK)

interface Wire {
  stdin: PassThrough;
  /** Every JSON-RPC message the server wrote. */
  out: Record<string, unknown>[];
  errors: LogRecord[];
  /** Resolves with the server's answer to request `id`. */
  answer(id: string | number): Promise<Record<string, unknown>>;
  handle: StdioServerHandle;
}

const handles: StdioServerHandle[] = [];
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.close()));
});

async function start(maxMessageBytes: number): Promise<Wire> {
  const kernel = await createTestKernel({});
  const errors: LogRecord[] = [];
  kernel.logger.addSink((record) => void (record.level === 'error' && errors.push(record)), { level: 'debug' });
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const out: Record<string, unknown>[] = [];
  let pending = '';
  stdout.setEncoding('utf8');
  stdout.on('data', (chunk: string) => {
    pending += chunk;
    let nl = pending.indexOf('\n');
    while (nl !== -1) {
      out.push(JSON.parse(pending.slice(0, nl)));
      pending = pending.slice(nl + 1);
      nl = pending.indexOf('\n');
    }
  });
  const handle = await serveStdio(kernel, {
    version: '0.0.0-test',
    stdin,
    stdout,
    exitOnClose: false,
    maxMessageBytes,
  });
  handles.push(handle);
  const answer = async (id: string | number) => {
    for (let i = 0; i < 200; i += 1) {
      const found = out.find((m) => m.id === id);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`no answer to ${id}; got ${JSON.stringify(out)}`);
  };
  return { stdin, out, errors, answer, handle };
}

/** Writes `text` in chunks of `size` bytes, as a pipe would. */
function writeChunked(stdin: PassThrough, text: string, size: number): void {
  const bytes = Buffer.from(text, 'utf8');
  for (let i = 0; i < bytes.length; i += size) stdin.write(bytes.subarray(i, i + size));
}

const initialize = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

describe('the stdio host and messages past maxMessageBytes', () => {
  it('answers an oversized request (id first or last, in many chunks) with -32600 naming the limit, and serves on', async () => {
    const wire = await start(4096);
    wire.stdin.write(`${JSON.stringify(initialize)}\n`);
    await wire.answer(0);
    wire.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    wire.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })}\n`);
    await wire.answer(1); // the session is initialized: its MCP log is on

    // id first (as most clients write it), then a normal request in the same chunk as the oversized line's end
    const idFirst = `{"jsonrpc":"2.0","id":"big-1","method":"tools/call","params":{"name":"x","arguments":{"q":"${'a'.repeat(50_000)}"}}}`;
    writeChunked(wire.stdin, `${idFirst}\n${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' })}\r\n`, 1000);
    const refused = (await wire.answer('big-1')) as {
      error: { code: number; message: string; data: { code: string } };
    };
    expect(refused.error.code).toBe(-32600);
    expect(refused.error.data.code).toBe('INVALID_INPUT');
    expect(refused.error.message).toContain(`A message of ${idFirst.length} bytes arrived on stdin`);
    expect(refused.error.message).toContain('up to 4096 bytes (maxMessageBytes)');
    expect(await wire.answer(2)).toMatchObject({ result: {} });

    // id last (the MCP SDK's order)
    const idLast = `{"method":"tools/list","params":{"pad":"${'b'.repeat(9000)}"},"jsonrpc":"2.0","id":77}`;
    writeChunked(wire.stdin, `${idLast}\n`, 333);
    expect(((await wire.answer(77)) as { error: { code: number } }).error.code).toBe(-32600);

    // a notification (no id): nothing to answer, the stderr record says so; the next request is served
    wire.stdin.write(`{"jsonrpc":"2.0","method":"notifications/x","params":{"p":"${'c'.repeat(5000)}"}}\n`);
    wire.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' })}\n`);
    expect(await wire.answer(3)).toHaveProperty('result.tools');
    expect(wire.errors.map((r) => r.msg)).toHaveLength(3);
    for (const record of wire.errors) expect(record.msg).toMatch(/this server reads messages up to 4096 bytes/);
    // no response without an id (JSON-RPC never answers a notification); the client's MCP log got all three
    expect(wire.out.filter((m) => m.id === undefined && m.method === undefined)).toHaveLength(0);
    const logged = wire.out.filter((m) => m.method === 'notifications/message');
    expect(logged.map((m) => JSON.stringify(m)).filter((t) => t.includes('maxMessageBytes'))).toHaveLength(3);
  });

  it('passes a message of exactly the limit, split anywhere', async () => {
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' });
    const wire = await start(ping.length);
    writeChunked(wire.stdin, `${ping}\n`, 7);
    expect(await wire.answer(9)).toMatchObject({ result: {} });
  });
});

import { PassThrough } from 'node:stream';
import { createTestKernel } from '@pro-context/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type StdioServerHandle, serveStdio } from '../src/index.js';

// Lines the MCP SDK's stdio transport cannot take were dropped without an answer: a client that sent a JSON-RPC
// batch (MCP 2025-03-26 allowed them) or a line that is not JSON waited for answers that never came. JSON-RPC asks
// for an error response (-32700 / -32600, id null when the id cannot be read); a batch's requests get one each.

const handles: StdioServerHandle[] = [];
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.close()));
});

async function start() {
  const kernel = await createTestKernel({});
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const out: Record<string, unknown>[] = [];
  let pending = '';
  stdout.setEncoding('utf8');
  stdout.on('data', (chunk: string) => {
    pending += chunk;
    for (let nl = pending.indexOf('\n'); nl !== -1; nl = pending.indexOf('\n')) {
      out.push(JSON.parse(pending.slice(0, nl)));
      pending = pending.slice(nl + 1);
    }
  });
  const handle = await serveStdio(kernel, { version: '0.0.0-test', stdin, stdout, exitOnClose: false });
  handles.push(handle);
  const send = (line: string) => stdin.write(`${line}\n`);
  const settle = async (count: number) => {
    for (let i = 0; i < 200 && out.length < count; i += 1) await new Promise((r) => setTimeout(r, 10));
    return out;
  };
  send(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  );
  await settle(1);
  send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  return { out, send, settle };
}

describe('the stdio host answers the lines the SDK cannot read', () => {
  it('a batch: each request in it gets -32600 saying to send one message per line; the server serves on', async () => {
    const wire = await start();
    wire.send(
      JSON.stringify([
        { jsonrpc: '2.0', id: 501, method: 'tools/list' },
        { jsonrpc: '2.0', id: 'b', method: 'ping' },
        { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 9 } },
      ]),
    );
    wire.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' }));
    const out = await wire.settle(4);
    const byId = (id: unknown) => out.find((m) => m.id === id);
    for (const id of [501, 'b']) {
      expect(byId(id)).toEqual({
        jsonrpc: '2.0',
        id,
        error: {
          code: -32600,
          message:
            'Invalid Request: JSON-RPC batches are not accepted over stdio (MCP 2025-06-18); send one message per line.',
        },
      });
    }
    expect(byId(7)).toMatchObject({ id: 7, result: {} });
  });

  it('a line that is not JSON gets -32700 and one that is not JSON-RPC -32600, with id null; blank lines nothing', async () => {
    const wire = await start();
    wire.send('this is not json');
    wire.send('{"jsonrpc":"2.0","id":1,"method":');
    wire.send('   ');
    wire.send('{"hello":1}');
    wire.send('[1, 2');
    wire.send(JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'ping' }));
    const out = await wire.settle(6);
    const errors = out.filter((m) => m.id === null).map((m) => (m.error as { code: number }).code);
    expect(errors).toEqual([-32700, -32700, -32600, -32700]);
    expect(out.find((m) => m.id === 8)).toMatchObject({ result: {} });
  });
});

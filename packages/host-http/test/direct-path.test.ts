import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directRequest, passesPostChecks, SDK_VERSION_MIRRORED } from '../src/direct-path.js';

const installedSdk = JSON.parse(
  readFileSync(new URL('../node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url), 'utf8'),
) as { version: string };

describe('the direct JSON path mirrors the SDK transport it skips', () => {
  it('is pinned to the SDK version whose POST checks it mirrors', () => {
    expect(
      installedSdk.version,
      `@modelcontextprotocol/sdk is now ${installedSdk.version}; src/direct-path.ts mirrors the POST checks of ` +
        `${SDK_VERSION_MIRRORED} (Accept, Content-Type, Mcp-Protocol-Version, what a direct request is). Re-check them ` +
        `against the new SDK's handlePostRequest (dist/esm/server/webStandardStreamableHttp.js), then set SDK_VERSION_MIRRORED.`,
    ).toBe(SDK_VERSION_MIRRORED);
  });

  // every POST goes to the SDK's own transport (stateless, JSON answers); the test compares its verdict with ours
  let server: Server;
  let url: string;
  const verdicts: boolean[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      let text = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => {
        text += chunk;
      });
      req.on('end', async () => {
        verdicts.push(passesPostChecks(req));
        const mcp = new McpServer({ name: 'sdk', version: '0' });
        const transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: true,
        });
        res.on('close', () => void mcp.close());
        await mcp.connect(transport);
        await transport.handleRequest(req, res, JSON.parse(text));
      });
    }).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const both = 'application/json, text/event-stream';
  const cases: [string, Record<string, string>][] = [
    ['both types accepted, JSON body', { accept: both, 'content-type': 'application/json' }],
    ['a charset on the JSON type', { accept: both, 'content-type': 'application/json; charset=utf-8' }],
    [
      'the types in the other order',
      { accept: 'text/event-stream, application/json', 'content-type': 'application/json' },
    ],
    ['only application/json accepted', { accept: 'application/json', 'content-type': 'application/json' }],
    ['only text/event-stream accepted', { accept: 'text/event-stream', 'content-type': 'application/json' }],
    ['any type accepted', { accept: '*/*', 'content-type': 'application/json' }],
    ['a text body', { accept: both, 'content-type': 'text/plain' }],
    ['a JSON-looking type that is not JSON', { accept: both, 'content-type': 'application/jsonx' }],
    [
      'a supported protocol version',
      { accept: both, 'content-type': 'application/json', 'mcp-protocol-version': LATEST_PROTOCOL_VERSION },
    ],
    [
      'an unknown protocol version',
      { accept: both, 'content-type': 'application/json', 'mcp-protocol-version': '1999-01-01' },
    ],
  ];

  it.each(cases)('takes the direct path exactly when the SDK answers the request: %s', async (_name, headers) => {
    const res = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    await res.text();
    const direct = verdicts.at(-1);
    expect({ direct, sdkStatus: res.status }).toEqual({ direct: res.status === 200, sdkStatus: res.status });
  });

  it('answers directly only single requests without a progress token, never initialize, notifications or batches', () => {
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    expect(directRequest(ping)).toBe(ping);
    expect(directRequest({ ...ping, id: 'a' })).toBeDefined();
    expect(directRequest({ ...ping, params: { _meta: { progressToken: 1 } } })).toBeUndefined();
    expect(directRequest({ ...ping, method: 'initialize' })).toBeUndefined();
    expect(directRequest({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBeUndefined();
    expect(directRequest([ping])).toBeUndefined();
    expect(directRequest({ ...ping, id: 1.5 })).toBeUndefined();
    expect(directRequest({ ...ping, params: [1] })).toBeUndefined();
  });
});

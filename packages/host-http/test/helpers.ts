import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type KeyStore, keyStoreToken } from '@pro-context/access';
import { enginePlugin } from '@pro-context/engine';
import type { AnyPlugin, StartedKernel } from '@pro-context/kernel';
import { llmsTxtPlugin } from '@pro-context/plugin-llms-txt';
import { oramaSearchPlugin } from '@pro-context/plugin-orama-search/plugin';
import { sqliteCachePlugin } from '@pro-context/plugin-sqlite-cache';
import { createTestKernel } from '@pro-context/testing';
import { corpusSites, type FakeWeb, findCorpusRoot, startFakeWeb } from '@pro-context/testing/fake-web';
import { createApiKey, type HttpHostOptions, type HttpServerHandle, serveHttp } from '../src/index.js';

export const corpusRoot = findCorpusRoot();
export const skipReason = corpusRoot ? undefined : 'the corpora in ../shared/corpora are absent';

/** The real engine on the corpora (fake web), a real SQLite cache in a temp folder, and the HTTP host. */
export interface TestHost {
  kernel: StartedKernel;
  web: FakeWeb;
  handle: HttpServerHandle;
  keys: KeyStore;
  cacheDir: string;
  mcpUrl: URL;
  /** Creates an API key; returns the key. */
  newKey(name: string): Promise<string>;
  close(): Promise<void>;
}

export async function startTestHost(
  options: Partial<HttpHostOptions> = {},
  extra: { web?: FakeWeb; plugins?: AnyPlugin[] } = {},
): Promise<TestHost> {
  const web = extra.web ?? (await startFakeWeb({ sites: corpusSites(corpusRoot as string) }));
  const cacheDir = mkdtempSync(join(tmpdir(), 'pc-http-'));
  const kernel = await createTestKernel({
    plugins: [sqliteCachePlugin, oramaSearchPlugin, llmsTxtPlugin, enginePlugin, ...(extra.plugins ?? [])],
    config: {
      cache: { directory: cacheDir },
      libraries: [
        { id: 'fastapi', name: 'FastAPI', language: 'python', llmsTxtUrl: web.llmsTxtUrl('fastapi') },
        { id: 'httpx', name: 'HTTPX', language: 'python', llmsTxtUrl: web.llmsTxtUrl('httpx') },
        { id: 'pydantic', name: 'Pydantic', language: 'python', llmsTxtUrl: web.llmsTxtUrl('pydantic') },
      ],
    },
  });
  const handle = await serveHttp(kernel, { name: 'pro-context', version: '0.0.0-test', port: 0, ...options });
  const keys = kernel.resolve(keyStoreToken);
  return {
    kernel,
    web,
    handle,
    keys,
    cacheDir,
    mcpUrl: new URL(`${handle.url}/mcp`),
    newKey: async (name) => (await createApiKey(keys, name)).key,
    async close() {
      await handle.close();
      if (!extra.web) await web.close();
      rmSync(cacheDir, { recursive: true, force: true });
    },
  };
}

/** The SDK's client over Streamable HTTP, with a Bearer key when given. */
export async function connectClient(
  url: URL,
  key?: string,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(url, {
    ...(key ? { requestInit: { headers: { Authorization: `Bearer ${key}` } } } : {}),
  });
  const client = new Client({ name: 'http-host-test', version: '0.0.1' });
  await client.connect(transport);
  return { client, transport };
}

/** A raw MCP POST (fetch): what a client without the SDK sees. */
export async function post(
  url: URL,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; text: string; json(): unknown }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
}

export const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** `http.request` with any Host header (fetch silently drops a custom Host). */
export function rawRequest(
  url: URL,
  options: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'POST', headers: options.headers ?? {} }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    if (options.body) req.write(options.body);
    req.end();
  });
}

/** A plain Node server on loopback running `handler` (a module's steps under test), closed by `close()`. */
export async function serveHandler(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ url: URL; close(): Promise<void> }> {
  const server = createServer(handler).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

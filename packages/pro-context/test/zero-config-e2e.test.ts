import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type CallToolResult, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  type FakeRegistry,
  fakeNpmPackages,
  fakePypiProjects,
  startFakeNpm,
  startFakePypi,
} from '@pro-context/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, errorOf, skipReason } from './helpers.js';

/**
 * The stdio server with NO configuration file (an empty working directory and home): the curated registry
 * answers well-known names, the PyPI and npm resolvers read their loopback fakes (set by the declared
 * variables PRO_CONTEXT_PYPI_URL / PRO_CONTEXT_NPM_URL; loopback allowed by --allow-private-network). The
 * documentation sites are real https hosts: HTTPS_PROXY/HTTP_PROXY point at a loopback proxy that refuses
 * every request (502) and records which host was asked, so no documentation request leaves the machine.
 */
describe.skipIf(skipReason)(
  `pro-context with no configuration file${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let pypi: FakeRegistry;
    let npm: FakeRegistry;
    let proxy: Server;
    const proxied: string[] = [];
    let dir: string;
    let client: Client;
    const call = async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args }, CallToolResultSchema, { timeout: 60_000 })) as CallToolResult;

    beforeAll(async () => {
      pypi = await startFakePypi(fakePypiProjects);
      npm = await startFakeNpm(fakeNpmPackages);
      proxy = createServer((req, res) => {
        proxied.push(new URL(req.url ?? '/', 'http://x').host || (req.headers.host ?? ''));
        res.writeHead(502).end();
      });
      proxy.on('connect', (req, socket) => {
        proxied.push(req.url ?? '');
        socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      dir = mkdtempSync(join(tmpdir(), 'pc-zero-config-'));
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [cliPath, '--allow-private-network'],
        cwd: dir,
        env: {
          ...getDefaultEnvironment(),
          HOME: dir,
          USERPROFILE: dir,
          PRO_CONTEXT_CACHE_DIR: join(dir, 'cache'),
          PRO_CONTEXT_PYPI_URL: pypi.url,
          PRO_CONTEXT_NPM_URL: npm.url,
          HTTPS_PROXY: proxyUrl,
          HTTP_PROXY: proxyUrl,
          NO_PROXY: '127.0.0.1',
        },
        stderr: 'pipe',
      });
      transport.stderr?.on('data', () => undefined);
      client = new Client({ name: 'zero-config', version: '0.0.1' }, { capabilities: {} });
      await client.connect(transport);
    });

    afterAll(async () => {
      await client?.close();
      await pypi?.close();
      await npm?.close();
      await new Promise((resolve) => proxy?.close(resolve));
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('resolves a misspelt well-known name (fastapy) to FastAPI, with its versions from PyPI', async () => {
      const result = await call('resolve-library', { query: 'fastapy' });
      expect(result.isError).toBeFalsy();
      const r = result.structuredContent as {
        libraryId: string;
        name: string;
        defaultVersion: string;
        availableVersions: string[];
        notes: string[];
      };
      expect(r, JSON.stringify(r).slice(0, 300)).toMatchObject({
        libraryId: 'fastapi',
        name: 'FastAPI',
        defaultVersion: '0.116.1',
      });
      expect(r.availableVersions).toContain('0.110.0');
      expect(pypi.count('/pypi/fastapi/json')).toBeGreaterThanOrEqual(1);
      // the curated docs site was asked (through the proxy, which refused): the answer says so, not silently
      expect(proxied.some((host) => host.startsWith('fastapi.tiangolo.com'))).toBe(true);
      expect(r.notes.join(' ')).toMatch(/No documentation could be indexed for FastAPI 0\.116\.1/);
    });

    it('lists the whole curated registry, filtered by language and category', async () => {
      const all = (await call('list-libraries', {})).structuredContent as { libraries: { id: string }[] };
      expect(all.libraries.length).toBeGreaterThanOrEqual(400);
      const python = (await call('list-libraries', { language: 'python' })).structuredContent as {
        libraries: { id: string; language: string }[];
      };
      expect(python.libraries.every((l) => l.language === 'python')).toBe(true);
      expect(python.libraries.map((l) => l.id)).toContain('fastapi');
      const orms = (await call('list-libraries', { language: 'javascript', category: 'orm' })).structuredContent as {
        libraries: { id: string; categories: string[] }[];
      };
      expect(orms.libraries.map((l) => l.id)).toContain('prisma');
      expect(orms.libraries.every((l) => l.categories.includes('orm'))).toBe(true);
    });

    it('says plainly which version get-docs cannot serve for a range, and why', async () => {
      const result = await call('get-docs', { libraryId: 'fastapi', topic: 'dependencies', version: '0.110.x' });
      const error = errorOf(result);
      expect(error.code).toBe('VERSION_NOT_FOUND');
      expect(error.message).toContain('FastAPI 0.110.0 was released');
      expect(error.message).toContain('the latest stable version, 0.116.1');
      expect(error.suggestion).toContain("version '0.116.1'");
    });

    it('names the other ecosystem as an alternative when a name exists in both (openai)', async () => {
      const result = await call('resolve-library', { query: 'openai' });
      const r = result.structuredContent as { libraryId: string; language: string; alternatives: { id: string }[] };
      expect([r.libraryId, r.language]).toEqual(['openai', 'python']);
      expect(r.alternatives.map((a) => a.id)).toContain('openai-js');
      const js = (await call('resolve-library', { query: 'openai', language: 'javascript' })).structuredContent as {
        libraryId: string;
      };
      expect(js.libraryId).toBe('openai-js');
    });
  },
);

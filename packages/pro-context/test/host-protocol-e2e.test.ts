import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, connectStdio, errorOf, offlineRegistries } from './helpers.js';

// issue #25 deliverable 6 (oversized stdin message, non-object arguments) and issue #29 deliverable 7 (a wrong
// plugin name), through the built CLI's stdio server driven by the SDK's StdioClientTransport
const built = existsSync(cliPath);

describe.skipIf(!built)('the stdio server under protocol abuse and a misspelt plugin name', () => {
  let dir: string;
  let configFile: string;
  const opened: { close(): Promise<void> }[] = [];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'pc-protocol-'));
    configFile = join(dir, 'pro-context.config.yaml');
    writeFileSync(
      configFile,
      JSON.stringify({
        cache: { directory: join(dir, 'cache') },
        project: { autoDetect: false },
        ...offlineRegistries,
      }),
    );
  });
  afterAll(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close().catch(() => undefined)));
    rmSync(dir, { recursive: true, force: true });
  });
  const start = async (env: Record<string, string> = {}) => {
    const server = await connectStdio(configFile, { PRO_CONTEXT_CACHE_DIR: join(dir, 'cache'), ...env });
    opened.push(server);
    return server;
  };

  it('answers an 11 MB message with a JSON-RPC error naming the limit, and keeps serving', async () => {
    const server = await start();
    const huge = 'a'.repeat(11 * 1024 * 1024);
    // the SDK's client writes it as one line (id last); on main the server exited 0 and the client saw
    // "Connection closed"
    const refused = await server.client
      .callTool({ name: 'get-docs', arguments: { libraryId: 'fastapi', topic: huge } }, CallToolResultSchema, {
        timeout: 60_000,
      })
      .then(
        () => undefined,
        (error: unknown) => error as { code?: number; message: string },
      );
    expect(refused?.code).toBe(-32600);
    expect(refused?.message).toContain('reads messages up to 10485760 bytes');
    expect(refused?.message).not.toContain('Connection closed');
    // the same server still answers
    const tools = await server.client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('get-docs');
    expect((await server.call('list-libraries', {})).isError).toBeFalsy();
    expect(server.stderr.join('')).toMatch(
      /A message of 11534\d{3} bytes arrived on stdin; this server reads messages up to 10485760 bytes/,
    );
  });

  it('answers tools/call with arguments that are no object with INVALID_INPUT in plain words', async () => {
    const server = await start();
    const shapes: [unknown, string][] = [
      [['fastapi'], 'an array'],
      ['fastapi', 'a string'],
      [42, 'a number'],
      [null, 'null'],
    ];
    for (const [args, kind] of shapes) {
      const result = await server.client.request(
        { method: 'tools/call', params: { name: 'resolve-library', arguments: args as Record<string, unknown> } },
        CallToolResultSchema,
      );
      const error = errorOf(result);
      expect(error.code).toBe('INVALID_INPUT');
      expect(error.message).toBe(
        `Invalid arguments for resolve-library: arguments must be an object of named arguments, not ${kind}.`,
      );
      expect(error.suggestion).toContain('query');
      // no zod dump
      expect(JSON.stringify(result)).not.toMatch(/expected record|"path"|invalid_type/);
    }
    // a well-formed call after them works
    expect((await server.call('list-libraries', {})).isError).toBeFalsy();
  });

  it('starts with a misspelt PRO_CONTEXT_PLUGINS name, lists none of its tools, and says why at initialize and on stderr', async () => {
    const server = await start({ PRO_CONTEXT_PLUGINS: 'Exa' });
    const instructions = server.client.getInstructions() ?? '';
    expect(instructions).toContain("PRO_CONTEXT_PLUGINS names 'Exa', which is no remote plugin of pro-context");
    expect(instructions).toContain("did you mean 'exa'?");
    const names = (await server.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('get-docs');
    expect(names).not.toContain('web_search');
    expect(names).not.toContain('find_similar_content');
    expect(server.stderr.join('')).toContain("PRO_CONTEXT_PLUGINS names 'Exa'");
  });
});

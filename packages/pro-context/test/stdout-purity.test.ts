import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliPath, skipReason } from './helpers.js';

describe.skipIf(skipReason)(
  `stdout carries nothing but MCP messages${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    it('answers raw JSON-RPC lines with JSON-RPC lines only, and logs go to stderr', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'pc-stdout-'));
      const child = spawn(process.execPath, [cliPath], {
        env: {
          PATH: process.env.PATH ?? '',
          HOME: dir,
          PRO_CONTEXT_CACHE_DIR: join(dir, 'cache'),
          PRO_CONTEXT_LOG_LEVEL: 'debug',
        },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
      });
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
      });
      const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
      // before the client's initialize, the server says nothing on stdout (its start-up logs go to stderr only)
      const ready = Date.now() + 10_000;
      while (!/stdio server ready/.test(stderr) && Date.now() < ready) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 100));
      const beforeInitialize = stdout;
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
      });
      // as a client does: the rest only once initialize is answered
      const answered = Date.now() + 10_000;
      while (!/"id":1/.test(stdout) && Date.now() < answered) await new Promise((r) => setTimeout(r, 20));
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list-libraries', arguments: {} } });
      send({
        jsonrpc: '2.0',
        id: 4,
        method: 'tools/call',
        params: { name: 'get-docs', arguments: { libraryId: 'nope', topic: 'x' } },
      });
      const deadline = Date.now() + 15_000;
      while (!/"id":4/.test(stdout) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      child.stdin.end();
      await new Promise((r) => child.on('exit', r));
      rmSync(dir, { recursive: true, force: true });

      expect(stderr).toMatch(/stdio server ready/);
      expect(beforeInitialize).toBe('');
      const lines = stdout.split('\n').filter((l) => l.trim() !== '');
      // and the first message it sends is the answer to initialize
      expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({ id: 1, result: { serverInfo: { name: 'pro-context' } } });
      expect(lines.length).toBeGreaterThanOrEqual(4);
      for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
      const byId = new Map(
        lines
          .map((l) => JSON.parse(l))
          .filter((m) => 'id' in m)
          .map((m) => [m.id, m]),
      );
      expect(byId.get(2)?.result.tools).toHaveLength(5);
      expect(JSON.parse(byId.get(4)?.result.content[0].text).code).toBe('LIBRARY_NOT_FOUND');
      // the logs were written, to stderr, as JSON lines
      expect(stderr).toMatch(/"span":"get-docs"/);
      expect(child.exitCode).toBe(0);
    });
  },
);

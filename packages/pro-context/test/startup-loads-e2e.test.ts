import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { cliPath } from './helpers.js';

const recorder = fileURLToPath(new URL('./fixtures/record-start.mjs', import.meta.url));

/** The packages and plugins a bundle chunk was made from (its source map's sources). */
function sourcesOf(chunk: string): string[] {
  const map = `${chunk}.map`;
  return existsSync(map) ? (JSON.parse(readFileSync(map, 'utf8')) as { sources: string[] }).sources : [];
}

/** What a recorded line is about: the chunk's sources for a module, the file for a read. */
const isYaml = (source: string) => /node_modules\/\.pnpm\/yaml@/.test(source);
const isPostgresStore = (source: string) => source.includes('plugins/postgres-store/');
const isSqliteSearch = (source: string) => source.includes('plugins/sqlite-search/');

describe('start-up at the floor in an empty folder (issue #27 item 8): the first answers load only what they need', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it.skipIf(!existsSync(cliPath))(
    'answers tools/list without the YAML parser, the unused store and search plugins or the library registry; the first call reads the registry',
    async () => {
      const root = mkdtempSync(join(tmpdir(), 'pc-startup-loads-'));
      cleanups.push(() => rmSync(root, { recursive: true, force: true }));
      const folder = join(root, 'empty');
      const home = join(root, 'home');
      mkdirSync(folder);
      mkdirSync(home);
      const record = join(root, 'record.txt');
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: ['--import', recorder, cliPath],
        // no configuration file anywhere: not in the folder, not in this HOME
        env: {
          ...getDefaultEnvironment(),
          HOME: home,
          PRO_CONTEXT_TEST_RECORD: record,
          PRO_CONTEXT_CACHE_DIR: join(root, 'cache'),
        },
        cwd: folder,
        stderr: 'pipe',
      });
      const client = new Client({ name: 'startup-loads', version: '0.0.1' });
      await client.connect(transport);
      cleanups.push(() => client.close());
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('list-libraries');

      const lines = readFileSync(record, 'utf8').trim().split('\n');
      const answered = lines.indexOf('answered tools/list');
      expect(answered).toBeGreaterThan(0);
      const before = lines.slice(0, answered);
      const chunks = before.filter((l) => l.startsWith('module ')).map((l) => l.slice('module '.length));
      // the command's own chunks were recorded (the recorder works), and none of them holds what start-up needs not
      expect(chunks.some((c) => c.includes('pro-context.js'))).toBe(true);
      const sources = chunks.flatMap(sourcesOf);
      expect(sources.length).toBeGreaterThan(0);
      expect(sources.filter(isYaml)).toEqual([]);
      expect(sources.filter(isPostgresStore)).toEqual([]);
      expect(sources.filter(isSqliteSearch)).toEqual([]);
      expect(before.filter((l) => l.startsWith('read ') && l.endsWith('libraries.json'))).toEqual([]);

      // the first call that needs the catalog reads it (or the background phase has already)
      const result = await client.request(
        { method: 'tools/call', params: { name: 'list-libraries', arguments: { query: 'fastapi' } } },
        CallToolResultSchema,
      );
      const listed = (result.structuredContent as { libraries: { id: string }[] }).libraries.map((l) => l.id);
      expect(listed).toContain('fastapi');
      expect(readFileSync(record, 'utf8')).toMatch(/^read .*libraries\.json$/m);
    },
  );
});

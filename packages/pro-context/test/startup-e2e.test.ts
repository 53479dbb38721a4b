import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { connectStdio, offlineRegistries } from './helpers.js';

/** A project whose lockfile names one made-up package, and a config file beside it (registries off). */
function project(): { dir: string; configFile: string } {
  const dir = mkdtempSync(join(tmpdir(), 'pc-startup-e2e-'));
  const dependencies = { 'startup-probe-lib': '^1.2.0' };
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', dependencies }));
  writeFileSync(
    join(dir, 'package-lock.json'),
    JSON.stringify({
      name: 'app',
      version: '1.0.0',
      lockfileVersion: 3,
      packages: {
        '': { name: 'app', version: '1.0.0', dependencies },
        'node_modules/startup-probe-lib': { version: '1.2.3' },
      },
    }),
  );
  const configFile = join(dir, 'pro-context.config.yaml');
  writeFileSync(configFile, JSON.stringify({ cache: { directory: join(dir, 'cache') }, ...offlineRegistries }));
  return { dir, configFile };
}

const until = async (check: () => boolean, ms = 15_000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
  return true;
};

describe('start-up at the floor (issue #27): the project scan waits for the first answers', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('scans the project only once tools/list has been answered', async () => {
    const { dir, configFile } = project();
    const server = await connectStdio(configFile, { PRO_CONTEXT_PROJECT: dir, PRO_CONTEXT_LOG_LEVEL: 'debug' });
    cleanups.push(
      () => server.close(),
      () => rmSync(dir, { recursive: true, force: true }),
    );
    const log = () => server.stderr.join('');
    // initialized, no tools listed yet: nothing scanned (a client that never lists gets it a second later)
    await new Promise((r) => setTimeout(r, 300));
    expect(log()).not.toMatch(/project detection: /);
    const { tools } = await server.client.listTools();
    expect(tools.map((t) => t.name)).toContain('get-docs');
    expect(await until(() => /project detection: 1 libraries/.test(log()))).toBe(true);
    expect(log()).toMatch(/background phases started \(tools\/list answered\)/);
  });

  it('a tool called before tools/list starts the scan and waits for it: the project library is in its answer', async () => {
    const { dir, configFile } = project();
    const server = await connectStdio(configFile, { PRO_CONTEXT_PROJECT: dir, PRO_CONTEXT_LOG_LEVEL: 'debug' });
    cleanups.push(
      () => server.close(),
      () => rmSync(dir, { recursive: true, force: true }),
    );
    const result = await server.client.request(
      { method: 'tools/call', params: { name: 'list-libraries', arguments: { query: 'startup-probe' } } },
      CallToolResultSchema,
    );
    const listed = (result.structuredContent as { libraries: { id: string; projectDetected: boolean }[] }).libraries;
    expect(listed).toContainEqual(expect.objectContaining({ id: 'startup-probe-lib', projectDetected: true }));
    expect(server.stderr.join('')).toMatch(/background phases started \(list-libraries called\)/);
  });
});

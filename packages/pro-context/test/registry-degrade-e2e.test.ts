import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FakeWeb } from '@pro-context/testing/fake-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, errorOf, skipReason, startCorpusWeb, writeProject } from './helpers.js';

/** A loopback port where nothing listens: a registry that cannot be reached. */
async function closedPortUrl(): Promise<string> {
  const gone = createServer();
  await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(gone.address() as AddressInfo).port}/`;
  await new Promise<void>((resolve) => gone.close(() => resolve()));
  return url;
}

/**
 * Issue #26: the package registries refused by policy (what a DNS sinkhole does: this machine answers the public
 * registries with 203.0.113.80, a documentation-only address the SSRF guard refuses; here the registry URL names
 * that address, so no packet is sent) and, separately, unreachable (nothing listens). The docs are configured and
 * served: every answer degrades to a note naming the cause, never a failed call, and fresh docs are never "stale".
 */
const cases = [
  {
    name: 'refused by policy',
    registries: async () => ({ pypi: 'http://203.0.113.80/', npm: 'http://203.0.113.80/' }),
    cause: /refused by the network policy/,
  },
  {
    name: 'unreachable (connection refused)',
    registries: async () => ({ pypi: await closedPortUrl(), npm: await closedPortUrl() }),
    cause: /the connection was refused/,
  },
];

describe.skipIf(skipReason)(
  `package registries that cannot be asked${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    describe.each(cases)('$name', ({ registries, cause }) => {
      let web: FakeWeb;
      let project: ReturnType<typeof writeProject>;
      let server: Awaited<ReturnType<typeof connectStdio>>;

      beforeAll(async () => {
        web = await startCorpusWeb();
        const urls = await registries();
        project = writeProject(web, {
          registries: { pypi: { url: urls.pypi }, npm: { url: urls.npm } },
        });
        const config = JSON.parse(readFileSync(project.configFile, 'utf8'));
        config.libraries = [
          {
            id: 'httpx',
            name: 'HTTPX',
            language: 'python',
            packages: { pypi: 'httpx' },
            versions: ['0.28.1', '0.27.2'],
            llmsTxtUrl: web.llmsTxtUrl('httpx'),
          },
          // a JavaScript library with its docs configured: npm is asked for its versions
          {
            id: 'hono',
            name: 'Hono',
            language: 'typescript',
            packages: { npm: 'hono' },
            llmsTxtUrl: web.llmsTxtUrl('fastapi'),
          },
        ];
        writeFileSync(project.configFile, JSON.stringify(config));
        server = await connectStdio(project.configFile);
      });

      afterAll(async () => {
        await server?.close();
        await web?.close();
        project?.cleanup();
      });

      it('resolve-library answers with a note naming the cause, not an error', async () => {
        for (const query of ['httpx', 'hono']) {
          const result = await server.call('resolve-library', { query });
          expect(result.isError, JSON.stringify(result.content).slice(0, 400)).toBeFalsy();
          const notes = (result.structuredContent as { notes: string[] }).notes.join(' ');
          expect(notes).toMatch(/registry could not be reached/);
          expect(notes).toMatch(cause);
        }
      });

      it('get-docs on docs just fetched is not stale because a registry is down', async () => {
        let result = await server.call('get-docs', { libraryId: 'httpx', topic: 'timeouts' });
        // a loaded machine may outlast the tool deadline on the first fetch; the work goes on
        for (let i = 0; i < 20 && result.isError && errorOf(result).message.includes('timed out'); i++) {
          await new Promise((resolve) => setTimeout(resolve, 500));
          result = await server.call('get-docs', { libraryId: 'httpx', topic: 'timeouts' });
        }
        expect(result.isError, JSON.stringify(result.content).slice(0, 400)).toBeFalsy();
        expect((result.structuredContent as { stale: boolean }).stale).toBe(false);
        expect((result.content[0] as { text: string }).text).not.toContain('STALE');
      });

      it('a version the known list does not name is VERSION_NOT_FOUND listing it, saying it could not be refreshed', async () => {
        const error = errorOf(
          await server.call('get-docs', { libraryId: 'httpx', topic: 'timeouts', version: '99.0' }),
        );
        expect(error.code).toBe('VERSION_NOT_FOUND');
        expect(error.message).toMatch(/could not be refreshed/);
        expect(error.suggestion).toContain('0.28.1, 0.27.2');
      });

      it('a version that is not a version is INVALID_INPUT', async () => {
        const error = errorOf(
          await server.call('get-docs', { libraryId: 'httpx', topic: 'timeouts', version: 'banana' }),
        );
        expect(error.code).toBe('INVALID_INPUT');
        expect(error.message).toContain("'banana' is not a version");
      });
    });
  },
);

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { docsEngineToken } from '@pro-context/engine';
import type { StartedKernel } from '@pro-context/kernel';
import { createLogger } from '@pro-context/logging';
import { catalogErrorOf } from '@pro-context/testing';
import { corpusSites, type FakeWeb, findCorpusRoot, startFakeWeb } from '@pro-context/testing/fake-web';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startProContext } from '../src/index.js';
import { offlineRegistries } from './helpers.js';

const corpora = findCorpusRoot();

describe.skipIf(!corpora)(
  `llms.txt settings in sources.llmsTxt, and the old keys${corpora ? '' : ' (skipped: ../shared/corpora is absent)'}`,
  () => {
    let web: FakeWeb;
    const dirs: string[] = [];
    const kernels: StartedKernel[] = [];
    beforeAll(async () => {
      web = await startFakeWeb({ sites: corpusSites(corpora as string) });
    });
    afterEach(async () => {
      await Promise.all(kernels.splice(0).map((k) => k.stop()));
    });
    afterAll(async () => {
      await web.close();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    });

    async function start(library: Record<string, unknown>) {
      const dir = mkdtempSync(join(tmpdir(), 'pc-settings-'));
      dirs.push(dir);
      const lines: string[] = [];
      const kernel = await startProContext({
        config: {
          ...offlineRegistries,
          security: { allowPrivateNetwork: true },
          cache: { directory: join(dir, 'cache') },
          libraries: [{ id: 'httpx', name: 'HTTPX', language: 'python', ...library }],
        },
        logger: createLogger({ level: 'warn', stream: { write: (chunk: string) => lines.push(chunk) } }),
      });
      kernels.push(kernel);
      return { engine: kernel.resolve(docsEngineToken), kernel, lines };
    }

    it('reads the llms.txt URL from the bag, and allows its host for read-page', async () => {
      const { engine, kernel, lines } = await start({ sources: { llmsTxt: { llmsTxtUrl: web.llmsTxtUrl('httpx') } } });
      const answer = await engine.getDocs('httpx', 'timeouts', undefined, 1500);
      expect(answer.content).toMatch(/timeout/i);
      expect(kernel.allowlist.isAllowed(new URL(web.llmsTxtUrl('httpx')))).toBe(true);
      expect(lines.join('')).not.toMatch(/deprecated/);
    });

    it('still reads the old top-level key, moved into the bag with a warning naming the new key', async () => {
      const { engine, lines } = await start({ llmsTxtUrl: web.llmsTxtUrl('httpx') });
      expect(engine.libraries()[0]?.sources).toEqual({ llmsTxt: { llmsTxtUrl: web.llmsTxtUrl('httpx') } });
      expect(engine.libraries()[0]?.llmsTxtUrl).toBeUndefined();
      expect(lines.join('')).toMatch(
        /libraries\.0\.llmsTxtUrl is deprecated: write it as libraries\.0\.sources\.llmsTxt\.llmsTxtUrl/,
      );
      expect((await engine.getDocs('httpx', 'timeouts', undefined, 1500)).content).toMatch(/timeout/i);
    });

    it('refuses a bad key in the bag at start-up, naming its path', async () => {
      const error = await catalogErrorOf(start({ sources: { llmsTxt: { llmsTxtURL: web.llmsTxtUrl('httpx') } } }));
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.message).toMatch(/libraries\.0\.sources\.llmsTxt\.llmsTxtURL: Unrecognized key/);
      const bad = await catalogErrorOf(start({ sources: { llmsTxt: { versionedDocsUrl: 'https://x.test/latest' } } }));
      expect(bad.message).toMatch(/libraries\.0\.sources\.llmsTxt\.versionedDocsUrl: /);
    });
  },
);

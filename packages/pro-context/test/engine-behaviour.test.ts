import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { docsEngineToken } from '@pro-context/engine';
import type { StartedKernel } from '@pro-context/kernel';
import { createSilentLogger } from '@pro-context/logging';
import { catalogErrorOf } from '@pro-context/testing';
import { corpusSites, type FakeWeb, findCorpusRoot, startFakeWeb } from '@pro-context/testing/fake-web';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startProContext } from '../src/index.js';
import { offlineRegistries } from './helpers.js';

const corpora = findCorpusRoot();

describe.skipIf(!corpora)(
  `the engine in-process, against the fake web${corpora ? '' : ' (skipped: ../shared/corpora is absent)'}`,
  () => {
    let web: FakeWeb;
    const dirs: string[] = [];
    const kernels: StartedKernel[] = [];

    beforeAll(async () => {
      web = await startFakeWeb({ sites: corpusSites(corpora as string) });
    });
    afterEach(async () => {
      web.clearFaults();
      await Promise.all(kernels.splice(0).map((k) => k.stop()));
    });
    afterAll(async () => {
      await web.close();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    });

    async function start(extra: Record<string, unknown> = {}, libraryExtra: Record<string, unknown> = {}) {
      const dir = mkdtempSync(join(tmpdir(), 'pc-engine-'));
      dirs.push(dir);
      const kernel = await startProContext({
        config: {
          ...offlineRegistries,
          security: { allowPrivateNetwork: true },
          http: { retryDelaysMs: [10, 20], timeoutMs: 5000 },
          cache: { directory: join(dir, 'cache') },
          libraries: [
            { id: 'httpx', name: 'HTTPX', language: 'python', llmsTxtUrl: web.llmsTxtUrl('httpx'), ...libraryExtra },
            {
              id: 'typer',
              name: 'Typer',
              language: 'python',
              llmsTxtUrl: web.llmsTxtUrl('typer'),
              versions: ['0.16.0', '0.15.4'],
            },
          ],
          ...extra,
        },
        logger: createSilentLogger(),
      });
      kernels.push(kernel);
      return { kernel, engine: kernel.resolve(docsEngineToken), dir };
    }

    it('answers INDEXING_IN_PROGRESS with retryAfter while a first index builds, then searches', async () => {
      const { engine } = await start({ engine: { searchWaitMs: 0 } });
      web.setFault({ site: 'httpx', path: /\.md$/ }, { delayMs: 200 });
      const error = await catalogErrorOf(engine.search('httpx', 'async client', undefined, 5));
      expect(error.code).toBe('INDEXING_IN_PROGRESS');
      expect(error.retryAfter).toBeGreaterThanOrEqual(2);
      web.clearFaults();
      await engine.loadDocs('httpx', 'latest');
      const answer = await engine.search('httpx', 'async client', undefined, 5);
      expect(answer.results[0]?.url).toMatch(/async/);
    });

    it('shares one fetch between concurrent first requests', async () => {
      const { engine } = await start();
      web.clearRequests();
      const [a, b] = await Promise.all([
        engine.getDocs('httpx', 'timeouts', undefined, 2000),
        engine.getDocs('httpx', 'proxies', undefined, 2000),
      ]);
      // both waited for the same build: neither answer came from an earlier cache
      expect([a.cached, b.cached]).toEqual([false, false]);
      expect(web.requestsTo(new URL(web.llmsTxtUrl('httpx')).pathname)).toHaveLength(1);
    });

    it('serves stale docs with stale: true when the source is down after the TTL, and SOURCE_UNAVAILABLE with no cache', async () => {
      const { engine } = await start({}, { ttlHours: 0.0002 }); // under a second
      const fresh = await engine.getDocs('httpx', 'timeouts', undefined, 2000);
      expect(fresh).toMatchObject({ cached: false, stale: false });
      await engine.idle();
      await new Promise((r) => setTimeout(r, 900));
      web.setFault({ site: 'httpx' }, { status: 503 });
      const stale = await engine.getDocs('httpx', 'timeouts', undefined, 2000);
      expect(stale).toMatchObject({ cached: true, stale: true });
      expect(stale.content).toBe(fresh.content);
      await engine.idle(); // the background refresh fails and keeps the stale docs
      expect((await engine.getDocs('httpx', 'timeouts', undefined, 2000)).content).toBe(fresh.content);

      const down = await start();
      const error = await catalogErrorOf(down.engine.getDocs('httpx', 'timeouts', undefined, 2000));
      expect(error.code).toBe('SOURCE_UNAVAILABLE');
    });

    it('never substitutes a version: unknown versions list the available ones, releases without their own docs are refused', async () => {
      const { engine } = await start();
      const error = await catalogErrorOf(engine.getDocs('typer', 'options', '9.9.9', 2000));
      expect(error.code).toBe('VERSION_NOT_FOUND');
      expect(error.suggestion).toBe('Available versions: 0.16.0, 0.15.4');
      // typer's docs URL is not versioned: 0.15 exists, but only the latest docs (0.16.0) can be served, and it says so
      const resolved = await engine.resolve('typer 0.15');
      expect(resolved.defaultVersion).toBe('0.16.0');
      expect(resolved.requestedVersion).toBeUndefined();
      expect(resolved.notes.join(' ')).toMatch(
        /0\.15\.4 exists, but only the documentation of the latest stable version, 0\.16\.0/,
      );
      expect((await catalogErrorOf(engine.getDocs('typer', 'options', '0.15.4', 2000))).code).toBe('VERSION_NOT_FOUND');
      expect((await engine.getDocs('typer', 'options', '0.16.0', 2000)).version).toBe('0.16.0');
    });

    it('still reads pages of a TOC fetched before a restart (the allowlist is rebuilt from cached TOCs)', async () => {
      const first = await start();
      const resolved = await first.engine.resolve('httpx');
      const page = resolved.toc.find((e) => /quickstart/.test(e.url))?.url as string;
      await first.kernel.stop();
      // the same cache, but the library now configured through another host name: the TOC's host is not
      // allowed by configuration, only by the cached TOC listing the page
      const again = await startProContext({
        config: {
          ...offlineRegistries,
          security: { allowPrivateNetwork: true },
          cache: { directory: join(first.dir, 'cache') },
          libraries: [
            { id: 'httpx', name: 'HTTPX', llmsTxtUrl: web.llmsTxtUrl('httpx').replace('127.0.0.1', 'localhost') },
          ],
        },
        logger: createSilentLogger(),
      });
      kernels.push(again);
      const engine = again.resolve(docsEngineToken);
      expect((await engine.readPage(page, 2000, 0)).content).toMatch(/QuickStart/i);
      const outside = await catalogErrorOf(engine.readPage('http://127.0.0.2:1/elsewhere.md', 2000, 0));
      expect(outside.code).toBe('URL_NOT_ALLOWED');
    });

    it('reports progress while it fetches a library for the first time: each phase, at most ten a second', async () => {
      const { engine } = await start();
      const progress: [number, number][] = [];
      const started = performance.now();
      await engine.getDocs('typer', 'options', undefined, 1000, {
        progress: (done, total) => progress.push([done, total]),
      });
      const elapsed = performance.now() - started;
      expect(progress.map(([, total]) => total).every((t) => t === 100)).toBe(true);
      const done = progress.map(([d]) => d);
      expect(done).toEqual([...done].sort((x, y) => x - y)); // never goes backwards
      // the start, the adapter's first report, then chunking, indexing and the end, whatever the throttle drops
      for (const phase of [0, 80, 90, 100]) expect(done).toContain(phase);
      expect(progress.at(-1)).toEqual([100, 100]);
      expect(progress.length).toBeLessThanOrEqual(5 + Math.ceil(elapsed / 100));
    });
  },
);

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DocsEngine, docsEngineToken, docsTools } from '@pro-context/engine';
import type { StartedKernel } from '@pro-context/kernel';
import { createSilentLogger } from '@pro-context/logging';
import { corpusSites, type FakeWeb, findCorpusRoot, startFakeWeb } from '@pro-context/testing/fake-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProContext } from '../src/index.js';
import { offlineRegistries } from './helpers.js';

const corpora = findCorpusRoot();

/**
 * Ranking on documentation of other shapes than long tutorial pages (issue 13), on the real corpora: Vitest,
 * FastAPI, Pydantic and Hono as their sites serve them (fake web), React, Vite, ESLint and Instructor read
 * from their markdown folders (local docs).
 */
describe.skipIf(!corpora)(
  `ranking for each shape of documentation${corpora ? '' : ' (skipped: ../shared/corpora is absent)'}`,
  () => {
    let web: FakeWeb;
    let kernel: StartedKernel;
    let engine: DocsEngine;
    let dir: string;
    beforeAll(async () => {
      web = await startFakeWeb({ sites: corpusSites(corpora as string) });
      dir = mkdtempSync(join(tmpdir(), 'pc-shapes-'));
      const at = (path: string) => join(corpora as string, path);
      kernel = await startProContext({
        config: {
          ...offlineRegistries,
          project: { autoDetect: false },
          security: { allowPrivateNetwork: true },
          cache: { directory: join(dir, 'cache') },
          libraries: [
            { id: 'vitest', name: 'Vitest', language: 'javascript', llmsTxtUrl: web.llmsTxtUrl('vitest') },
            { id: 'fastapi', name: 'FastAPI', language: 'python', llmsTxtUrl: web.llmsTxtUrl('fastapi') },
            { id: 'pydantic', name: 'Pydantic', language: 'python', llmsTxtUrl: web.llmsTxtUrl('pydantic') },
            { id: 'react', name: 'React', language: 'javascript', localPath: at('react/src/content') },
            { id: 'vite', name: 'Vite', language: 'javascript', localPath: at('vite/docs') },
          ],
        },
        logger: createSilentLogger(),
      });
      engine = kernel.resolve(docsEngineToken);
      for (const id of ['vitest', 'fastapi', 'pydantic', 'react', 'vite']) await engine.loadDocs(id, 'latest');
    }, 180_000);
    afterAll(async () => {
      await kernel?.stop();
      await web?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const search = async (library: string, query: string) =>
      (await engine.search(library, query, undefined, 5)).results;

    describe('a query naming an API identifier', () => {
      it('ranks the config option page titled `setupFiles` first, ahead of pages that mention it', async () => {
        const [first] = await search('vitest', 'setupFiles');
        expect(first?.url).toMatch(/\/config\/setupfiles\.md/);
        expect(first?.title).toBe('setupFiles');
      });

      it("ranks the sections of React's `useEffect` page first, ahead of pages that use it", async () => {
        const results = await search('react', 'useEffect');
        expect(results.slice(0, 4).map((r) => r.url.replace(/#.*$/, '').replace(/^.*\/reference\//, ''))).toEqual(
          Array(4).fill('react/useEffect.md'),
        );
      });

      it("ranks Pydantic's section on model validators first for `model_validator`", async () => {
        const [first] = await search('pydantic', 'model_validator');
        expect(first?.title).toBe('Model validators');
      });

      it('ranks the two sections titled `expect.poll` (the config option, `poll` on the expect API page) first', async () => {
        const results = await search('vitest', 'expect.poll');
        expect(
          results
            .slice(0, 2)
            .map((r) => r.url.replace(/^.*\/vitest\//, ''))
            .sort(),
        ).toEqual(['api/expect.md#poll', 'config/expect.md#expectpoll']);
      });
    });

    describe('release notes, changelogs and blog posts', () => {
      it('shows the page kind of each search result', async () => {
        const kinds = new Map<string, string>();
        for (const [library, query] of [
          ['vite', 'announcing Vite 7'],
          ['vite', 'troubleshooting'],
          ['fastapi', 'release notes 0.100.0'],
          ['vitest', 'migration guide to vitest 4'],
          ['vite', 'server.proxy config'],
        ] as const) {
          for (const r of await search(library, query)) kinds.set(r.url.split('#')[0] as string, r.kind);
        }
        const kindsOf = (pattern: RegExp) => new Set([...kinds].filter(([url]) => pattern.test(url)).map(([, k]) => k));
        expect(kindsOf(/\/vite\/blog\/announcing-vite\d/)).toEqual(new Set(['blog']));
        expect(kindsOf(/\/vite\/guide\/troubleshooting\.md/)).toEqual(new Set(['troubleshooting']));
        expect(kindsOf(/\/fastapi\/release-notes\//)).toEqual(new Set(['release-notes']));
        expect(kindsOf(/\/vitest\/guide\/migration\.md/)).toEqual(new Set(['migration']));
        expect(kindsOf(/\/vite\/config\/server-options\.md/)).toEqual(new Set(['reference']));
      });

      it("says a result's kind in search-docs' text, after its relevance (a guide's is left unsaid)", async () => {
        const tool = docsTools(engine).find((t) => t.name === 'search-docs');
        const result = await tool?.handler(
          { libraryId: 'vite', query: 'what is new in Vite 7', maxResults: 5 },
          { signal: new AbortController().signal, progress: async () => undefined, logger: createSilentLogger() },
        );
        const structured = result?.structured as { results: { title: string; relevance: number; kind: string }[] };
        const first = structured.results[0];
        expect(first?.kind).toBe('blog');
        expect(result?.text).toContain(`1. **${first?.title}** (${first?.relevance}, blog)`);
      });

      it('ranks guides and reference pages above the blog posts that announced a feature', async () => {
        for (const query of ['environment API', 'rolldown']) {
          const [first] = await search('vite', query);
          expect(first?.kind, query).not.toBe('blog');
        }
      });

      it('ranks the announcement first when the query asks what is new in a version', async () => {
        const [first] = await search('vite', 'what is new in Vite 7');
        expect(first?.kind).toBe('blog');
        expect(first?.url).toMatch(/\/blog\/announcing-vite/);
      });
    });

    describe('a query quoting an error message or status', () => {
      it("answers `Failed to resolve import` from Vite's troubleshooting section quoting `Failed to resolve`", async () => {
        const answer = await engine.getDocs('vite', 'Failed to resolve import', undefined, 2000);
        const first = answer.content.split('\n\n---\n\n')[0] ?? '';
        expect(first).toContain('/guide/troubleshooting.md');
        expect(first).toContain('Failed to resolve');
      });

      it("finds FastAPI's error handling page for `422 Unprocessable Entity`", async () => {
        const results = await search('fastapi', '422 Unprocessable Entity');
        expect(results.slice(0, 2).some((r) => /\/tutorial\/handling-errors\//.test(r.url))).toBe(true);
        expect(results.find((r) => /handling-errors/.test(r.url))?.kind).toBe('troubleshooting');
      });
    });

    describe("get-docs' relevance cut-off", () => {
      it('stops well below maxTokens when the rest matches much less, and says how many sections it left out', async () => {
        const answer = await engine.getDocs('fastapi', 'response_model_exclude_unset', undefined, 5000);
        expect(answer.content).toContain('response_model_exclude_unset=True');
        expect(answer.content.length / 4).toBeLessThan(3000);
        // what it left out that scores at least half of the best section is counted for the agent: search-docs'
        // relevance is of the same ranking, but get-docs scores the rest of each section too, so the count lies
        // between the sections search scores at half the best or more and those it scores a little less
        const hits = (await engine.search('fastapi', 'response_model_exclude_unset', undefined, 20)).results;
        const leftOut = (share: number) =>
          hits.filter((hit) => hit.relevance >= share && !answer.content.includes(hit.url)).length;
        expect(answer.moreSections).toBeGreaterThanOrEqual(leftOut(0.5));
        expect(answer.moreSections).toBeLessThanOrEqual(leftOut(0.45));
      });
    });
  },
);

import { readFileSync } from 'node:fs';
import { findCorpusRoot } from '@pro-context/testing/fake-web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devLibraries, devSiteLibraries, half, loadEvalRows, makeProject, startWeb } from '../src/lib/setup.js';

type Config = {
  libraries: { id: string; repository?: string; docsPath?: string; sources?: { llmsTxt?: { llmsTxtUrl: string } } }[];
  sources?: { github?: { apiUrl: string; rawUrl: string } };
};

describe.skipIf(!findCorpusRoot())('the eval with its own dev questions (startWeb({ dev: true }))', () => {
  let shared: Awaited<ReturnType<typeof startWeb>>;
  let dev: Awaited<ReturnType<typeof startWeb>>;
  beforeAll(async () => {
    shared = await startWeb();
    dev = await startWeb({ dev: true });
  });
  afterAll(async () => {
    await shared?.close();
    await dev?.close();
  });

  const configOf = (web: Awaited<ReturnType<typeof startWeb>>): Config => {
    const project = makeProject(web);
    try {
      return JSON.parse(readFileSync(project.configFile, 'utf8')) as Config;
    } finally {
      project.cleanup();
    }
  };

  it('serves the shared libraries exactly as the shared eval does, so their figures stay comparable', () => {
    const before = configOf(shared).libraries.filter((l) => l.id === 'fastapi' || l.id === 'pydantic');
    const after = configOf(dev).libraries.filter((l) => l.id === 'fastapi' || l.id === 'pydantic');
    const path = (l: Config['libraries'][number]) => new URL(l.sources?.llmsTxt?.llmsTxtUrl ?? '').pathname;
    expect(after.map(path)).toEqual(before.map(path));
    expect(before).toHaveLength(2);
    expect(configOf(shared).sources).toBeUndefined();
  });

  it('reads ESLint and Instructor from their repositories on the loopback GitHub, and maps raw URLs to corpus files', () => {
    const config = configOf(dev);
    for (const l of devLibraries) {
      const entry = config.libraries.find((c) => c.id === l.id);
      expect(entry).toMatchObject({ repository: l.repo, docsPath: l.docsPath });
      expect(entry?.sources).toBeUndefined();
    }
    const rawUrl = config.sources?.github?.rawUrl as string;
    expect(new URL(rawUrl).hostname).toBe('127.0.0.1');
    expect(dev.fileForUrl(`${rawUrl}/eslint/eslint/main/docs/src/rules/no-unused-vars.md#options`)).toBe(
      'docs/src/rules/no-unused-vars.md',
    );
    // fake web URLs still map as before
    const url = dev.urlForFile('fastapi', 'docs/en/docs/tutorial/cors.md') as string;
    expect(dev.fileForUrl(url)).toBe(
      shared.fileForUrl(shared.urlForFile('fastapi', 'docs/en/docs/tutorial/cors.md') as string),
    );
  });

  it('serves React with an llms.txt on the fake web', async () => {
    const config = configOf(dev);
    for (const l of devSiteLibraries) {
      const llmsTxtUrl = config.libraries.find((c) => c.id === l.id)?.sources?.llmsTxt?.llmsTxtUrl as string;
      const text = await (await fetch(llmsTxtUrl)).text();
      const useEffect = dev.urlForFile(l.site, 'src/content/reference/react/useEffect.md') as string;
      expect(text).toContain(useEffect);
    }
  });

  it('asks the shared questions alone by default and adds bench/eval with dev, every id in one half', () => {
    const sharedRows = loadEvalRows();
    const all = loadEvalRows({ dev: true });
    expect(new Set(sharedRows.map((r) => r.library))).toEqual(new Set(['fastapi', 'pydantic']));
    expect(all.slice(0, sharedRows.length)).toEqual(sharedRows);
    expect(new Set(all.map((r) => r.library))).toEqual(
      new Set(['fastapi', 'pydantic', 'eslint', 'instructor', 'react', 'vitest']),
    );
    const odd = all.filter((r) => half(r) === 'odd').length;
    expect(odd).toBeGreaterThan(all.length * 0.4);
    expect(odd).toBeLessThan(all.length * 0.6);
  });
});

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { findCorpusRoot } from '@pro-context/testing';
import { describe, expect, it } from 'vitest';
import { getKnownLibrary } from '../src/index.js';

// The real llms.txt files in ../shared/corpora are the evidence behind some `checked: true` entries: their links
// must live under the URL the entry records (the site the file is served from).
const corpusRoot = findCorpusRoot();

describe.skipIf(!corpusRoot)('llms.txt files of the corpora agree with the registry', () => {
  const file = (name: string) => readFileSync(path.join(corpusRoot!, name), 'utf8');
  const links = (text: string) => [...text.matchAll(/\]\((https:\/\/[^)\s]+)\)/g)].map((m) => m[1]!);

  it("pydantic: every page of its llms.txt is under the registry's llms.txt folder", () => {
    const base = getKnownLibrary('pydantic')!.llmsTxt!.url.replace(/llms\.txt$/, '');
    const pages = links(file('llms-txt/pydantic.llms.txt'));
    expect(pages.length).toBeGreaterThan(50);
    expect(pages.filter((u) => !u.startsWith(base))).toEqual([]);
  });

  it('langgraph and langchain: the corpus llms.txt says the docs moved to the host the registry names', () => {
    const text = file('llms-txt/langgraph-current.llms.txt');
    expect(text).toContain('LangGraph documentation has moved to docs.langchain.com');
    for (const id of ['langgraph', 'langchain', 'langchain-js', 'langchain-langgraph']) {
      expect(new URL(getKnownLibrary(id)!.llmsTxt!.url).host, id).toBe('docs.langchain.com');
    }
  });

  it('hono: the site generator writes the files the registry names', () => {
    const script = file('hono/scripts/build-llm-docs.ts');
    expect(script).toContain(`'public/llms.txt'`);
    expect(script).toContain(getKnownLibrary('hono')!.llmsFullTxt!.url);
  });

  it('zod and vitest: their docs announce or generate an llms.txt', () => {
    expect(file('zod/packages/docs/content/index.mdx')).toContain(getKnownLibrary('zod')!.llmsTxt!.url);
    expect(file('vitest/docs/.vitepress/config.ts')).toContain('vitepress-plugin-llms');
  });

  it('the docs folders of the corpora exist where the registry says they are', () => {
    for (const [id, corpus] of [
      ['fastapi', 'fastapi'],
      ['pydantic', 'pydantic'],
      ['httpx', 'httpx'],
      ['typer', 'typer'],
      ['instructor', 'instructor'],
      ['hono', 'hono'],
      ['vitest', 'vitest'],
      ['vite', 'vite'],
      ['eslint', 'eslint'],
      ['zod', 'zod'],
      ['react', 'react'],
    ] as const) {
      const docsPath = getKnownLibrary(id)!.docsPath!;
      expect(existsSync(path.join(corpusRoot!, corpus, docsPath)), `${id}: ${docsPath}`).toBe(true);
    }
  });
});

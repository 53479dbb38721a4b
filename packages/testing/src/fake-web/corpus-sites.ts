// Ready-made fake sites for the shared documentation corpora (see corpora/SOURCES.md).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readMkdocsMeta } from './nav.js';
import type { FakeSiteDefinition } from './types.js';

/**
 * Locate the shared corpora: `$PRO_CONTEXT_SHARED_DIR/corpora`, else `../shared/corpora` beside the repository
 * root. `undefined` when absent, so corpus tests can skip with a clear message.
 */
export function findCorpusRoot(): string | undefined {
  const env = process.env.PRO_CONTEXT_SHARED_DIR;
  // This file is packages/testing/src/fake-web/: the package dir is two levels up.
  const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const candidates = [
    ...(env ? [path.resolve(env, 'corpora')] : []),
    path.resolve(packageDir, '../../../shared/corpora'),
  ];
  return candidates.find((c) => existsSync(path.join(c, 'SOURCES.md')));
}

function mkdocsMeta(configFile: string): { name?: string; description?: string } {
  try {
    return readMkdocsMeta(readFileSync(configFile, 'utf8'));
  } catch {
    return {};
  }
}

/**
 * Site definitions for the nine corpora under `corpusRoot` (plus variants), served the way the real sites are:
 *
 * - `pydantic`: the real llms.txt and llms-full.txt (links rewritten to the fake), markdown pages at
 *   `concepts/validators/index.md`, and the built HTML pages that exist in `html/pydantic-docs-site/dev`.
 * - `httpx`: markdown pages, llms.txt generated from mkdocs.yml nav, llms-full.txt.
 * - `httpx-html`: the built HTML site (`quickstart/`), with an llms.txt listing the HTML pages and a sitemap.
 * - `httpx-html-bare`: the same HTML site with no llms.txt at all (a sitemap.xml, no robots.txt).
 * - `httpx-html-nositemap`: the same HTML site with neither llms.txt nor sitemap.xml, and a robots.txt that
 *   disallows `/code_of_conduct/`: a crawler has only the pages' links to follow.
 * - `pydantic-html`: the five built pydantic pages (HTML) and their `index.md` twins (the site's own markdown
 *   renderings), no llms.txt; its sitemap lists them.
 * - `fastapi`, `typer`: markdown with `{* ../../docs_src/… *}` includes expanded, llms.txt from the nav.
 * - `instructor`: its real `docs/llms.txt` (a self-contained text with no page links), markdown pages.
 * - `langgraph`: its real `docs/docs/llms.txt`, links rewritten to the fake (links to notebook pages,
 *   absent from the corpus, stay broken: 404), markdown pages.
 * - `hono`, `vitest`: VitePress sidebar order, pages at `docs/api/context.md` / `guide/index.md`.
 * - `zod`: Zod 4 MDX pages in fumadocs `meta.json` order, served as `api.md`; `zod-v3`: the three Zod 3 pages
 *   (llms.txt from the file tree).
 *
 * Missing corpus folders are skipped.
 */
export function corpusSites(corpusRoot: string): FakeSiteDefinition[] {
  const c = (name: string): string => path.join(corpusRoot, name);
  const meta = (name: string, config: string) => mkdocsMeta(path.join(c(name), config));
  const sites: FakeSiteDefinition[] = [];
  const pydantic = meta('pydantic', 'mkdocs.yml');
  sites.push({
    name: 'pydantic',
    corpusDir: c('pydantic'),
    title: pydantic.name ?? 'Pydantic Validation',
    summary: pydantic.description,
    nav: { kind: 'mkdocs', configFile: 'mkdocs.yml' },
    htmlDir: path.join(corpusRoot, 'html/pydantic-docs-site/dev'),
    llmsTxt: {
      file: path.join(corpusRoot, 'llms-txt/pydantic.llms.txt'),
      originUrl: 'https://docs.pydantic.dev/latest/',
    },
    llmsFullTxt: {
      file: path.join(corpusRoot, 'llms-txt/pydantic.llms-full.txt'),
      originUrl: 'https://docs.pydantic.dev/latest/',
    },
  });
  const httpx = meta('httpx', 'mkdocs.yml');
  const httpxBase = {
    corpusDir: c('httpx'),
    title: httpx.name ?? 'HTTPX',
    summary: httpx.description,
    nav: { kind: 'mkdocs', configFile: 'mkdocs.yml' },
  } as const;
  sites.push({ ...httpxBase, name: 'httpx', llmsFullTxt: 'generated' });
  const httpxHtml = path.join(corpusRoot, 'html/httpx-gh-pages');
  sites.push({ ...httpxBase, name: 'httpx-html', markdown: false, htmlDir: httpxHtml });
  sites.push({ ...httpxBase, name: 'httpx-html-bare', markdown: false, htmlDir: httpxHtml, llmsTxt: false });
  const fastapi = meta('fastapi', 'docs/en/mkdocs.yml');
  sites.push({
    name: 'fastapi',
    corpusDir: c('fastapi'),
    docsDir: 'docs/en/docs',
    title: fastapi.name ?? 'FastAPI',
    summary: fastapi.description,
    nav: { kind: 'mkdocs', configFile: 'docs/en/mkdocs.yml' },
    includeBaseDir: 'docs/en',
  });
  const typer = meta('typer', 'mkdocs.yml');
  sites.push({
    name: 'typer',
    corpusDir: c('typer'),
    title: typer.name ?? 'Typer',
    summary: typer.description,
    nav: { kind: 'mkdocs', configFile: 'mkdocs.yml' },
    includeBaseDir: '.',
  });
  const instructor = meta('instructor', 'mkdocs.yml');
  sites.push({
    name: 'instructor',
    corpusDir: c('instructor'),
    title: instructor.name ?? 'Instructor',
    summary: instructor.description,
    nav: { kind: 'mkdocs', configFile: 'mkdocs.yml' },
    llmsTxt: { file: path.join(c('instructor'), 'docs/llms.txt') },
  });
  const langgraph = meta('langgraph', 'docs/mkdocs.yml');
  sites.push({
    name: 'langgraph',
    corpusDir: c('langgraph'),
    docsDir: 'docs/docs',
    title: langgraph.name ?? 'LangGraph',
    summary: langgraph.description,
    nav: { kind: 'mkdocs', configFile: 'docs/mkdocs.yml' },
    llmsTxt: {
      file: path.join(c('langgraph'), 'docs/docs/llms.txt'),
      originUrl: 'https://langchain-ai.github.io/langgraph/',
    },
  });
  sites.push({
    name: 'hono',
    corpusDir: c('hono'),
    docsDir: '.',
    title: 'Hono',
    summary:
      'Web framework built on Web Standards for Cloudflare Workers, Fastly Compute, Deno, Bun, Vercel, Node.js, and others. Fast, but not only fast.',
    nav: { kind: 'vitepress', configFile: '.vitepress/config.ts' },
    urlStyle: 'plain',
    llmsFullTxt: 'generated',
  });
  sites.push({
    name: 'vitest',
    corpusDir: c('vitest'),
    title: 'Vitest',
    summary: 'Next generation testing framework powered by Vite',
    nav: { kind: 'vitepress', configFile: 'docs/.vitepress/config.ts' },
    urlStyle: 'plain',
  });
  sites.push({
    name: 'zod',
    corpusDir: c('zod'),
    docsDir: 'packages/docs/content',
    title: 'Zod',
    summary: 'TypeScript-first schema validation with static type inference',
    nav: { kind: 'fumadocs', metaFile: 'packages/docs/content/meta.json' },
    urlStyle: 'plain',
    llmsFullTxt: 'generated',
  });
  sites.push({
    name: 'zod-v3',
    corpusDir: c('zod'),
    docsDir: 'packages/docs-v3',
    title: 'Zod 3',
    summary: 'TypeScript-first schema validation with static type inference (Zod 3 documentation)',
    nav: { kind: 'tree' },
    urlStyle: 'plain',
    llmsFullTxt: 'generated',
  });
  sites.push({
    ...httpxBase,
    name: 'httpx-html-nositemap',
    markdown: false,
    htmlDir: httpxHtml,
    llmsTxt: false,
    sitemap: false,
    robotsTxt: 'User-agent: *\nDisallow: /code_of_conduct/\n',
  });
  sites.push({
    name: 'pydantic-html',
    corpusDir: c('pydantic'),
    title: pydantic.name ?? 'Pydantic Validation',
    markdown: false,
    htmlDir: path.join(corpusRoot, 'html/pydantic-docs-site/dev'),
    htmlMarkdownTwins: true,
    llmsTxt: false,
  });
  return sites.filter((s) => existsSync(s.corpusDir));
}

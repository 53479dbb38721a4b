/**
 * `pnpm --filter @pro-context/bench similarity`: how close the markdown extracted from real built HTML pages is
 * to the markdown they were built from. Each page of ../shared/corpora/html/httpx-gh-pages (MkDocs Material) is
 * converted by `htmlToMarkdown` — the extraction the site crawl (`plugins/site-crawl`) and read-page use — and
 * compared with its source in ../shared/corpora/httpx/docs; each pydantic page of html/pydantic-docs-site/dev with
 * the `index.md` twin the site publishes beside it (its own HTML→markdown rendering, by mkdocs-llmstxt).
 *
 * Similarity: token-level precision, recall and F1 over the multiset of word tokens (lower-cased letters, digits
 * and `_`), after removing markdown syntax and link targets from both sides (so a link counts by its text, not
 * by a URL that differs between a source and a built page). Recall is the share of the source's words the
 * extraction kept; precision the share of extracted words that are the source's (navigation, search boxes or
 * footers that leaked in lower it). Code fences: fenced blocks in the extraction / in the reference.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { loadHtmlToMarkdown } from '@pro-context/markdown';
import { sharedDir, table } from './lib/setup.js';

interface Row {
  corpus: string;
  page: string;
  reference: string;
  precision: number;
  recall: number;
  f1: number;
  fences: string;
}

/** Markdown reduced to its words: no link targets, images, heading ids, HTML tags or markup characters. */
export function words(markdown: string): string[] {
  const text = markdown
    .replace(/^---\n[\s\S]*?\n---\n/, '')
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\]\([^)]*\)/g, ']')
    .replace(/^\[[^\]]+\]:\s*\S+.*$/gm, '')
    .replace(/\{#[^}]*\}/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/https?:\/\/\S+/g, ' ');
  return text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
}

/** Token precision, recall and F1 of `candidate` against `reference` (multisets). */
export function tokenF1(candidate: string[], reference: string[]): { precision: number; recall: number; f1: number } {
  const counts = new Map<string, number>();
  for (const w of reference) counts.set(w, (counts.get(w) ?? 0) + 1);
  let overlap = 0;
  for (const w of candidate) {
    const left = counts.get(w) ?? 0;
    if (left > 0) {
      overlap += 1;
      counts.set(w, left - 1);
    }
  }
  const precision = candidate.length ? overlap / candidate.length : 0;
  const recall = reference.length ? overlap / reference.length : 0;
  const f1 = precision + recall ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, f1 };
}

function fences(markdown: string): number {
  return Math.floor((markdown.match(/^\s*(```|~~~)/gm) ?? []).length / 2);
}

function builtPages(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name === 'index.html') out.push(join(d, e.name));
    }
  };
  walk(dir);
  return out.sort();
}

async function main() {
  const corpora = join(sharedDir(), 'corpora');
  const htmlToMarkdown = await loadHtmlToMarkdown();
  const rows: Row[] = [];
  const measure = (corpus: string, htmlFile: string, refFile: string, url: string, reference: string) => {
    const extracted = htmlToMarkdown(readFileSync(htmlFile, 'utf8'), url).markdown;
    const refText = readFileSync(refFile, 'utf8');
    const score = tokenF1(words(extracted), words(refText));
    rows.push({
      corpus,
      page: url.replace(/^https:\/\/[^/]+\//, '/'),
      reference,
      ...score,
      fences: `${fences(extracted)}/${fences(refText)}`,
    });
  };

  const httpxHtml = join(corpora, 'html/httpx-gh-pages');
  for (const file of builtPages(httpxHtml)) {
    const dir = relative(httpxHtml, file).split(sep).slice(0, -1).join('/');
    const source = join(corpora, 'httpx/docs', dir ? `${dir}.md` : 'index.md');
    if (!existsSync(source)) continue;
    measure('httpx', file, source, `https://www.python-httpx.org/${dir ? `${dir}/` : ''}`, `docs/${dir || 'index'}.md`);
  }
  const pydanticHtml = join(corpora, 'html/pydantic-docs-site/dev');
  for (const file of builtPages(pydanticHtml)) {
    const twin = file.replace(/index\.html$/, 'index.md');
    if (!existsSync(twin)) continue;
    const dir = relative(pydanticHtml, file).split(sep).slice(0, -1).join('/');
    measure('pydantic', file, twin, `https://docs.pydantic.dev/dev/${dir}/`, `${dir}/index.md (site's twin)`);
  }

  const f = (x: number) => x.toFixed(3);
  console.log(
    '\nHTML → markdown similarity (token precision / recall / F1 of the extracted page against its markdown)\n',
  );
  console.log(
    table(
      ['corpus', 'page', 'reference', 'precision', 'recall', 'F1', 'fences'],
      rows.map((r) => [r.corpus, r.page, r.reference, f(r.precision), f(r.recall), f(r.f1), r.fences]),
    ),
  );
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / (xs.length || 1);
  console.log('');
  console.log(
    table(
      ['corpus', 'pages', 'mean precision', 'mean recall', 'mean F1', 'min F1'],
      [...new Set(rows.map((r) => r.corpus)), 'all'].map((c) => {
        const g = c === 'all' ? rows : rows.filter((r) => r.corpus === c);
        return [
          c,
          g.length,
          f(mean(g.map((r) => r.precision))),
          f(mean(g.map((r) => r.recall))),
          f(mean(g.map((r) => r.f1))),
          f(Math.min(...g.map((r) => r.f1))),
        ];
      }),
    ),
  );
}

await main();

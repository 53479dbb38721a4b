import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { EvalRow } from './setup.js';

/**
 * Questions over the httpx corpus, made from its markdown sources (../shared/eval has none for httpx): one per
 * H2/H3 section that opens with a plain sentence. The question is the page title and the section heading; the
 * answer must contain the first six words of that sentence; the hit is that file and heading. Lines with links,
 * quotes or HTML are passed over, so the phrase reads the same in the markdown and in the HTML built from it.
 * Deterministic: files in path order, sections in document order.
 */
export function httpxQuestions(corpusDir: string): EvalRow[] {
  const docs = join(corpusDir, 'docs');
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name.endsWith('.md') && e.name !== 'code_of_conduct.md') files.push(join(dir, e.name));
    }
  };
  walk(docs);
  const rows: EvalRow[] = [];
  for (const file of files) {
    const rel = `docs/${relative(docs, file).split(sep).join('/')}`;
    const lines = readFileSync(file, 'utf8').split('\n');
    const name = rel.replace(/^.*\//, '').replace(/\.md$/, '').replace(/[-_]+/g, ' ');
    let inCode = false;
    // the page's H1, outside code blocks (a Python comment is not a title)
    const h1 = lines.find((l) => {
      if (/^\s*(```|~~~)/.test(l)) inCode = !inCode;
      return !inCode && /^# /.test(l);
    });
    const title = h1?.slice(2).trim() ?? name;
    const seen = new Set<string>();
    let fence = false;
    let heading: string | undefined;
    for (const line of lines) {
      if (/^\s*(```|~~~)/.test(line)) fence = !fence;
      if (fence) continue;
      const h = /^(#{2,3})\s+(.+?)\s*$/.exec(line);
      if (h) {
        heading = seen.has(h[2] as string) ? undefined : (h[2] as string);
        if (heading) seen.add(heading);
        continue;
      }
      if (/^#/.test(line)) {
        heading = undefined;
        continue;
      }
      if (!heading || !/^[A-Za-z`]/.test(line) || !/^[A-Za-z0-9 ,.;:()`/_-]+$/.test(line)) continue;
      const words = line.split(/\s+/).filter(Boolean);
      if (words.length < 8) continue;
      const phrase = words
        .slice(0, 6)
        .join(' ')
        .replace(/[,.;:]+$/, '');
      rows.push({
        id: `httpx-${String(rows.length + 1).padStart(3, '0')}`,
        library: 'httpx',
        question: `${title} ${heading.replace(/`/g, '')}`,
        file: rel,
        heading,
        must_contain: phrase,
        kind: 'section',
        noise: null,
      });
      heading = undefined;
    }
  }
  return rows;
}

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findPhrase } from './quality.js';
import { causeEvalDir, devEvalDir, type EvalRow, normalizeHeading } from './setup.js';

/** One section of a markdown page. */
export interface Section {
  heading: string;
  level: number;
  text: string;
}

/** The sections of a markdown page: each heading with its text up to the next heading of the same or a higher level. */
export function sectionsOf(markdown: string): Section[] {
  let body = markdown;
  let title: string | undefined;
  const fm = /^---\r?\n([\s\S]*?)\r?\n---\r?\n/.exec(body);
  if (fm) {
    title = /^title:\s*["']?(.*?)["']?\s*$/m.exec(fm[1] ?? '')?.[1];
    body = body.slice(fm[0].length);
  }
  const lines = body.split('\n');
  const heads: { line: number; level: number; heading: string }[] = [];
  let fence: string | undefined;
  lines.forEach((line, i) => {
    const f = /^\s*(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (!fence) fence = f[1];
      else if (line.trim().startsWith(fence)) fence = undefined;
      return;
    }
    if (fence) return;
    const h = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (h)
      heads.push({ line: i, level: (h[1] as string).length, heading: (h[2] as string).replace(/\s*\{[^}]*\}$/, '') });
  });
  const sections: Section[] = [];
  if (title) sections.push({ heading: title, level: 0, text: body });
  heads.forEach((h, k) => {
    const end = heads.slice(k + 1).find((n) => n.level <= h.level)?.line ?? lines.length;
    sections.push({ heading: h.heading, level: h.level, text: lines.slice(h.line + 1, end).join('\n') });
  });
  return sections;
}

/** Occurrences of a phrase in a text, as {@link findPhrase} matches it. */
export function countPhrase(text: string, phrase: string): number {
  let n = 0;
  let rest = text;
  for (;;) {
    const at = findPhrase(rest, phrase);
    if (at < 0) return n;
    n++;
    rest = rest.slice(at + 1);
  }
}

/** Problems of eval rows against the corpora folder (`../shared/corpora`), one line each. */
export function checkRows(rows: EvalRow[], corpora: string): string[] {
  const problems: string[] = [];
  const ids = new Set<string>();
  for (const row of rows) {
    const p = (m: string) => problems.push(`${row.id}: ${m}`);
    if (ids.has(row.id)) p('duplicate id');
    ids.add(row.id);
    if (!/-\d+$/.test(row.id)) p('id does not end in a number (odd/even halves)');
    for (const key of ['id', 'library', 'question', 'file', 'heading', 'must_contain', 'kind'] as const)
      if (typeof row[key] !== 'string' || !row[key]) p(`missing ${key}`);
    if (!('noise' in row)) p('missing noise');
    if (row.cause !== undefined && row.split !== 'dev' && row.split !== 'held')
      p('a cause row needs split "dev" or "held"');
    const words = row.must_contain.split(/\s+/).filter(Boolean).length;
    if (words < 6) p(`must_contain has ${words} words (< 6)`);
    if (findPhrase(row.question, row.must_contain) >= 0) p('the question quotes must_contain');
    const path = join(corpora, row.library, row.file);
    if (!existsSync(path)) {
      p(`no such file ${row.library}/${row.file}`);
      continue;
    }
    const text = readFileSync(path, 'utf8');
    const wanted = normalizeHeading(row.heading);
    const sections = sectionsOf(text).filter((s) => normalizeHeading(s.heading) === wanted);
    if (sections.length === 0) p(`no heading "${row.heading}" in ${row.file}`);
    else if (!sections.some((s) => findPhrase(s.text, row.must_contain) >= 0))
      p(
        `must_contain not under "${row.heading}" (${findPhrase(text, row.must_contain) >= 0 ? 'elsewhere in the file' : 'not in the file'})`,
      );
    const count = countPhrase(text, row.must_contain);
    const declared = (row as EvalRow & { occurrences_in_file?: number }).occurrences_in_file;
    if (declared !== count) p(`occurrences_in_file is ${declared}, found ${count}`);
  }
  return problems;
}

/** Rows of a JSONL question file. */
export function readQuestions(file: string): EvalRow[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as EvalRow);
}

/** This project's own question files (`bench/eval/questions-*.jsonl`, and the per-cause sets of `bench/eval/causes/`). */
export function devQuestionFiles(): string[] {
  const inDir = (dir: string) =>
    readdirSync(dir)
      .filter((f) => /^questions-.+\.jsonl$/.test(f))
      .sort()
      .map((f) => join(dir, f));
  return [...inDir(devEvalDir), ...inDir(causeEvalDir)];
}

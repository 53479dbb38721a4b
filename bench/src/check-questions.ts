/**
 * `node dist/check-questions.js [file.jsonl…]`: checks eval question files mechanically (default: every
 * `bench/eval/questions-*.jsonl`). For each row: the file exists in `../shared/corpora/<library>/`, a section
 * titled `heading` exists (ATX headings outside code fences; the page title from front matter or the H1 also
 * counts, for the page's opening), `must_contain` (≥ 6 words) is found by the eval's own {@link findPhrase} inside
 * that section (its subsections included), `occurrences_in_file` is the number of times it occurs in the file,
 * the id is unique and ends in a number, and the question does not quote the phrase. Exits 1 on any problem.
 *
 * `--indexed` also loads each library as the eval serves it (in process, `startWeb({ dev: true })`) and checks
 * that every phrase is found in an indexed chunk of its file whose heading path has the row's heading: what
 * get-docs can return, after the engine's own markdown handling.
 */
import { join } from 'node:path';
import { docsEngineToken } from '@pro-context/engine';
import { createSilentLogger } from '@pro-context/logging';
import { startProContext } from 'pro-context';
import { findPhrase } from './lib/quality.js';
import { checkRows, devQuestionFiles, readQuestions } from './lib/questions.js';
import { type EvalRow, makeProject, normalizeHeading, sharedDir, startWeb } from './lib/setup.js';

/** Rows whose phrase is in no indexed chunk of their section, as the eval serves the library. */
async function checkIndexed(rows: EvalRow[]): Promise<string[]> {
  const web = await startWeb({ dev: true });
  const project = makeProject(web);
  const problems: string[] = [];
  try {
    const kernel = await startProContext({ configFile: project.configFile, logger: createSilentLogger(), env: {} });
    const engine = kernel.resolve(docsEngineToken);
    for (const library of new Set(rows.map((r) => r.library))) {
      const loaded = await engine.loadDocs(library, 'latest');
      const chunks = (await loaded.docs.all()).map((c) => ({ ...c, file: web.fileForUrl(c.url) }));
      for (const row of rows.filter((r) => r.library === library)) {
        const wanted = normalizeHeading(row.heading);
        const found = chunks.some(
          (c) =>
            c.file === row.file &&
            c.headings.some((h) => normalizeHeading(h) === wanted) &&
            findPhrase(c.body, row.must_contain) >= 0,
        );
        if (!found)
          problems.push(`${row.id}: must_contain is in no indexed chunk of ${row.file} under "${row.heading}"`);
      }
    }
  } finally {
    await web.close();
    project.cleanup();
  }
  return problems;
}

async function main() {
  const indexed = process.argv.includes('--indexed');
  const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  const files = args.length > 0 ? args : devQuestionFiles();
  const corpora = join(sharedDir(), 'corpora');
  let failed = false;
  for (const file of files) {
    const rows = readQuestions(file);
    const problems = [...checkRows(rows, corpora), ...(indexed ? await checkIndexed(rows) : [])];
    const kinds = new Map<string, number>();
    for (const r of rows) kinds.set(r.kind, (kinds.get(r.kind) ?? 0) + 1);
    console.log(
      `${file}: ${rows.length} rows (${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')}), ${problems.length} problems`,
    );
    for (const problem of problems) console.log(`  ${problem}`);
    if (problems.length > 0) failed = true;
  }
  if (failed) process.exitCode = 1;
}

await main();
process.exit();

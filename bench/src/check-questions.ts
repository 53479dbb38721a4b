/**
 * `node dist/check-questions.js [file.jsonl…]`: checks eval question files mechanically (default: every
 * `bench/eval/questions-*.jsonl`). For each row: the file exists in `../shared/corpora/<library>/`, a section
 * titled `heading` exists (ATX headings outside code fences; the page title from front matter or the H1 also
 * counts, for the page's opening), `must_contain` (≥ 6 words) is found by the eval's own {@link findPhrase} inside
 * that section (its subsections included), `occurrences_in_file` is the number of times it occurs in the file,
 * the id is unique and ends in a number, and the question does not quote the phrase. Exits 1 on any problem.
 */
import { join } from 'node:path';
import { checkRows, devQuestionFiles, readQuestions } from './lib/questions.js';
import { sharedDir } from './lib/setup.js';

function main() {
  const args = process.argv.slice(2);
  const files = args.length > 0 ? args : devQuestionFiles();
  const corpora = join(sharedDir(), 'corpora');
  let failed = false;
  for (const file of files) {
    const rows = readQuestions(file);
    const problems = checkRows(rows, corpora);
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

main();

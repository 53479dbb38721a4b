import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The shared corpora folder (`$PRO_CONTEXT_SHARED_DIR/corpora`, else `../shared/corpora` beside the repo), if present. */
export const corpusDir: string | undefined = [
  ...(process.env.PRO_CONTEXT_SHARED_DIR ? [path.resolve(process.env.PRO_CONTEXT_SHARED_DIR, 'corpora')] : []),
  path.resolve(packageDir, '../../../shared/corpora'),
].find((dir) => existsSync(path.join(dir, 'SOURCES.md')));

if (!corpusDir) {
  console.warn(
    '[plugin-llms-txt] corpus tests skipped: shared corpora not found (set PRO_CONTEXT_SHARED_DIR or place them in ../shared/corpora)',
  );
}

/** A file of `corpora/llms-txt/`. */
export function llmsCorpus(name: string): string {
  return readFileSync(path.join(corpusDir as string, 'llms-txt', name), 'utf8');
}

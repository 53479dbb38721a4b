import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { IndexableChunk, IndexKey } from '@pro-context/kernel';
import { chunkMarkdown } from '@pro-context/markdown';

/** A chunk with a URL derived from its id. */
export function chunk(id: string, title: string, headings: string[], body: string): IndexableChunk {
  return { id, title, headings, body, url: `https://docs.test/${id}` };
}

/** A key for library `libraryId` at `version`. */
export function keyOf(libraryId: string, version = '1.0.0'): IndexKey {
  return { libraryId, version };
}

export const sharedDir = process.env.PRO_CONTEXT_SHARED_DIR ?? resolve(import.meta.dirname, '../../../../shared');
const corpora = join(sharedDir, 'corpora');
/** Whether the real corpora are there (`../shared` beside the repository). */
export const corporaAvailable = existsSync(join(corpora, 'pydantic'));

function markdownFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return markdownFiles(path);
      return /\.mdx?$/.test(name) ? [path] : [];
    });
}

/** The markdown of a corpus, chunked by the engine's chunker (`@pro-context/markdown`). */
export function corpusChunks(library: string): IndexableChunk[] {
  const root = join(corpora, library);
  const out: IndexableChunk[] = [];
  for (const file of markdownFiles(root)) {
    const markdown = readFileSync(file, 'utf8');
    const url = `https://docs.test/${library}/${relative(root, file)}`;
    for (const piece of chunkMarkdown({ url, title: relative(root, file), markdown }, { maxTokens: 800 })) {
      out.push({
        id: `${piece.id}@${out.length}`,
        title: piece.pageTitle,
        headings: piece.headings,
        body: piece.body,
        url,
      });
    }
  }
  return out;
}

/** The eval questions of a library (`../shared/eval/questions-<library>.jsonl`), or none. */
export function evalQuestions(library: string): string[] {
  const file = join(sharedDir, 'eval', `questions-${library}.jsonl`);
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => (JSON.parse(line) as { question: string }).question);
}

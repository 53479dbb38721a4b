import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { IndexableChunk } from '@pro-context/kernel';
import { describe, expect, it } from 'vitest';
import { OramaSearchBackend } from '../src/backend.js';
import { keyOf } from './helpers.js';

const sharedDir = process.env.PRO_CONTEXT_SHARED_DIR ?? resolve(import.meta.dirname, '../../../../shared');
const corpora = join(sharedDir, 'corpora');
const available = existsSync(join(corpora, 'pydantic'));
if (!available) console.warn(`[orama-search] skipping real-corpus tests: no corpora at ${corpora}`);

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return /\.mdx?$/.test(name) ? [path] : [];
  });
}

/** Crude chunking by headings (the engine's chunker is better); the heading path is title + heading. */
function chunkLibrary(library: string): IndexableChunk[] {
  const root = join(corpora, library);
  return markdownFiles(root).flatMap((file) => {
    const text = readFileSync(file, 'utf8');
    const title = /^# (.+)$/m.exec(text)?.[1]?.trim() ?? relative(root, file);
    return text
      .split(/^(?=#{1,6} )/m)
      .filter((part) => part.trim())
      .map((body, i) => {
        const heading = /^#{1,6} (.+)$/m.exec(body)?.[1]?.trim();
        return {
          id: `${relative(root, file)}#${i}`,
          title,
          headings: heading && heading !== title ? [title, heading] : [title],
          body,
          url: `https://docs.test/${relative(root, file)}`,
        };
      });
  });
}

describe.skipIf(!available)('real corpora (pydantic, fastapi)', () => {
  it('finds the right sections of the pydantic docs', async () => {
    const chunks = chunkLibrary('pydantic');
    const byId = new Map(chunks.map((c) => [c.id, c]));
    const backend = new OramaSearchBackend();
    const key = keyOf('pydantic', '2.11');
    await backend.index(key, chunks);
    const top = async (query: string, n = 3) =>
      (await backend.search(key, query, { limit: n })).hits.map((h) => byId.get(h.id)!);

    expect((await top('field validator')).map((c) => c.headings.join(' > '))).toContainEqual(
      expect.stringMatching(/Field validators/),
    );
    expect((await top('model_validate_json', 1))[0]?.body).toContain('model_validate_json');
    // The typo stands for the same stem as the word, so it ranks the same chunks in the same order.
    expect((await top('valdiator', 5)).map((c) => c.id)).toEqual((await top('validator', 5)).map((c) => c.id));
    expect((await top('TypeAdapter', 1))[0]?.body).toContain('TypeAdapter');

    // A snapshot holds the index, not the text: far smaller than the markdown, and it restores exactly.
    const snapshot = (await backend.snapshot(key))!;
    const markdownBytes = chunks.reduce((n, c) => n + Buffer.byteLength(c.body), 0);
    expect(snapshot.byteLength).toBeLessThan(markdownBytes);
    const restored = new OramaSearchBackend();
    expect(await restored.restore(key, snapshot)).toBe(true);
    for (const query of ['field validator', 'model_validate_json', 'valdiator', 'strict mode', 'BaseModel']) {
      expect(await restored.search(key, query, { limit: 20 }), query).toEqual(
        await backend.search(key, query, { limit: 20 }),
      );
    }
  });

  it('finds FastAPI identifiers', async () => {
    const chunks = chunkLibrary('fastapi');
    const byId = new Map(chunks.map((c) => [c.id, c]));
    const backend = new OramaSearchBackend();
    const key = keyOf('fastapi', '0.115');
    await backend.index(key, chunks);
    const first = async (query: string) => byId.get((await backend.search(key, query, { limit: 1 })).hits[0]!.id)!;
    expect((await first('APIRouter')).body).toContain('APIRouter');
    expect((await first('response_model')).body).toContain('response_model');
    expect((await first('dependencies with yield')).headings.join(' ')).toMatch(/yield/i);
  });
});

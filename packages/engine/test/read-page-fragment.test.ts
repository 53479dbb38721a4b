import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chunkMarkdown, cleanHeading, sectionOffset } from '@pro-context/markdown';
import { describe, expect, it } from 'vitest';
import { readableMarkdown } from '../src/read-page/pages.js';

const md = (...lines: string[]): string => lines.join('\n');
/** The heading line a fragment lands on in the markdown read-page returns (or undefined). */
const landsOn = (readable: string, fragment: string): string | undefined => {
  const at = sectionOffset(readable, fragment);
  return at === undefined ? undefined : readable.slice(at).split('\n')[0];
};

describe('sectionOffset', () => {
  it('finds a heading by its slug, by an explicit id, and skips `#` lines in code', () => {
    const page = md(
      '# Title',
      '',
      '```python',
      '# Usage',
      '```',
      '',
      '## Usage',
      '',
      'text',
      '',
      '## Usage',
      '',
      '### `z.deepPartial()` [#deep-partial]',
      '',
      '## Models { #models }',
    );
    expect(sectionOffset(page, 'usage')).toBe(page.indexOf('## Usage'));
    expect(sectionOffset(page, '#usage_1')).toBe(page.lastIndexOf('## Usage'));
    expect(sectionOffset(page, 'deep-partial')).toBe(page.indexOf('### `z.deepPartial()`'));
    expect(sectionOffset(page, 'models')).toBe(page.indexOf('## Models'));
    expect(sectionOffset(page, 'title')).toBe(0);
    expect(sectionOffset(page, 'nothing-here')).toBeUndefined();
    expect(sectionOffset(page, '')).toBeUndefined();
  });

  it('accepts percent-encoded fragments and other tools’ slugs of the same heading', () => {
    const page = md('# Intro', '', '## Café crème', '', '## Use `exclude_unset`', '', '## Step 2', '', '## Step 2');
    expect(landsOn(page, 'caf%C3%A9-cr%C3%A8me')).toBe('## Café crème');
    expect(landsOn(page, 'use-exclude-unset')).toBe('## Use `exclude_unset`');
    expect(landsOn(page, 'step-2-1')).toBe('## Step 2');
    expect(sectionOffset(page, 'step-2-1')).toBe(page.lastIndexOf('## Step 2'));
  });
});

// The shared corpora: $PRO_CONTEXT_SHARED_DIR/corpora, else ../shared/corpora beside the repository.
const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const corpora = [
  ...(process.env.PRO_CONTEXT_SHARED_DIR ? [path.resolve(process.env.PRO_CONTEXT_SHARED_DIR, 'corpora')] : []),
  path.resolve(packageDir, '../../../shared/corpora'),
].find((dir) => existsSync(path.join(dir, 'SOURCES.md')));

function markdownFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) markdownFiles(full, out);
    else if (name.endsWith('.md')) out.push(full);
  }
  return out;
}

describe.skipIf(!corpora)(
  `sectionOffset on real pages${corpora ? '' : ' (skipped: ../shared/corpora is absent; set PRO_CONTEXT_SHARED_DIR)'}`,
  () => {
    const root = corpora as string;

    it('lands every TOC link of the instructor llms.txt on its heading, past `# comment` lines in code', () => {
      const readable = readableMarkdown(readFileSync(path.join(root, 'llms-txt/instructor.llms.txt'), 'utf8'));
      const toc = [...readable.matchAll(/^ *- \[([^\]]+)\]\(#([^)]+)\)$/gm)];
      expect(toc.length).toBeGreaterThan(25);
      for (const [, title, fragment] of toc) {
        expect(landsOn(readable, fragment as string), fragment).toMatch(
          new RegExp(`^#+ ${escapeRegExp(title as string)}$`),
        );
      }
      const keyFeatures = sectionOffset(readable, 'key-features') as number;
      expect(readable.slice(keyFeatures)).toMatch(/^## Key Features\n\n### Response Validation\n/);
      // `# OpenAI` first appears as a comment in a code block; the fragment names the `### OpenAI` heading
      expect(landsOn(readable, 'openai')).toBe('### OpenAI');
      expect(sectionOffset(readable, 'openai')).toBeGreaterThan(readable.indexOf('# OpenAI'));
    });

    it('lands a FastAPI page’s `{ #id }` anchors on their headings in the text read-page returns', () => {
      const raw = readFileSync(path.join(root, 'fastapi/docs/en/docs/tutorial/response-model.md'), 'utf8');
      const readable = readableMarkdown(raw);
      // the ids are no longer in the text read-page returns; `response-model-parameter` is not our slug
      // of "`response_model` Parameter" (that is `response_model-parameter`)
      expect(readable).not.toContain('{ #');
      expect(landsOn(readable, 'response-model-parameter')).toBe('## `response_model` Parameter');
      expect(landsOn(readable, 'use-the-response-model-exclude-unset-parameter')).toBe(
        '### Use the `response_model_exclude_unset` parameter',
      );
      expect(landsOn(readable, 'recap')).toBe('## Recap');
    });

    it('lands every `{ #id }` of the FastAPI docs and every chunk anchor of a page on the right heading', () => {
      const misses: string[] = [];
      let ids = 0;
      for (const file of markdownFiles(path.join(root, 'fastapi/docs/en/docs'))) {
        const raw = readFileSync(file, 'utf8');
        const readable = readableMarkdown(raw);
        for (const m of raw.matchAll(/^(#{1,6}) (.*?) \{ ?#([\w-]+) ?\}$/gm)) {
          ids += 1;
          const line = landsOn(readable, m[3] as string);
          // (read-page shows the heading without its HTML, e.g. FastAPI's `<dfn>` tooltips)
          if (line !== `${m[1]} ${cleanHeading(m[2] as string).text}`)
            misses.push(`${path.basename(file)}#${m[3]} -> ${line}`);
        }
        // (release-notes.md, 700 kB and ~900 headings, would make this loop quadratic for no extra coverage)
        if (file.endsWith('release-notes.md')) continue;
        for (const chunk of chunkMarkdown({ url: file, markdown: raw })) {
          if (chunk.anchor && sectionOffset(readable, chunk.anchor) === undefined) {
            misses.push(`${path.basename(file)} chunk #${chunk.anchor}`);
          }
        }
      }
      expect(ids).toBeGreaterThan(1000);
      expect(misses).toEqual([]);
    });
  },
);

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

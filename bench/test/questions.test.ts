import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { findCorpusRoot } from '@pro-context/testing/fake-web';
import { describe, expect, it } from 'vitest';
import { checkRows, countPhrase, devQuestionFiles, readQuestions, sectionsOf } from '../src/lib/questions.js';

describe('sectionsOf', () => {
  it('cuts a page at headings outside code fences, a section running until a heading of its level or higher', () => {
    const page = [
      '---',
      'title: no-unused-vars',
      '---',
      'Intro text.',
      '## Options',
      'Options text.',
      '```js',
      '# not a heading',
      '```',
      '### args',
      'Args text.',
      '## When Not To Use It { #when }',
      'Never.',
    ].join('\n');
    const sections = sectionsOf(page);
    expect(sections.map((s) => [s.heading, s.level])).toEqual([
      ['no-unused-vars', 0],
      ['Options', 2],
      ['args', 3],
      ['When Not To Use It', 2],
    ]);
    const options = sections.find((s) => s.heading === 'Options')?.text ?? '';
    expect(options).toContain('Args text.');
    expect(options).not.toContain('Never.');
  });

  it('counts a phrase as the eval finds it, across markup and line breaks', () => {
    expect(countPhrase('The `max` property.\n\nthe max\nproperty.', 'the max property.')).toBe(2);
  });
});

const corpora = findCorpusRoot();

describe.skipIf(!corpora)('bench/eval questions', () => {
  const files = devQuestionFiles();

  it('has at least 30 questions for each of its libraries', () => {
    const libraries = files.filter((f) => !f.includes('/causes/'));
    expect(libraries.length).toBeGreaterThanOrEqual(2);
    for (const file of libraries) expect(readQuestions(file).length, file).toBeGreaterThanOrEqual(30);
  });

  it('has a dev and a held-back half of at least six questions for each cause (issue #28)', () => {
    const causes = files.filter((f) => f.includes('/causes/'));
    expect(causes.length).toBeGreaterThanOrEqual(4);
    for (const file of causes) {
      const rows = readQuestions(file);
      for (const split of ['dev', 'held'])
        expect(rows.filter((r) => r.split === split).length, file).toBeGreaterThanOrEqual(6);
    }
  });

  it.each(files.map((f) => [f.split('/').pop() as string, f]))(
    '%s: every row is found in its file and section',
    (_, file) => {
      const rows = readQuestions(file);
      expect(checkRows(rows, corpora as string)).toEqual([]);
    },
  );

  it('flags a phrase that is in the file but not under the row heading', () => {
    const [row] = readQuestions(files[0] as string);
    expect(existsSync(join(corpora as string, row?.library ?? '', row?.file ?? ''))).toBe(true);
    const wrong = { ...(row as NonNullable<typeof row>), heading: 'Rule Details' };
    expect(checkRows([wrong], corpora as string).join('\n')).toMatch(/not under "Rule Details"/);
  });
});

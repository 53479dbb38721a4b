import { describe, expect, it } from 'vitest';
import { createCodeTokenizer, MAX_RELATED_PER_TERM, PageFieldIndex } from '../src/index.js';

const tokenizer = createCodeTokenizer('english');
const page = (name: string, anchors: [string, number][] = []) => ({
  url: `https://d.test/${name}`,
  title: name,
  anchors,
});

describe('PageFieldIndex', () => {
  it('finds the page whose title the query names, identifiers split and adjacent words joined', () => {
    const fields = new PageFieldIndex(tokenizer, [
      page('hookTimeout'),
      page('testTimeout'),
      page('Hooks'),
      page('Test'),
      page('fileParallelism'),
    ]);
    const [best] = fields.match('my beforeAll hook times out after 10 seconds', 3);
    expect(best).toMatchObject({ url: 'https://d.test/hookTimeout' });
    expect(best?.titleNamed).toBeGreaterThan(0.5);
    // plural and stem forms name the title too; a title of one common word names little
    expect(fields.match('run test files one after another instead of in parallel', 1)[0]?.url).toBe(
      'https://d.test/fileParallelism',
    );
    const test = fields.match('run test files in parallel', 5).find((m) => m.url === 'https://d.test/Test');
    expect(test?.titleNamed ?? 0).toBeLessThan(0.5);
  });

  it('counts the texts other pages link to a page with, below its title', () => {
    const fields = new PageFieldIndex(tokenizer, [
      page('StrictMode', [['Strict Mode', 20]]),
      page('Components', [['strict', 1]]),
    ]);
    const matches = fields.match('strict mode', 2, 0);
    expect(matches.map((m) => m.url)).toEqual(['https://d.test/StrictMode', 'https://d.test/Components']);
    expect(matches[1]?.score).toBeLessThan(matches[0]?.score ?? 0);
  });

  it('mines related terms from link texts and the titles they point to, only pairs several pages make, bounded', () => {
    const fields = new PageFieldIndex(tokenizer, [
      page('Retrying', [['rerun a flaky test', 2]]),
      page('Retry callbacks', [['rerun hooks', 1]]),
      page('Caching', [['memoize', 1]]),
    ]);
    expect(fields.related(tokenizer.termOf('rerun'))).toContain(tokenizer.termOf('retry'));
    expect(fields.related(tokenizer.termOf('retry'))).toContain(tokenizer.termOf('rerun'));
    // one page pairing `memoize` with `caching` is not enough
    expect(fields.related(tokenizer.termOf('memoize'))).toEqual([]);
    for (const term of ['rerun', 'retry', 'flaky']) {
      expect(fields.related(tokenizer.termOf(term)).length).toBeLessThanOrEqual(MAX_RELATED_PER_TERM);
    }
  });
});

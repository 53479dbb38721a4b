import { estimateTokens } from '@pro-context/kernel';
import { chunkMarkdown } from '@pro-context/markdown';
import { describe, expect, it } from 'vitest';
import {
  asksAboutVersions,
  chunkTitle,
  chunkUrl,
  confidenceOf,
  DEFAULT_CUTOFF,
  errorPhrases,
  fillBudget,
  headingIdentifier,
  indexSections,
  pageKind,
  queryIdentifiers,
  queryTerms,
  type RankedChunk,
  sectionsLeftOut,
  selectRelevant,
  termCoverage,
  withoutLibraryName,
  withParentIntros,
  withSectionParts,
} from '../src/core/ranking.js';
import type { StoredChunk } from '../src/indexing/doc-store.js';

const page = 'https://docs.example.test/deployment/workers/';

function stored(id: string, headings: string[], body: string, order: number, url = page): StoredChunk {
  return { id, url, pageTitle: headings[0] ?? '', headings, body, tokens: estimateTokens(body), order };
}

const ranked = (chunk: StoredChunk, score: number): RankedChunk => ({ chunk, score, coverage: 1 });

describe('withoutLibraryName', () => {
  const names = ['FastAPI', 'fastapi'];

  it('drops the library name as a word of its own, possessive included', () => {
    expect(withoutLibraryName('How do I run FastAPI with several workers?', names)).toBe(
      'How do I run with several workers?',
    );
    expect(withoutLibraryName("FastAPI's dependency injection", names)).toBe('dependency injection');
    expect(withoutLibraryName('what is dependency injection in fastapi', names)).toBe(
      'what is dependency injection in',
    );
  });

  it('keeps it inside identifiers, paths and package names', () => {
    expect(withoutLibraryName('fastapi.Depends vs Depends', names)).toBe('fastapi.Depends vs Depends');
    expect(withoutLibraryName('install fastapi-cli', names)).toBe('install fastapi-cli');
    expect(withoutLibraryName('from fastapi_users import x', names)).toBe('from fastapi_users import x');
    expect(withoutLibraryName('pydantic-settings BaseSettings', ['Pydantic'])).toBe('pydantic-settings BaseSettings');
  });

  it('keeps a query that is nothing but the name', () => {
    expect(withoutLibraryName('FastAPI', names)).toBe('FastAPI');
    expect(withoutLibraryName('fastapi?', names)).toBe('fastapi?');
  });

  it('matches a name of several words as a phrase', () => {
    expect(withoutLibraryName('streaming with the Vercel AI SDK', ['Vercel AI SDK'])).toBe('streaming with the');
    expect(withoutLibraryName('the AI of Vercel', ['Vercel AI SDK'])).toBe('the AI of Vercel');
  });
});

describe('withSectionParts', () => {
  // A section cut in three: the sentence that explains, a long console session, and a closing note.
  const intro = stored(
    'intro',
    ['Server Workers', 'Multiple Workers'],
    '## Multiple Workers\n\nStart several workers with `--workers`:',
    0,
  );
  const session = stored(
    'session',
    ['Server Workers', 'Multiple Workers'],
    `## Multiple Workers\n\n\`\`\`console\n${'INFO started\n'.repeat(40)}\`\`\``,
    1,
  );
  const note = stored(
    'note',
    ['Server Workers', 'Multiple Workers'],
    '## Multiple Workers\n\nEach worker is a process.',
    2,
  );
  const other = stored('other', ['Server Workers', 'Containers'], '## Containers\n\nOne process per container.', 3);
  const elsewhere = stored(
    'elsewhere',
    ['Deployment', 'Multiple Workers'],
    '## Multiple Workers\n\nElsewhere.',
    0,
    'https://docs.example.test/other/',
  );
  const chunks = new Map([intro, session, note, other, elsewhere].map((c) => [c.id, c]));

  it('brings the other parts of a ranked section right after it', () => {
    const out = withSectionParts([ranked(session, 1), ranked(other, 0.5)], chunks, ['workers']);
    expect(out.map((r) => r.chunk.id)).toEqual(['session', 'intro', 'note', 'other']);
    expect(out[1]!.score).toBeLessThan(1);
    expect(out[1]!.score).toBeGreaterThan(0.5);
  });

  it('gives the parts of a section in page order, where its best part ranked, best part still first in used', () => {
    const parts = withSectionParts([ranked(session, 1), ranked(other, 0.5)], chunks, ['workers']);
    const { content, used } = fillBudget(parts, 5000);
    expect(used[0]?.chunk.id).toBe('session');
    const at = (text: string) => content.indexOf(text);
    expect(at('Start several workers')).toBeGreaterThanOrEqual(0);
    expect(at('Start several workers')).toBeLessThan(at('INFO started'));
    expect(at('INFO started')).toBeLessThan(at('Each worker is a process.'));
    expect(at('Each worker is a process.')).toBeLessThan(at('One process per container.'));
  });

  it("never opens with a section's (continued) part while the section's beginning is a candidate (issue #28)", () => {
    indexSections(chunks);
    // a budget for two sections: the closing note ranked first, the section's beginning last
    const { content, used } = fillBudget([ranked(note, 1), ranked(other, 0.9), ranked(intro, 0.5)], 120);
    expect(content.split('\n')[0]).not.toContain('(continued)');
    expect(content.indexOf('Start several workers')).toBeGreaterThanOrEqual(0);
    expect(content.indexOf('Start several workers')).toBeLessThan(content.indexOf('Each worker is a process.'));
    // the best match is still the answer's first in `used` (its source)
    expect(used[0]?.chunk.id).toBe('note');
  });

  it('does not lower a part that ranked better on its own, nor add sections of other pages', () => {
    const out = withSectionParts([ranked(note, 1), ranked(session, 0.99)], chunks, ['workers']);
    expect(out.map((r) => r.chunk.id)).toEqual(['note', 'session', 'intro']);
    expect(out[1]!.score).toBe(0.99);
  });
});

describe('withParentIntros (issue #28, section integrity)', () => {
  // pydantic's page: a subsection ranks first through its parent's heading, which its own text takes for granted
  const forward = 'https://docs.example.test/concepts/forward-annotations/';
  const title = stored(
    'title',
    ['Forward Annotations'],
    '# Forward Annotations\n\nAnnotations as strings.',
    0,
    forward,
  );
  const parent = stored(
    'parent',
    ['Forward Annotations', 'Recursive Models'],
    '## Recursive Models\n\nModels with self-referencing fields are also supported.',
    1,
    forward,
  );
  const cyclic = stored(
    'cyclic',
    ['Forward Annotations', 'Recursive Models', 'Cyclic references'],
    '### Cyclic references\n\nA tree of nodes that point back at each other raises a ValidationError.',
    2,
    forward,
  );
  const unrelated = stored(
    'unrelated',
    ['Forward Annotations', 'Postponed Annotations', 'Under the hood'],
    '### Under the hood\n\nA child node of a tree.',
    4,
    forward,
  );
  const postponed = stored(
    'postponed',
    ['Forward Annotations', 'Postponed Annotations'],
    '## Postponed Annotations\n\nStrings are evaluated later.',
    3,
    forward,
  );
  const chunks = new Map([title, parent, cyclic, unrelated, postponed].map((c) => [c.id, c]));
  const terms = ['recursive', 'tree', 'model', 'node', 'child'];

  it("gives a best subsection's short parent introduction, before it in the answer, when it names a word of the question", () => {
    indexSections(chunks);
    const candidates = withParentIntros([ranked(cyclic, 1), ranked(parent, 0.2)], chunks, terms);
    expect(candidates.map((r) => r.chunk.id)).toEqual(['cyclic', 'parent']);
    expect(candidates[1]!.score).toBeGreaterThan(0.9);
    const { content, used } = fillBudget(selectRelevant(candidates), 5000);
    expect(content.indexOf('Models with self-referencing fields are also supported.')).toBeGreaterThanOrEqual(0);
    expect(content.indexOf('self-referencing fields')).toBeLessThan(content.indexOf('point back at each other'));
    // the best match stays the answer's source
    expect(used[0]?.chunk.id).toBe('cyclic');
  });

  it('adds no introduction without a word of the question, nor a page title, nor one read with no candidate', () => {
    // "Postponed Annotations" names no word of the question: no context
    expect(withParentIntros([ranked(unrelated, 1)], chunks, terms).map((r) => r.chunk.id)).toEqual(['unrelated']);
    // a section right below the title: the title's introduction is an overview, not its context
    expect(withParentIntros([ranked(parent, 1)], chunks, terms).map((r) => r.chunk.id)).toEqual(['parent']);
    // only the chunks read with the candidates: nothing is read for it
    const without = new Map([cyclic].map((c) => [c.id, c]));
    expect(withParentIntros([ranked(cyclic, 1)], without, terms).map((r) => r.chunk.id)).toEqual(['cyclic']);
  });

  it('looks at the two best sections only, and leaves a long introduction out', () => {
    const long = stored(
      'long',
      ['Guide', 'Recursive Models'],
      `## Recursive Models\n\n${'A model may hold itself. '.repeat(120)}`,
      0,
      'https://docs.example.test/guide/',
    );
    const child = stored('child', ['Guide', 'Recursive Models', 'Trees'], '### Trees\n\nA tree.', 1, long.url);
    const all = new Map([...chunks.values(), long, child].map((c) => [c.id, c]));
    expect(withParentIntros([ranked(child, 1)], all, terms).map((r) => r.chunk.id)).toEqual(['child']);
    const third = withParentIntros([ranked(title, 1), ranked(postponed, 0.9), ranked(cyclic, 0.8)], all, terms);
    expect(third.map((r) => r.chunk.id)).toEqual(['title', 'postponed', 'cyclic']);
  });
});

describe('fillBudget', () => {
  const code = `\`\`\`python\n${'x = compute()\n'.repeat(60)}\`\`\``;
  const first = stored('first', ['Security', 'Hash the passwords'], `## Hash the passwords\n\n${code}`, 0);
  const copy = stored('copy', ['Security', 'Handle JWT tokens'], `## Handle JWT tokens\n\n${code}`, 1);
  const prose = stored('prose', ['Security', 'Verify'], '## Verify\n\nCreate a PasswordHash instance.', 2);

  it('skips a chunk repeating text already given (the same example under another heading)', () => {
    const { content, used } = fillBudget([ranked(first, 1), ranked(copy, 0.9), ranked(prose, 0.8)], 5000);
    expect(used.map((u) => u.chunk.id)).toEqual(['first', 'prose']);
    expect(content).toContain('Create a PasswordHash instance.');
    expect(content).not.toContain('Handle JWT tokens');
  });

  it('stays within the budget for any budget, labels and separators counted', () => {
    const many = Array.from({ length: 30 }, (_, i) =>
      ranked(stored(`p${i}`, ['Security', `Part ${i}`], `## Part ${i}\n\n${'Hash it. '.repeat(5 + i)}`, i), 1),
    );
    for (const budget of [60, 100, 137, 250, 500, 1000]) {
      const { content, used } = fillBudget(many, budget);
      expect(estimateTokens(content)).toBeLessThanOrEqual(budget);
      expect(used.length).toBeGreaterThan(0);
    }
  });

  it('keeps the truncation note, with a long URL, within the budget', () => {
    const longUrl = `https://docs.example.test/${'deeply/nested/'.repeat(12)}page/`;
    const big = stored(
      'big',
      ['Security', 'Hash'],
      `## Hash\n\n${'Hash the passwords first.\n\n'.repeat(80)}`,
      0,
      longUrl,
    );
    const { content } = fillBudget([ranked(big, 1)], 200);
    expect(content).toContain('Section truncated');
    expect(estimateTokens(content)).toBeLessThanOrEqual(200);
  });

  it('stays within the budget, truncating only a first chunk that does not fit', () => {
    const { content, used } = fillBudget([ranked(first, 1), ranked(prose, 0.8)], 100);
    expect(used.map((u) => u.chunk.id)).toEqual(['first']);
    expect(estimateTokens(content)).toBeLessThanOrEqual(100);
    expect(content).toContain('Section truncated');
  });
});

describe('confidenceOf', () => {
  const validators = stored(
    'v',
    ['Validators', 'Field validators'],
    '## Field validators\n\nA field validator checks one field.',
    0,
  );
  const best = (terms: string[]): RankedChunk => ({
    chunk: validators,
    score: 1,
    coverage: termCoverage(terms, `${validators.headings.join(' ')} ${validators.body}`),
  });

  it("does not count an example's abbreviation as a word of the question (the backend drops it too)", () => {
    // "e.g." would otherwise be a term no heading holds, lowering every section's share of the question
    expect(queryTerms('apply the same dependency (e.g. an API key check) to every endpoint, i.e. globally')).toEqual([
      'apply',
      'same',
      'dependency',
      'api',
      'key',
      'check',
      'every',
      'endpoint',
      'globally',
    ]);
  });

  it('is high when the best chunk holds the query words, in its headings too', () => {
    const terms = queryTerms('field validator');
    expect(confidenceOf(best(terms), terms)).toBe(1);
  });

  it('counts a word one typo or one spelling away, as the search backend does', () => {
    const terms = queryTerms('feild valdiator');
    expect(best(terms).coverage).toBe(0);
    expect(confidenceOf(best(terms), terms)).toBeGreaterThan(0.5);
  });

  it('is low when the best chunk holds few of the query words', () => {
    const terms = queryTerms('field serializer context pagination');
    expect(confidenceOf(best(terms), terms)).toBeLessThan(0.5);
  });
});

describe('chunkUrl', () => {
  const base = 'https://docs.example.test/instructor/llms.txt';

  it('adds the section anchor to a page URL', () => {
    expect(chunkUrl({ ...stored('a', ['Retries'], '## Retries\n\nx', 0), anchor: 'retries' })).toBe(`${page}#retries`);
  });

  it('replaces the fragment of a page URL that has one: never two #', () => {
    // a section of a single llms.txt file is a page named by its anchor
    const section = { ...stored('b', ['Key Features', 'Retries'], '## Retries\n\nx', 0, `${base}#key-features`) };
    expect(chunkUrl({ ...section, anchor: 'retries-and-error-handling' })).toBe(`${base}#retries-and-error-handling`);
    // a llms-full.txt page whose first section is the page itself
    const full = 'https://docs.example.test/llms-full.txt';
    expect(
      chunkUrl({ ...stored('c', ['Page One'], '# Page One\n\nx', 0, `${full}#page-one`), anchor: 'page-one' }),
    ).toBe(`${full}#page-one`);
    // no anchor of its own: the page URL as it is
    expect(chunkUrl(stored('d', ['Key Features'], 'Intro.', 0, `${base}#key-features`))).toBe(`${base}#key-features`);
  });
});

describe('chunkTitle', () => {
  it('names the section its anchor points at when a short introduction travels with its first subsection', () => {
    // Hono's CORS page: the H1's one-line intro is joined to `## Import`, under the H1's anchor
    const [chunk] = chunkMarkdown({
      url: 'https://docs.example.test/middleware/builtin/cors',
      markdown:
        '# CORS Middleware\n\nThere are many use cases of Cloudflare Workers as Web APIs.\n\n## Import\n\n```ts\nimport { cors } from "hono/cors"\n```\n',
    });
    expect(chunk?.headings.at(-1)).toBe('Import');
    expect(chunk?.anchor).toBe('cors-middleware');
    expect(chunkTitle(chunk as StoredChunk)).toBe('CORS Middleware');
  });

  it('names the deepest heading for a plain section and for every part of a split one', () => {
    const chunks = chunkMarkdown(
      {
        url: 'https://docs.example.test/guide',
        markdown: `# Guide\n\n${'Intro text that is long enough to stand alone. '.repeat(30)}\n\n## Context access\n\n${'A paragraph about context access in middleware. '.repeat(20)}\n\n${'Another paragraph about the context object. '.repeat(20)}\n`,
      },
      { maxTokens: 200 },
    );
    const parts = chunks.filter((c) => c.anchor === 'context-access');
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect(chunkTitle(part as StoredChunk)).toBe('Context access');
  });

  it('is not fooled by a # comment in a code block before the heading', () => {
    const chunk = {
      ...stored('e', ['Guide', 'Setup', 'Install'], '```sh\n# install it\npip install x\n```\n\n## Install\n\nx', 0),
      anchor: 'install',
    };
    expect(chunkTitle(chunk)).toBe('Install');
  });
});

describe("get-docs' relevance cut-off", () => {
  const ranked = (scores: number[], tokens = 400, pageOf = (i: number) => `https://docs.example.test/p${i}/`) =>
    scores.map((score, i) => ({
      chunk: stored(`c${i}`, [`Page ${i}`, `Section ${i}`], 'x'.repeat(tokens * 4), 0, pageOf(i)),
      score,
      coverage: 1,
    }));

  it('gives the best ~1,500 tokens whatever their scores, then only sections near the best', () => {
    const list = ranked([1, 0.3, 0.3, 0.3, 0.69, 0.71, 0.9, 0.2]);
    // four sections of 400 tokens reach the floor; past it 0.69 and 0.2 go, 0.71 and 0.9 stay
    expect(selectRelevant(list).map((r) => r.chunk.id)).toEqual(['c0', 'c1', 'c2', 'c3', 'c5', 'c6']);
  });

  it('keeps the other sections of the pages the floor gave down to pageRatio, not those of other pages', () => {
    const samePage = (i: number) => `https://docs.example.test/${i === 0 || i === 5 ? 'same' : `p${i}`}/`;
    // (none of them the top of its page)
    const list = ranked([1, 0.9, 0.9, 0.9, 0.9, 0.62, 0.62], 400, samePage).map((item) => ({
      ...item,
      chunk: { ...item.chunk, order: 1 },
    }));
    // (a list this flat would stop at flatTokens: the page rule is of lists that are not)
    const steep = { ...DEFAULT_CUTOFF, flatShare: 2 };
    // c5 (0.62) is another section of the best page; c6 (0.62) is of a page the floor did not give
    expect(selectRelevant(list, steep).map((r) => r.chunk.id)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4', 'c5']);
    expect(selectRelevant(list, { ...steep, pageRatio: 0.7 }).map((r) => r.chunk.id)).toEqual([
      'c0',
      'c1',
      'c2',
      'c3',
      'c4',
    ]);
  });

  it('gives a flat list the other sections of its best pages before one section each of more pages', () => {
    // the floor gives pages a-d; "a" has another section (c9, 0.75): it fits, the higher-scoring sections of new
    // pages (0.9) do not all fit beside it
    const pageOf = (i: number) => `https://docs.example.test/${i === 9 ? 'p0' : `p${i}`}/`;
    const list = ranked([1, 0.95, 0.95, 0.95, 0.9, 0.9, 0.9, 0.9, 0.9, 0.75], 400, pageOf);
    const kept = selectRelevant(list).map((r) => r.chunk.id);
    expect(kept).toContain('c9');
    expect(kept).toEqual(['c0', 'c1', 'c2', 'c3', 'c9']);
  });

  it('gives a flat list the parts of a long section that nothing ranked only after the ranked sections', () => {
    const list: RankedChunk[] = ranked([1, 0.95, 0.95, 0.95, 0.95, 0.9, 0.9], 400).map((item, i) =>
      // c1-c4 are the rest of c0's section (joined by withSectionParts), c5 and c6 ranked on their own
      i >= 1 && i <= 4 ? { ...item, joined: true } : item,
    );
    // the floor takes c0-c3; past it, c5 before c4 (joined, though it scored more)
    expect(selectRelevant(list).map((r) => r.chunk.id)).toEqual(['c0', 'c1', 'c2', 'c3', 'c5']);
  });

  it("counts a flat answer's tokens as rendered: many short sections with long labels stop at flatTokens", () => {
    const path = ['Configuration Reference', 'Options', 'Advanced options of the test runner', 'Section'];
    const list = Array.from({ length: 60 }, (_, i) => ({
      chunk: stored(`s${i}`, [...path, `option ${i}`], `Option ${i}. ${'word '.repeat(200)}`, i, `${page}o${i}/`),
      score: 1 - i * 0.001,
      coverage: 1,
    }));
    const { content } = fillBudget(selectRelevant(list), 5000);
    expect(estimateTokens(content)).toBeLessThanOrEqual(DEFAULT_CUTOFF.flatTokens);
    expect(estimateTokens(content)).toBeGreaterThan(DEFAULT_CUTOFF.flatTokens - 300);
  });

  it('answers a flat score list with fewer sections instead of filling the budget (issue #28)', () => {
    // twenty sections of 400 tokens scoring alike: the ranking cannot tell them apart
    const flat = ranked(
      Array.from({ length: 20 }, (_, i) => 1 - i * 0.004),
      400,
    );
    const kept = selectRelevant(flat);
    expect(kept.map((r) => r.chunk.id)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
    expect(kept.reduce((sum, r) => sum + r.chunk.tokens, 0)).toBeLessThanOrEqual(DEFAULT_CUTOFF.flatTokens);
    // the same scores falling away past the floor are not flat: the ratio rule keeps what scores near the best
    const steep = ranked([1, 0.8, 0.8, 0.8, 0.6, 0.75, 0.74, 0.73, 0.72, 0.71], 400);
    expect(selectRelevant(steep).map((r) => r.chunk.id)).toEqual([
      'c0',
      'c1',
      'c2',
      'c3',
      'c5',
      'c6',
      'c7',
      'c8',
      'c9',
    ]);
  });

  it('counts the sections scoring half the best or more that the answer left out', () => {
    const list = ranked([1, 0.9, 0.6, 0.5, 0.4]);
    expect(sectionsLeftOut(list, list.slice(0, 2))).toBe(2);
    expect(sectionsLeftOut(list, list)).toBe(0);
  });
});

describe('page kinds', () => {
  it.each([
    ['https://vite.dev/blog/announcing-vite7.html', 'Announcing Vite 7.0', 'blog'],
    ['https://python.useinstructor.com/blog/2024/03/28/some-post/', 'Some post', 'blog'],
    ['https://docusaurus.io/blog/releases/3.5', 'Docusaurus 3.5', 'release-notes'],
    ['https://fastapi.tiangolo.com/release-notes/', 'Release Notes', 'release-notes'],
    ['https://vite.dev/releases', 'Releases', 'release-notes'],
    ['https://docs.python.org/3/whatsnew/3.12.html', "What's New In Python 3.12", 'release-notes'],
    ['https://docs.pydantic.dev/latest/changelog/', 'Changelog', 'changelog'],
    ['https://www.sphinx-doc.org/en/master/changes/index.html', 'Changelog', 'changelog'],
    ['https://vitest.dev/guide/migration', 'Migration Guide', 'migration'],
    ['https://eslint.org/docs/latest/use/migrate-to-9.0.0', 'Migrate to v9.x', 'migration'],
    ['https://vite.dev/guide/troubleshooting', 'Troubleshooting', 'troubleshooting'],
    ['https://hono.dev/docs/guides/faq', 'Frequently Asked Questions', 'troubleshooting'],
    ['https://docs.pydantic.dev/latest/errors/validation_errors/', 'Validation Errors', 'troubleshooting'],
    ['https://vitest.dev/config/setupfiles', 'setupFiles', 'reference'],
    ['https://eslint.org/docs/latest/rules/no-unused-vars', 'no-unused-vars', 'reference'],
    ['https://docs.mintlify.example/api-reference/endpoint/create', 'Create', 'reference'],
    ['https://fastapi.tiangolo.com/tutorial/dependencies/', 'Dependencies', 'guide'],
  ])('%s is %s', (url, title, kind) => {
    expect(pageKind(url, title)).toBe(kind);
  });

  it('tells a question about versions, changes or news from one that is not', () => {
    for (const q of ['what is new in 7', "what's new", 'breaking changes in v4', 'deprecated options', 'release 3.2'])
      expect(asksAboutVersions(q), q).toBe(true);
    for (const q of ['environment API', 'rolldown', 'return 200 from a route', 'create a new model'])
      expect(asksAboutVersions(q), q).toBe(false);
  });
});

describe('identifiers and error messages in a query', () => {
  it('finds the words shaped like code, not plain or product words', () => {
    expect(queryIdentifiers('vitest setupFiles with expect.poll and useEffect() in @field_validator')).toEqual([
      'setupFiles',
      'expect.poll',
      'useEffect',
      'field_validator',
    ]);
    expect(queryIdentifiers('HTMLResponse TypeAdapter no-unused-vars')).toEqual([
      'HTMLResponse',
      'TypeAdapter',
      'no-unused-vars',
    ]);
    expect(queryIdentifiers('OpenAPI docs on Node.js for a Query parameter, read-only')).toEqual([]);
  });

  it('reads a heading as the identifier it names', () => {
    expect(headingIdentifier('`useEffect(setup, dependencies?)` {/*useeffect*/}')).toBe('useeffect');
    expect(headingIdentifier('◆ ESLint.outputFixes(results)')).toBe('eslint.outputfixes');
    expect(headingIdentifier('setupFiles | Config')).toBe('setupfiles');
    expect(headingIdentifier('Node.js < v20.19 is no longer supported')).toBe(
      'node.js < v20.19 is no longer supported',
    );
  });

  it('finds the error message or status a query quotes', () => {
    expect(errorPhrases('422 Unprocessable Entity')).toEqual(['422 Unprocessable Entity']);
    expect(errorPhrases('Failed to resolve import "./foo"')).toEqual(['Failed to resolve import']);
    expect(errorPhrases('Error: Cannot find module vite')).toEqual(['Cannot find module vite']);
    expect(errorPhrases('retry validation errors with tenacity')).toEqual([]);
    expect(errorPhrases('return 200 from a route')).toEqual([]);
  });
});

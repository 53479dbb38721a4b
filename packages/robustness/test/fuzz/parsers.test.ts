import { chunkMarkdown, loadHtmlToMarkdown, normalizeMarkdown, normalizeTopic } from '@pro-context/markdown';
import { LlmsFullSplitter, parseLlmsTxt, splitLlmsFull } from '@pro-context/plugin-llms-txt';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assertProperty,
  CASE_BUDGET_MS,
  fuzzRuns,
  htmlDocument,
  llmsTxtDocument,
  markdownDocument,
  timed,
  topicText,
} from '../../src/arbitraries.js';

// Property-based tests of the parsers that read fetched content (issue #25). Each case must finish within
// CASE_BUDGET_MS (far above normal: a linear parser takes milliseconds on these inputs), never throw, and give an
// output bounded by a small multiple of its input. `FUZZ_RUNS` sets the cases per property (`pnpm fuzz`: 10,000).
const runs = fuzzRuns();
// FUZZ_SEED replays a failure's seed (with its path in the report)
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
const params = { numRuns: runs, endOnFailure: true, ...(seed === undefined ? {} : { seed }) };
// a whole property: its cases, each under its budget, and shrinking a failure
const propertyTimeout = Math.max(120_000, runs * 150);

describe(`fuzzing the parsers of fetched content (${runs} cases each)`, () => {
  it(
    'normalizeMarkdown terminates, never throws, stays within 3x + 1 KB of its input, and is stable on its output',
    () => {
      assertProperty(
        fc.property(markdownDocument(), (md) => {
          const { value: out, ms } = timed(() => normalizeMarkdown(md));
          expect(ms).toBeLessThan(CASE_BUDGET_MS);
          expect(out.length).toBeLessThanOrEqual(3 * md.length + 1024);
          // a second pass over clean markdown changes nothing it already cleaned in a way that grows it
          const again = normalizeMarkdown(out);
          expect(again.length).toBeLessThanOrEqual(out.length + 1024);
        }),
        params,
      );
    },
    propertyTimeout,
  );

  it(
    'chunkMarkdown terminates, never throws, and its chunks hold at most 2x + 4 KB of the page',
    () => {
      assertProperty(
        fc.property(markdownDocument(), fc.integer({ min: 100, max: 2_000 }), (md, maxTokens) => {
          const { value: chunks, ms } = timed(() =>
            chunkMarkdown({ url: 'https://docs.test/p/', markdown: md }, { maxTokens }),
          );
          expect(ms).toBeLessThan(CASE_BUDGET_MS);
          const size = chunks.reduce((n, c) => n + c.body.length, 0);
          expect(size).toBeLessThanOrEqual(2 * md.length + 4096);
          for (const c of chunks) expect(c.id.startsWith('https://docs.test/p/'), c.id).toBe(true);
        }),
        params,
      );
    },
    propertyTimeout,
  );

  it(
    'htmlToMarkdown terminates, never throws, and its markdown stays within 2x + 1 KB of the HTML',
    async () => {
      const htmlToMarkdown = await loadHtmlToMarkdown();
      assertProperty(
        fc.property(htmlDocument(), (html) => {
          const { value, ms } = timed(() => htmlToMarkdown(html, 'https://docs.test/guide/'));
          expect(ms).toBeLessThan(CASE_BUDGET_MS);
          expect(value.markdown.length).toBeLessThanOrEqual(2 * html.length + 1024);
          expect(value.title.length).toBeLessThanOrEqual(html.length + 200);
        }),
        params,
      );
    },
    propertyTimeout,
  );

  it(
    'parseLlmsTxt and the llms-full splitters terminate, never throw, and find no more links than the file holds',
    () => {
      assertProperty(
        fc.property(fc.oneof(llmsTxtDocument(), markdownDocument()), (text) => {
          const { value: parsed, ms } = timed(() => parseLlmsTxt(text, 'https://docs.test/llms.txt'));
          expect(ms).toBeLessThan(CASE_BUDGET_MS);
          const links = parsed.entries.length + parsed.links.length;
          expect(links).toBeLessThanOrEqual(text.length);
          const { value: full, ms: fullMs } = timed(() => splitLlmsFull(text, 'https://docs.test/llms-full.txt'));
          expect(fullMs).toBeLessThan(CASE_BUDGET_MS);
          expect(full.pages.reduce((n, p) => n + p.markdown.length, 0)).toBeLessThanOrEqual(2 * text.length + 4096);
          // the streaming splitter, fed in pieces
          const { ms: streamMs } = timed(() => {
            const splitter = new LlmsFullSplitter('https://docs.test/llms-full.txt');
            for (let i = 0; i < text.length; i += 4096) splitter.push(text.slice(i, i + 4096));
            splitter.end();
          });
          expect(streamMs).toBeLessThan(CASE_BUDGET_MS);
        }),
        params,
      );
    },
    propertyTimeout,
  );

  it(
    'normalizeTopic terminates, never throws, never grows the topic, and is idempotent (a topic that is not a path)',
    () => {
      assertProperty(
        fc.property(topicText(), (topic) => {
          const { value, ms } = timed(() => normalizeTopic(topic));
          expect(ms).toBeLessThan(CASE_BUDGET_MS);
          expect(value.text.length).toBeLessThanOrEqual(topic.length);
          if (!value.path) expect(normalizeTopic(value.text).text).toBe(value.text);
        }),
        params,
      );
    },
    propertyTimeout,
  );
});

import {
  definePlugin,
  estimateTokens,
  type StartedKernel,
  sourceAdapterToken,
  type ToolContext,
  type ToolDefinition,
  toolPluginToken,
} from '@pro-context/kernel';
import { createSilentLogger } from '@pro-context/logging';
import { createTestKernel, StaticSourceAdapter } from '@pro-context/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_CUTOFF } from '../src/core/ranking.js';
import type { DocsAnswer } from '../src/engine.js';
import { fillWithOverhead, overheadChars, overheadTokens, renderedTokens } from '../src/get-docs/overhead.js';
import { docsEngineToken, enginePlugin } from '../src/plugin.js';
import { docsFooterOverhead, renderDocsAnswer } from '../src/tools/render-docs.js';
import { docsTools } from '../src/tools/tools.js';

const base = 'https://docs.example.test/streaming';

// Twelve pages on streaming, each with sections of about 150 tokens, under long page titles: get-docs has
// many chunks to fill a budget with and many related pages to list after them.
const pages = Array.from({ length: 12 }, (_, p) => ({
  url: `${base}/page-${p}/`,
  title: `Streaming guide part ${p}: tokens, events and updates from every node of a long-running graph`,
  markdown: [
    `# Streaming guide part ${p}: tokens, events and updates from every node of a long-running graph`,
    ...Array.from({ length: 6 }, (_, s) =>
      [
        `## Stream mode ${p}.${s}`,
        `Streaming mode ${s} of part ${p} sends updates as the graph runs. `.repeat(10),
        '```python\nfor chunk in graph.stream(inputs, stream_mode="updates"):\n    print(chunk)\n```',
      ].join('\n\n'),
    ),
  ].join('\n\n'),
}));

/** get-docs through its MCP tool, as the agent calls it. */
async function callGetDocs(tool: ToolDefinition, maxTokens: number): Promise<{ text: string; structured: DocsAnswer }> {
  const result = await tool.handler({ libraryId: 'streamer', topic: 'streaming updates', maxTokens }, context);
  return { text: result.text, structured: result.structured as unknown as DocsAnswer };
}

const context: ToolContext = {
  signal: new AbortController().signal,
  progress: async () => undefined,
  logger: createSilentLogger(),
};

let kernel: StartedKernel;
afterAll(() => kernel.stop());

describe('get-docs text within maxTokens', () => {
  let getDocs: ToolDefinition;

  beforeAll(async () => {
    const adapter = new StaticSourceAdapter('static', { streamer: { pages } });
    kernel = await createTestKernel({
      plugins: [
        enginePlugin,
        definePlugin({
          id: 'static-docs',
          kernel: '^0.1.0',
          register: (ctx) => ctx.bindValue(sourceAdapterToken, adapter),
        }),
      ],
      config: {
        libraries: [{ id: 'streamer', name: 'Streamer', language: 'python', source: 'static', versions: ['1.0.0'] }],
        engine: { relatedPages: 20 },
      },
    });
    const plugin = kernel.resolveAll(toolPluginToken).find((p) => p.id === 'engine');
    const tools = (await plugin?.tools()) ?? [];
    getDocs = tools.find((t) => t.name === 'get-docs') as ToolDefinition;
  });

  for (const maxTokens of [500, 1000, 5000, 10000]) {
    it(`keeps content, source line and related pages within ${maxTokens} tokens`, async () => {
      const { text, structured } = await callGetDocs(getDocs, maxTokens);
      expect(estimateTokens(text)).toBeLessThanOrEqual(maxTokens);
      // the agent still gets content, its source and (but at the smallest budget) pages to read next
      expect(structured.content.length).toBeGreaterThan(0);
      expect(text.startsWith(structured.content)).toBe(true);
      expect(text).toContain(`Source: ${structured.source}`);
      if (maxTokens >= 1000) expect(structured.relatedPages.length).toBeGreaterThan(0);
      // the structured answer lists exactly the related pages the text shows
      for (const page of structured.relatedPages) expect(text).toContain(`- [${page.title}](${page.url})`);
      expect(text.match(/^- \[/gm)?.length ?? 0).toBe(structured.relatedPages.length);
    });
  }

  it('uses most of a large budget for content', async () => {
    // these sections score alike (a flat list): get-docs stops at the flat cut-off's tokens, not at the budget
    // (issue #28); the footer must not eat into that content
    const { structured } = await callGetDocs(getDocs, 5000);
    expect(estimateTokens(structured.content)).toBeGreaterThan(DEFAULT_CUTOFF.flatTokens * 0.9);
  });
});

describe('renderDocsAnswer', () => {
  const answer: DocsAnswer = {
    content: 'x'.repeat(1600),
    source: `${base}/page-0/#stream-mode`,
    version: '1.0.0',
    lastUpdated: '2025-01-01T00:00:00.000Z',
    confidence: 0.9,
    cached: false,
    stale: false,
    relatedPages: [
      { title: 'One', url: `${base}/one/`, description: 'd'.repeat(200) },
      { title: 'Two', url: `${base}/two/`, description: 'Short.' },
    ],
    moreSections: 0,
  };

  it('drops a description before it drops the page, in text and structured answer alike', () => {
    // content 400 tokens; the footer without descriptions fits in 470, with the long one it does not
    const out = renderDocsAnswer(answer, 470);
    expect(estimateTokens(out.text)).toBeLessThanOrEqual(470);
    expect(out.structured.relatedPages[0]).toEqual({ title: 'One', url: `${base}/one/`, description: '' });
    expect(out.text).toContain(`- [One](${base}/one/)\n`);
    expect(out.text).not.toContain('ddd');
  });

  it('lists every related page when they fit', () => {
    const out = renderDocsAnswer(answer, 1000);
    expect(out.structured.relatedPages).toEqual(answer.relatedPages);
    expect(out.text).toContain(`— ${'d'.repeat(200)}`);
    expect(out.overflow).toBe(0);
  });

  it('says how many matching sections were left out, within the budget, and nothing when none were', () => {
    const out = renderDocsAnswer({ ...answer, moreSections: 3 }, 1000);
    expect(out.text).toContain(
      '\n3 more matching sections left out: raise maxTokens, read related pages or search-docs.',
    );
    expect(estimateTokens(out.text)).toBeLessThanOrEqual(1000);
    expect(out.structured.moreSections).toBe(3);
    expect(renderDocsAnswer({ ...answer, moreSections: 1 }, 1000).text).toContain('1 more matching section left out');
    expect(renderDocsAnswer(answer, 1000).text).not.toContain('left out');
  });

  it('says by how much content and source line overflow', () => {
    const out = renderDocsAnswer(answer, 400);
    expect(out.overflow).toBeGreaterThan(0);
    expect(out.structured.relatedPages).toEqual([]);
  });
});

describe('fillWithOverhead (the engine fills once, with room for the footer)', () => {
  const overhead = docsFooterOverhead();
  const answerOf = (contentTokens: number): DocsAnswer => ({
    content: 'y'.repeat(contentTokens * 4),
    source: 'https://docs.example.test/page/#section',
    version: '1.0.0',
    lastUpdated: '2025-01-01T00:00:00.000Z',
    confidence: 0.9,
    cached: false,
    stale: false,
    relatedPages: [{ title: 'One', url: 'https://docs.example.test/one/', description: 'About one.' }],
    moreSections: 3,
    skipped: {
      count: 1,
      pages: [{ url: 'https://docs.example.test/huge/', reason: 'https://docs.example.test/huge/ is too large.' }],
    },
  });
  const withMore = (count: number): DocsAnswer => ({
    ...answerOf(10),
    skipped: { count, pages: [{ url: 'https://docs.example.test/a/', reason: 'a is too large.' }] },
  });

  it('measures the footer exactly as the renderer prints it', () => {
    const { skipped: _none, ...noSkipped } = answerOf(10);
    const answers = [
      answerOf(10),
      { ...noSkipped, stale: true, moreSections: 1 },
      answerOf(0),
      withMore(2),
      withMore(12),
    ];
    for (const answer of answers) {
      const rendered = renderDocsAnswer({ ...answer, relatedPages: [] }, Number.POSITIVE_INFINITY);
      expect(overheadTokens(overhead, answer)).toBe(rendered.footerTokens);
      expect(renderedTokens(overhead, answer)).toBe(estimateTokens(rendered.text));
      // to the character: the footer, with the blank line after content when there is content
      expect(overheadChars(overhead, answer) - (answer.content ? 0 : 2)).toBe(
        rendered.text.length - answer.content.length,
      );
    }
  });

  it('words the pages left out of the index in notes, in the text and the structured answer', () => {
    const one = renderDocsAnswer(withMore(2), Number.POSITIVE_INFINITY);
    expect(one.text).toContain(
      '\nNote: Left out of the index: a is too large.\nNote: 1 more page was left out of the index.',
    );
    expect(one.structured.notes).toEqual([
      'Left out of the index: a is too large.',
      '1 more page was left out of the index.',
    ]);
    expect('skipped' in one.structured).toBe(false);
    expect(renderDocsAnswer(withMore(12), Number.POSITIVE_INFINITY).structured.notes?.[1]).toBe(
      '11 more pages were left out of the index.',
    );
  });

  it('asks for the whole budget first and never cuts content to make room for related pages', () => {
    const asked: number[] = [];
    const answer = fillWithOverhead(
      (tokens) => {
        asked.push(tokens);
        return answerOf(tokens - 80);
      },
      1000,
      overhead,
    );
    expect(asked).toEqual([1000]);
    expect(estimateTokens(renderDocsAnswer(answer, 1000).text)).toBeLessThanOrEqual(1000);
    expect(estimateTokens(answer.content)).toBe(920);
  });

  it('fills again within less when content and footer do not fit', () => {
    const asked: number[] = [];
    const answer = fillWithOverhead(
      (tokens) => {
        asked.push(tokens);
        return answerOf(tokens);
      },
      1000,
      overhead,
    );
    expect(asked.length).toBe(2);
    expect(asked[1]).toBe(1000 - overheadTokens(overhead, answerOf(1000)));
    expect(estimateTokens(renderDocsAnswer(answer, 1000).text)).toBeLessThanOrEqual(1000);
  });

  it('get-docs asks the engine once per call, fetching or cached', async () => {
    const engine = kernel.resolve(docsEngineToken);
    const calls = vi.spyOn(engine, 'answerDocs');
    const getDocs = docsTools(engine).find((t) => t.name === 'get-docs') as ToolDefinition;
    for (const maxTokens of [500, 777, 1000]) {
      calls.mockClear();
      const { text } = await callGetDocs(getDocs, maxTokens);
      expect(calls).toHaveBeenCalledTimes(1);
      expect(estimateTokens(text)).toBeLessThanOrEqual(maxTokens);
    }
    calls.mockRestore();
  });
});

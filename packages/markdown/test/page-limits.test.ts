import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ProContextError } from '@pro-context/kernel';
import { describe, expect, it } from 'vitest';
import {
  checkHtmlPage,
  checkTextPage,
  DEFAULT_PAGE_LIMITS,
  PageConverter,
  pageLimits,
  prepareDocs,
  scanHtml,
} from '../src/index.js';

/** The error a promise rejects with. */
const catalogErrorOf = (promise: Promise<unknown>): Promise<ProContextError> =>
  promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: ProContextError) => error,
  );

const deep = (depth: number) => `<main><h1>Deep</h1>${'<div>'.repeat(depth)}x${'</div>'.repeat(depth)}</main>`;

describe('scanHtml: the depth and element count of a page, before parsing', () => {
  it('reads the HTML shorthands as the parser does: unclosed list items, paragraphs and cells do not nest', () => {
    const items = `<ul>${'<li>item'.repeat(5000)}</ul>`;
    expect(scanHtml(items).depth).toBe(2);
    expect(scanHtml(`${'<p>para'.repeat(5000)}<div>x</div>`).depth).toBe(1);
    expect(scanHtml(`<table>${'<tr><td>a<td>b'.repeat(3000)}</table>`).depth).toBe(3);
    expect(scanHtml('<dl><dt>a<dd>b<dt>c<dd>d</dl>').depth).toBe(2);
  });

  it('skips comments, raw text, code blocks and quoted attribute values', () => {
    const html = `<div title="a > b <div>"><!-- <div><div> --><script>if (a<b) { "<div>" }</script><pre><span><span>x</span></span></pre><br/><img src=x></div>`;
    expect(scanHtml(html)).toEqual({ depth: 1, nodes: 5 });
  });

  it('counts 50,000 nested elements in one pass, and stops early past a limit', () => {
    expect(scanHtml(deep(50_000)).depth).toBe(50_001);
    expect(scanHtml(deep(50_000), { depth: 300 }).depth).toBe(301);
  });
});

describe('per-page limits', () => {
  const limits = pageLimits();

  it('refuses a page deeper than maxDepth, with more elements than maxNodes, or larger than maxBytes, naming the setting', () => {
    for (const depth of [1500, 20_000, 50_000]) {
      expect(() => checkHtmlPage(deep(depth), 'https://d.example/deep', limits)).toThrow(
        /https:\/\/d\.example\/deep nests HTML elements more than 256 deep \(setting engine\.pages\.maxDepth\)/,
      );
    }
    expect(() => checkHtmlPage(deep(200), 'https://d.example/ok', limits)).not.toThrow();
    const many = `<main>${'<p><a href="/x">x</a></p>'.repeat(40_000)}</main>`;
    expect(() => checkHtmlPage(many, 'https://d.example/many', limits)).toThrow(/engine\.pages\.maxNodes/);
    expect(() => checkTextPage('x'.repeat(DEFAULT_PAGE_LIMITS.maxBytes + 1), 'https://d.example/big', limits)).toThrow(
      /is 5000001 characters long, over the limit of 5000000 \(setting engine\.pages\.maxBytes\)/,
    );
  });

  it('refuses a markdown line longer than maxLineLength (a 3 M-character thematic break)', () => {
    const page = `# Rules\n\n${'-'.repeat(3_000_000)}\n`;
    expect(() => checkTextPage(page, 'https://d.example/rule', limits)).toThrow(
      /has a line of 3000000 characters, over the limit of 100000 \(setting engine\.pages\.maxLineLength\)/,
    );
  });

  it('leaves a bad page out of its library with why, and prepares the rest', async () => {
    const docs = await prepareDocs(
      [
        { url: 'https://d.example/ok', title: 'Ok', markdown: '# Ok\n\nThe retry policy backs off exponentially.\n' },
        { url: 'https://d.example/rule', title: 'Rule', markdown: `# Rule\n\n${'-'.repeat(3_000_000)}\n` },
        { url: 'https://d.example/deep', title: 'Deep', markdown: '', html: deep(50_000) },
      ],
      { maxTokens: 800 },
    );
    expect(docs.pages.map((p) => p.url)).toEqual(['https://d.example/ok']);
    expect(docs.chunks.length).toBeGreaterThan(0);
    expect(docs.skipped?.map((s) => [s.url, s.code])).toEqual([
      ['https://d.example/rule', 'PAGE_TOO_COMPLEX'],
      ['https://d.example/deep', 'PAGE_TOO_COMPLEX'],
    ]);
  });
});

const workerUrl = new URL('../dist/page-worker.js', import.meta.url);

describe.skipIf(!existsSync(fileURLToPath(workerUrl)))(
  'PageConverter: pages converted in a worker, within budget',
  () => {
    it('converts a page off the calling thread, refuses one over a cap before parsing', async () => {
      const converter = new PageConverter({ workerUrl, execArgv: [] });
      try {
        const page = await converter.convert({
          kind: 'html',
          text: '<html><body><main><h1>Guide</h1><p>Text with <a href="/next">a link</a>.</p></main></body></html>',
          url: 'https://d.example/guide/',
          readable: true,
        });
        expect(page.title).toBe('Guide');
        expect(page.readable?.markdown).toContain('# Guide');
        expect(page.readable?.h1).toBe('Guide');
        const error = await catalogErrorOf(
          converter.convert({ kind: 'html', text: deep(20_000), url: 'https://d.example/deep' }),
        );
        expect(error.code).toBe('PAGE_TOO_COMPLEX');
        const large = await catalogErrorOf(
          converter.convert({ kind: 'markdown', text: 'x'.repeat(6_000_000), url: 'https://d.example/big' }),
        );
        expect(large.code).toBe('PAGE_TOO_LARGE');
      } finally {
        await converter.close();
      }
    }, 60_000);

    it('stops a worker whose page overruns its time budget, and a fresh worker takes the next page', async () => {
      const converter = new PageConverter({ workerUrl, execArgv: [], limits: { timeBudgetMs: 100 } });
      try {
        // thousands of elements: well over 100 ms of conversion (the worker also loads the converter first)
        const heavy = `<main><h1>Heavy</h1>${'<p>Text <a href="/x">link</a> <code>c</code>.</p>'.repeat(15_000)}</main>`;
        const error = await catalogErrorOf(
          converter.convert({ kind: 'html', text: heavy, url: 'https://d.example/heavy' }),
        );
        expect(error.code).toBe('PAGE_TOO_COMPLEX');
        expect(error.message).toMatch(/took more than 100 ms to convert \(setting engine\.pages\.timeBudgetMs\)/);
        expect(converter.terminated).toBe(1);
        converter.configure({ timeBudgetMs: 30_000 });
        const next = await converter.convert({ kind: 'markdown', text: '# Next\n\nFine.', url: 'https://d.example/n' });
        expect(next.markdown).toContain('# Next');
      } finally {
        await converter.close();
      }
    }, 60_000);
  },
);

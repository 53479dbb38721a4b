import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { DocPage, TocEntry } from '@pro-context/kernel';
import { describe, expect, it } from 'vitest';
import { LlmsFullSplitter, type LlmsFullSplitterOptions, parseLlmsTxt, splitLlmsFull } from '../src/index.js';
import { corpusDir, llmsCorpus } from './corpora.js';

/** Feeds `text` to a splitter in pieces of the sizes `cuts` yields, collecting the pages as they come. */
function streamSplit(text: string, url: string, options: LlmsFullSplitterOptions, cuts: () => number) {
  const splitter = new LlmsFullSplitter(url, options);
  const pages: DocPage[] = [];
  for (let at = 0; at < text.length; ) {
    const n = Math.max(1, cuts());
    pages.push(...splitter.push(text.slice(at, at + n)));
    at += n;
  }
  pages.push(...splitter.end());
  return { style: splitter.style, pages, warnings: splitter.warnings, notMarkdown: splitter.notMarkdown };
}

/** A seeded generator (mulberry32), so a failure names the seed that reproduces it. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const fixed = (n: number) => () => n;

function expectSame(text: string, url: string, toc: readonly TocEntry[] | undefined, openingChars: number, seed = 1) {
  const whole = splitLlmsFull(text, url, toc ? { toc } : {});
  const rnd = random(seed);
  for (const cuts of [fixed(1 << 16), fixed(4099), () => 1 + Math.floor(rnd() * 300)]) {
    const streamed = streamSplit(text, url, { ...(toc ? { toc } : {}), openingChars }, cuts);
    if (streamed.style !== whole.style) return false;
    expect(streamed.pages).toEqual(whole.pages);
    expect(streamed.warnings).toEqual(whole.warnings);
  }
  return true;
}

describe.skipIf(!corpusDir)('LlmsFullSplitter on the real corpus', () => {
  const files = corpusDir
    ? readdirSync(path.join(corpusDir, 'llms-txt')).filter((f) => f.endsWith('.txt') && !f.endsWith('.llms.txt'))
    : [];
  const lists = corpusDir ? readdirSync(path.join(corpusDir, 'llms-txt')).filter((f) => f.endsWith('.llms.txt')) : [];

  it.each([...files, ...lists])(
    'splits %s exactly like splitLlmsFull (whole, and streamed after a small opening)',
    (file) => {
      const text = llmsCorpus(file);
      const url = `https://docs.example.dev/${file}`;
      const tocFile = file.replace(/\.llms-(full|ctx|small)\.txt$/, '.llms.txt');
      const toc =
        tocFile !== file && lists.includes(tocFile) ? parseLlmsTxt(llmsCorpus(tocFile), url).entries : undefined;
      for (const t of toc ? [undefined, toc] : [undefined]) {
        expect(expectSame(text, url, t, 1_000_000_000)).toBe(true);
        expectSame(text, url, t, 4096);
      }
    },
  );

  it('splits a bench-style file of the real corpora pages ("# Title", "Source: url", body) exactly like splitLlmsFull', () => {
    // as the bench's nine-in-one and synthetic bodies are written (llmsFullOf): real pages, fences and all
    const parts: string[] = [];
    const walk = (dir: string, rel: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.isDirectory()) walk(path.join(dir, entry.name), `${rel}${entry.name}/`);
        else if (/\.mdx?$/.test(entry.name)) {
          const body = readFileSync(path.join(dir, entry.name), 'utf8')
            .replace(/^# .*$/gm, '')
            .trim();
          parts.push(`# ${entry.name}\n\nSource: https://corpus.dev/${rel}${entry.name}\n\n${body}\n`);
        }
      }
    };
    for (const corpus of ['fastapi', 'vite', 'zod', 'hono']) walk(path.join(corpusDir!, corpus), `${corpus}/`);
    const text = parts.join('\n');
    expect(text.length).toBeGreaterThan(1_000_000);
    expect(expectSame(text, 'https://corpus.dev/llms-full.txt', undefined, 100_000)).toBe(true);
  });

  it('streams the Mintlify-style corpus file page by page', () => {
    const text = llmsCorpus('langchain-mintlify.llms.txt');
    const splitter = new LlmsFullSplitter('https://docs.example.dev/llms-full.txt', { openingChars: 4096 });
    const first = splitter.push(text.slice(0, text.length / 2));
    if (splitter.style === 'source-lines' || splitter.style === 'frontmatter') expect(first.length).toBeGreaterThan(0);
  });
});

/** Random llms-full.txt-like text from lines that stress the marker rules (fences, look-alikes, front matter). */
function randomDoc(seed: number, style: 'source' | 'front'): string {
  const rnd = random(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const lines: string[] = [];
  const n = 20 + Math.floor(rnd() * 400);
  for (let i = 0; i < n; i++) {
    const r = rnd();
    const slug = `p${Math.floor(rnd() * 30)}`;
    if (r < 0.1) {
      if (style === 'source') {
        lines.push(pick(['# Page ', '## Page ', '']) + slug);
        if (rnd() < 0.5) lines.push('');
        lines.push(
          pick([
            `Source: https://d.dev/${slug}`,
            `URL: https://d.dev/${slug}.md`,
            `> Source: <https://d.dev/${slug}>`,
            `source: https://[broken/${slug}`,
          ]),
        );
      } else {
        lines.push('---', pick([`url: /${slug}.md`, `title: "T ${slug}"`, `source: https://d.dev/${slug}`]));
        if (rnd() < 0.5) lines.push(`title: ${slug}`);
        if (rnd() < 0.1) lines.push('not a field');
        lines.push('---');
      }
    } else if (r < 0.2) lines.push(pick(['```', '```ts', '~~~', '````', '``` ', '```js title="x"', '~~~~']));
    else if (r < 0.3) lines.push(pick(['# Heading', '## Sub', '### Deep', `# ${slug}`]));
    else if (r < 0.4) lines.push('');
    else if (r < 0.43) lines.push('---');
    else lines.push(pick(['Some text.', 'More words here about things.', '- a list item', `See [x](/${slug}).`]));
  }
  const eol = pick(['\n', '\r\n', '\r']);
  return (rnd() < 0.3 ? 'Intro '.repeat(50) + eol : '') + lines.join(eol) + (rnd() < 0.5 ? eol : '');
}

describe('LlmsFullSplitter', () => {
  it('yields the pages of splitLlmsFull for random marked files, whatever the cuts (fuzz)', () => {
    let streamedRuns = 0;
    for (let seed = 1; seed <= 150; seed++) {
      const style = seed % 2 === 0 ? 'source' : 'front';
      const text = randomDoc(seed, style);
      const toc: TocEntry[] = [{ title: 'x', url: `https://d.dev/p${seed % 30}`, section: 'S' }];
      for (const t of [undefined, toc]) {
        if (expectSame(text, 'https://d.dev/llms-full.txt', t, 200, seed)) streamedRuns++;
        expectSame(text, 'https://d.dev/llms-full.txt', t, 1_000_000_000, seed);
      }
    }
    // most random files keep their style when it is decided from the opening part
    expect(streamedRuns).toBeGreaterThan(150);
  });

  it('hands out pages while the file is still arriving, holding only the page being read', () => {
    const page = (k: number) =>
      `# Page ${k}\nSource: https://big.dev/p${k}\n\n${'Words about the topic. '.repeat(200)}\n\n\`\`\`ts\nconst x = ${k};\n\`\`\`\n`;
    const splitter = new LlmsFullSplitter('https://big.dev/llms-full.txt', { openingChars: 50_000 });
    let sent = 0;
    let received = 0;
    for (let k = 0; k < 2000; k++) {
      const text = page(k);
      sent += text.length;
      const out = splitter.push(text);
      received += out.length;
      // after the opening part, every page but the one being read has come out
      if (sent > 60_000) expect(received).toBe(k);
    }
    received += splitter.end().length;
    expect(received).toBe(2000);
    expect(splitter.style).toBe('source-lines');
  });

  it('keeps a \\r\\n cut between two pushes as one line break', () => {
    const text = '# A\r\nSource: https://c.dev/a\r\n\r\nBody a\r\n# B\r\nSource: https://c.dev/b\r\n\r\nBody b\r\n';
    const at = text.indexOf('\r\n', 10) + 1;
    const splitter = new LlmsFullSplitter('https://c.dev/llms-full.txt', { openingChars: 1 });
    const pages = [...splitter.push(text.slice(0, at)), ...splitter.push(text.slice(at)), ...splitter.end()];
    expect(pages).toEqual(splitLlmsFull(text, 'https://c.dev/llms-full.txt').pages);
    expect(pages.map((p) => p.markdown)).toEqual(['# A\n\nBody a', '# B\n\nBody b']);
  });

  it('says early when the file is not markdown', () => {
    const splitter = new LlmsFullSplitter('https://c.dev/llms-full.txt', { openingChars: 100 });
    splitter.push(`<!doctype html><html><body>${'x'.repeat(200)}`);
    expect(splitter.notMarkdown).toBe('the file is an HTML page');
    expect(splitter.end()).toEqual([]);
  });

  it('splits heading-only and ctx files at the end, as splitLlmsFull does (documented: they cannot stream)', () => {
    const text = `# One\n${'Text. '.repeat(100)}\n# Two\n${'More. '.repeat(100)}\n`;
    const result = streamSplit(text, 'https://h.dev/llms-full.txt', { openingChars: 100 }, fixed(50));
    expect(result.style).toBe('headings');
    expect(result.pages).toEqual(splitLlmsFull(text, 'https://h.dev/llms-full.txt').pages);
  });
});

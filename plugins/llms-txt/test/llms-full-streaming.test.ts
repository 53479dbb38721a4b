import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type DocPage,
  type LibraryDescriptor,
  type SourceAdapter,
  type StartedKernel,
  sourceAdapterToken,
} from '@pro-context/kernel';
import { catalogErrorOf, createTestKernel } from '@pro-context/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type LlmsTxtPluginOptionsInput, llmsTxtPlugin, splitLlmsFull } from '../src/index.js';

// A large llms-full.txt flows download -> split -> batches of pages, never whole: served here by a loopback
// server that writes as the socket drains and counts what it wrote, so a test sees how far the download got.

interface Served {
  body: string;
  /** Destroy the connection after this many bytes. */
  cutAt?: number;
}
const files = new Map<string, Served>();
const requests = new Map<string, number>();
let written = 0;
let server: http.Server;
let base = '';

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    requests.set(path, (requests.get(path) ?? 0) + 1);
    const file = files.get(path);
    if (!file) return void res.writeHead(404).end('not found');
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    const bytes = Buffer.from(file.body, 'utf8');
    let at = 0;
    written = 0;
    const pump = () => {
      while (at < bytes.length && !res.destroyed) {
        if (file.cutAt !== undefined && at >= file.cutAt) return void res.destroy();
        const chunk = bytes.subarray(at, at + 16 * 1024);
        at += chunk.length;
        written = at;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      if (!res.destroyed) res.end();
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  files.clear();
  requests.clear();
});

async function kernelWith(
  options: LlmsTxtPluginOptionsInput = {},
  maxBodyBytes = 64 * 2 ** 20,
): Promise<{ kernel: StartedKernel; adapter: SourceAdapter }> {
  const kernel = await createTestKernel({
    plugins: [[llmsTxtPlugin, options]],
    config: { http: { maxBodyBytes } },
  });
  return { kernel, adapter: kernel.resolveAll(sourceAdapterToken).find((a) => a.id === 'llms-txt')! };
}

/** A Mintlify-style llms-full.txt of `n` pages of about 1 500 characters each (about 15 MB for 10 000). */
function bigFile(site: string, n: number): string {
  const parts = ['# Big', '', '> A large library.', ''];
  for (let k = 0; k < n; k++) {
    parts.push(`# Page ${k}`, `Source: ${base}/${site}/p${k}`, '', `${'Words about topic. '.repeat(75)}`, '');
    if (k % 7 === 0) parts.push('```ts', `const page = ${k};`, '```', '');
  }
  return parts.join('\n');
}

const lib = (site: string): LibraryDescriptor => ({ id: site, name: site, docsUrl: `${base}/${site}` });

describe('a large llms-full.txt, streamed', () => {
  it('is handed over in batches while it downloads (paced by the taker), with the pages of splitLlmsFull', async () => {
    const body = bigFile('big', 10_000);
    files.set('/big/llms-full.txt', { body });
    const { kernel, adapter } = await kernelWith();
    const batches: DocPage[][] = [];
    let writtenAtFirst = -1;
    let writtenAfterPause = -1;
    const docs = await adapter.fetchDocs(lib('big'), 'latest', {
      pages: async (batch) => {
        batches.push(batch);
        if (writtenAtFirst === -1) {
          writtenAtFirst = written;
          // a slow taker: the download waits for it
          await new Promise((resolve) => setTimeout(resolve, 300));
          writtenAfterPause = written;
        }
      },
    });
    const total = Buffer.byteLength(body);
    expect(writtenAtFirst).toBeGreaterThan(0);
    // (loopback socket buffers hold a few MB beyond what was read)
    expect(writtenAtFirst).toBeLessThan(total * 0.5);
    expect(writtenAfterPause).toBeLessThan(total * 0.6);
    expect(batches.length).toBeGreaterThan(5);
    expect(docs.pages).toEqual([]);
    const expected = splitLlmsFull(body, `${base}/big/llms-full.txt`).pages;
    expect(batches.flat()).toEqual(expected);
    expect(docs.toc?.entries.map((e) => e.url)).toEqual(expected.map((p) => p.url));
    expect(docs.toc?.title).toBe('Big');
    expect(requests.get('/big/llms-full.txt')).toBe(1);
    await kernel.stop();
  });

  it('is read past http.maxBodyBytes (the cap of bodies held whole), up to sources.llmsTxt.maxFullTxtMB', async () => {
    // about 3 MB, against an HTTP cap of 1 MB
    const body = bigFile('capped', 2000);
    files.set('/capped/llms-full.txt', { body });
    const { kernel, adapter } = await kernelWith({}, 2 ** 20);
    let handed = 0;
    const docs = await adapter.fetchDocs(lib('capped'), 'latest', {
      pages: async (batch) => {
        handed += batch.length;
      },
    });
    expect(handed).toBe(docs.toc?.entries.length);
    expect(handed).toBe(2000);
    await kernel.stop();

    // over maxFullTxtMB: a coded error naming the file, its limit and the setting to raise
    const small = await kernelWith({ maxFullTxtMB: 1 });
    const error = await catalogErrorOf(
      small.adapter.fetchDocs(lib('capped'), 'latest', { pages: async () => undefined }),
    );
    expect(error.code).toBe('INVALID_CONTENT');
    expect(error.message).toBe(
      `${base}/capped/llms-full.txt is larger than 1 MB, the limit of an llms-full.txt (sources.llmsTxt.maxFullTxtMB).`,
    );
    expect(error.suggestion).toContain('Raise sources.llmsTxt.maxFullTxtMB');
    await small.kernel.stop();
  });

  it('keeps only the TOC after a TOC read, and reads the file again for the documentation', async () => {
    // the last page repeats the first one's URL: it becomes an anchor of the file, read back by read-page
    const body = `${bigFile('toc', 1500)}\n# Duplicate\nSource: ${base}/toc/p0\n\nDup body.\n`;
    files.set('/toc/llms-full.txt', { body });
    const { kernel, adapter } = await kernelWith();
    const toc = await adapter.fetchToc(lib('toc'), 'latest');
    expect(toc.entries).toHaveLength(1501);
    expect(toc.entries.at(-1)?.url).toBe(`${base}/toc/llms-full.txt#duplicate`);
    const handed: DocPage[] = [];
    const docs = await adapter.fetchDocs(lib('toc'), 'latest', { pages: async (batch) => void handed.push(...batch) });
    expect(handed).toHaveLength(1501);
    expect(docs.pages).toEqual([]);
    expect(requests.get('/toc/llms-full.txt')).toBe(2);
    // read-page of the anchored page: the file is split again as it downloads, only that page kept
    const page = await adapter.fetchPage!(new URL(`${base}/toc/llms-full.txt#duplicate`));
    expect(page.markdown).toBe('# Duplicate\n\nDup body.');
    expect(page.freshness.contentHash).toBe(docs.freshness.contentHash);
    await kernel.stop();
  });

  it('fails the fetch (no fallback to the listed pages) when the download breaks after pages were handed over', async () => {
    const body = bigFile('cut', 3000);
    files.set('/cut/llms.txt', { body: `# Cut\n\n- [Page 0](${base}/cut/p0)\n` });
    files.set('/cut/p0', { body: '# Page 0\n\nListed page.' });
    files.set('/cut/llms-full.txt', { body, cutAt: Math.floor(Buffer.byteLength(body) * 0.8) });
    const { kernel, adapter } = await kernelWith({ preferFullTxt: true });
    let handed = 0;
    const count = async (batch: DocPage[]) => {
      handed += batch.length;
    };
    const error = await catalogErrorOf(adapter.fetchDocs(lib('cut'), 'latest', { pages: count }));
    expect(handed).toBeGreaterThan(0);
    expect(error.code).toBe('SOURCE_UNAVAILABLE');
    expect(requests.get('/cut/p0')).toBeUndefined();
    await kernel.stop();
  });

  it('still falls back to the listed pages when the llms-full.txt breaks before any page was handed over', async () => {
    const body = bigFile('early', 3000);
    files.set('/early/llms.txt', { body: `# Early\n\n- [Page 0](${base}/early/p0)\n` });
    files.set('/early/p0', { body: '# Page 0\n\nListed page.' });
    files.set('/early/llms-full.txt', { body, cutAt: 64 * 1024 });
    const { kernel, adapter } = await kernelWith({ preferFullTxt: true });
    const docs = await adapter.fetchDocs(lib('early'), 'latest', { pages: async () => undefined });
    expect(docs.pages.map((p) => p.markdown)).toEqual(['# Page 0\n\nListed page.']);
    await kernel.stop();
  });
});

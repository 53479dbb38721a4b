/**
 * The hostile-content section (issue #25): one stdio server, a calm library answered from the cache over and over
 * while a library of hostile pages (1,500 / 20,000 / 50,000 nested `<div>`s, a 7 MB page, a 0.7 MB page of 24,000
 * elements — under the caps: seconds of conversion —, a markdown page with a 3 M-character line) is indexed and
 * each of its pages read twice. Reports the cached call's round trips meanwhile (worst, p99, median, and the worst
 * per phase) beside the same calls on an idle server, what each hostile read-page answered and in how long, and the
 * server's peak RSS (VmHWM) having met the 7 MB page.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FakeWeb } from '@pro-context/testing/fake-web';
import { memoryOf } from './latency.js';
import { errorCode, makeProject, median, percentile, spawnServer } from './setup.js';

export interface HostileReport {
  /** Cached get-docs round trips on an idle server. */
  idle: { calls: number; p50Ms: number; p99Ms: number; maxMs: number };
  /** The same calls while the hostile library is indexed and its pages read. */
  during: { calls: number; p50Ms: number; p99Ms: number; maxMs: number };
  /** The hostile library's first get-docs (fetch, convert, index): ms, and the pages its notes say were left out. */
  index: { ms: number; notes: number; answered: boolean };
  /** The worst cached round trip in each phase (`index`, `read <page>`), ms. */
  worstByPhase: Record<string, number>;
  /** Each hostile read-page: what it answered (a code, or `ok`) and in how long, first and second time. */
  pages: { page: string; first: string; firstMs: number; second: string; secondMs: number }[];
  /** Server memory once done (MB): peak (VmHWM) and current. */
  peakRssMb?: number;
  rssMb?: number;
}

const html = (title: string, body: string) =>
  `<!DOCTYPE html><html><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;
const paragraph =
  '<p>Some documentation text with <a href="/hostile/normal.html">a link</a> and <code>code</code>.</p>\n';

/** The hostile pages, by name: [content type, body]. */
function hostilePages(): Record<string, [string, string]> {
  const deep = (n: number) => html(`Deep ${n}`, `${'<div>'.repeat(n)}<p>x</p>${'</div>'.repeat(n)}`);
  return {
    'normal.html': [
      'text/html',
      html('Retries', `<p>${'The client retries failed requests with exponential backoff. '.repeat(20)}</p>`),
    ],
    'deep-1500.html': ['text/html', deep(1500)],
    'deep-20000.html': ['text/html', deep(20_000)],
    'deep-50000.html': ['text/html', deep(50_000)],
    'huge-7mb.html': ['text/html', html('Huge', paragraph.repeat(Math.ceil((7 * 1024 * 1024) / paragraph.length)))],
    'heavy-24k.html': ['text/html', html('Heavy', paragraph.repeat(8000))],
    'long-line.md': ['text/markdown', `# Rules\n\n${'-'.repeat(3_000_000)}\n`],
  };
}

/** A calm library's pages: ordinary markdown, answered from the cache during the run. */
function calmPages(): Record<string, [string, string]> {
  const out: Record<string, [string, string]> = {};
  for (let i = 0; i < 20; i += 1) {
    out[`page-${i}.md`] = [
      'text/markdown',
      `# Topic ${i}\n\n${`Configuring the connection pool limits of topic ${i}: timeouts, retries and keep-alive. `.repeat(30)}\n`,
    ];
  }
  return out;
}

const stats = (times: number[]) => ({
  calls: times.length,
  p50Ms: Number(median(times).toFixed(1)),
  p99Ms: Number(percentile(times, 99).toFixed(1)),
  maxMs: Number(Math.max(0, ...times).toFixed(1)),
});

export async function measureHostile(web: FakeWeb, options: { log: (line: string) => void }): Promise<HostileReport> {
  const sites: Record<string, Record<string, [string, string]>> = { hostile: hostilePages(), calm: calmPages() };
  const server = http.createServer((req, res) => {
    const [, site, name] = /^\/([^/]+)\/(.*)$/.exec(req.url ?? '') ?? [];
    const pages = site ? sites[site] : undefined;
    if (pages && name === 'llms.txt') {
      const list = Object.keys(pages)
        .map((page) => `- [${page}](${origin}/${site}/${page})`)
        .join('\n');
      res
        .writeHead(200, { 'content-type': 'text/plain' })
        .end(`# ${site}\n\n> The ${site} library.\n\n## Docs\n\n${list}\n`);
      return;
    }
    const page = pages && name ? pages[name] : undefined;
    if (page) res.writeHead(200, { 'content-type': page[0] }).end(page[1]);
    else res.writeHead(404).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const project = makeProject(web, {
    libraries: ['calm', 'hostile'].map((id) => ({
      id,
      name: id,
      language: 'python',
      sources: { llmsTxt: { llmsTxtUrl: `${origin}/${id}/llms.txt` } },
    })),
  });
  const stdio = await spawnServer(project.configFile);
  try {
    const cached = { libraryId: 'calm', topic: 'connection pool limits timeouts' };
    await stdio.call('get-docs', cached);
    await stdio.call('resolve-library', { query: 'hostile' });
    const time = async (name: string, args: Record<string, unknown>) => {
      const started = performance.now();
      const result = await stdio.call(name, args);
      return { result, ms: performance.now() - started };
    };
    const idleTimes: number[] = [];
    for (let i = 0; i < 50; i += 1) idleTimes.push((await time('get-docs', cached)).ms);
    options.log(`hostile: idle cached get-docs p50 ${median(idleTimes).toFixed(1)} ms; indexing the hostile library…`);

    const duringTimes: number[] = [];
    const worstByPhase: Record<string, number> = {};
    let phase = 'index';
    let busy = true;
    const hot = (async () => {
      while (busy) {
        const at = phase;
        const { ms } = await time('get-docs', cached);
        duringTimes.push(ms);
        worstByPhase[at] = Math.max(worstByPhase[at] ?? 0, Math.round(ms));
      }
    })();
    const report: Omit<HostileReport, 'idle' | 'during'> = {
      index: { ms: 0, notes: 0, answered: false },
      worstByPhase,
      pages: [],
    };
    try {
      const indexed = await time('get-docs', { libraryId: 'hostile', topic: 'retries exponential backoff' });
      report.index = {
        ms: Math.round(indexed.ms),
        notes: ((indexed.result.structuredContent as { notes?: string[] } | undefined)?.notes ?? []).length,
        answered: !indexed.result.isError,
      };
      options.log(
        `hostile: library indexed in ${report.index.ms} ms (${report.index.notes} notes); reading its pages…`,
      );
      const outcome = (result: Awaited<ReturnType<typeof time>>['result']) => errorCode(result)?.code ?? 'ok';
      for (const page of Object.keys(sites.hostile ?? {})) {
        phase = `read ${page}`;
        const first = await time('read-page', { url: `${origin}/hostile/${page}` });
        const second = await time('read-page', { url: `${origin}/hostile/${page}` });
        report.pages.push({
          page,
          first: outcome(first.result),
          firstMs: Math.round(first.ms),
          second: outcome(second.result),
          secondMs: Math.round(second.ms),
        });
      }
    } finally {
      busy = false;
      await hot;
    }
    const memory = stdio.pid ? memoryOf(stdio.pid) : undefined;
    return {
      idle: stats(idleTimes),
      during: stats(duringTimes),
      ...report,
      ...(memory ? { peakRssMb: Math.round(memory.peakRssMb), rssMb: Math.round(memory.rssMb) } : {}),
    };
  } finally {
    await stdio.close();
    project.cleanup();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

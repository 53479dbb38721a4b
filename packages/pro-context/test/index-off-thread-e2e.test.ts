import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { FakeWeb } from '@pro-context/testing/fake-web';
import { describe, expect, it } from 'vitest';
import { cliPath, connectStdio, errorOf, skipReason, useCorpusProject, writeProject } from './helpers.js';

/**
 * A big documentation file (about 5 MB of markdown: 300 pages of sections with prose and code), served as the
 * llms-full.txt of a site without llms.txt: chunking it takes a while, which is what these tests need.
 */
function bigLlmsFull(): string {
  const pages: string[] = [];
  const prose =
    'The scheduler assigns each job to a worker pool; the pool grows with the queue and shrinks when idle. ' +
    'Retries back off exponentially, and a job that keeps failing is parked with its last error for review. ';
  for (let p = 0; p < 300; p++) {
    const sections: string[] = [`# Orchestra page ${p}\n\nSource: https://orchestra.example/page-${p}/\n`];
    for (let s = 0; s < 8; s++) {
      sections.push(
        `## Topic ${p}.${s} quartz${p}x${s}\n\n${prose.repeat(10)}\n\n\`\`\`python\nqueue.submit(job_${p}_${s}, retries=3)\n\`\`\`\n`,
      );
    }
    pages.push(sections.join('\n'));
  }
  return pages.join('\n');
}

/**
 * A project with the corpus libraries and `orchestra`, whose docs are {@link bigLlmsFull} (no llms.txt), sent after
 * `delayMs`.
 */
function projectWithBigLibrary(web: FakeWeb, body: string, delayMs = 0) {
  const base = `${web.url}/orchestra/`;
  web.setFault({ path: '/orchestra/llms.txt' }, { status: 404 });
  web.setFault({ path: '/orchestra/llms-full.txt' }, { body, contentType: 'text/markdown', delayMs });
  return writeProject(web, {
    libraries: [
      { id: 'httpx', name: 'HTTPX', language: 'python', llmsTxtUrl: web.llmsTxtUrl('httpx') },
      { id: 'orchestra', name: 'Orchestra', language: 'python', llmsTxtUrl: `${base}llms.txt` },
    ],
  });
}

interface Progress {
  message?: string;
}

describe.skipIf(skipReason)(`indexing off the request path${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  const corpus = useCorpusProject();
  const body = bigLlmsFull();

  it('an indexed library answers while a large one is still being chunked, whose progress keeps flowing', async () => {
    const project = projectWithBigLibrary(corpus.web, body);
    const server = await connectStdio(project.configFile);
    try {
      const first = await server.call('get-docs', { libraryId: 'httpx', topic: 'timeouts' });
      expect(first.isError).toBeFalsy();

      const events: string[] = [];
      const messages: string[] = [];
      let other: Promise<unknown> | undefined;
      const big = server
        .call(
          'get-docs',
          { libraryId: 'orchestra', topic: 'retries back off' },
          {
            onprogress: (p) => {
              const message = (p as Progress).message ?? '';
              messages.push(message);
              if (message.startsWith('Chunking') && !events.includes('orchestra chunking')) {
                events.push('orchestra chunking');
                // the other library, already indexed, asked about a topic not asked before (ranked now)
                other = server.call('get-docs', { libraryId: 'httpx', topic: 'proxies' }).then((result) => {
                  expect(result.isError).toBeFalsy();
                  expect((result.structuredContent as { content: string }).content).toMatch(/prox/i);
                  events.push('httpx answered');
                });
              }
              if (message.startsWith('Indexing')) events.push('orchestra indexing');
            },
          },
        )
        .then((result) => {
          events.push('orchestra answered');
          return result;
        });
      const answer = await big;
      await other;
      expect(answer.isError).toBeFalsy();
      expect((answer.structuredContent as { content: string }).content).toMatch(/back off exponentially/);
      // httpx answered while orchestra's pages were still being chunked, before its indexing began
      expect(events).toEqual(['orchestra chunking', 'httpx answered', 'orchestra indexing', 'orchestra answered']);
      // and the chunking worker reported its progress through the pages as it went
      expect(messages.filter((m) => /^Chunking \d+ pages \(\d+ done\)$/.test(m)).length).toBeGreaterThan(1);
    } finally {
      await server.close();
      project.cleanup();
    }
  });

  it('a second agent asking for the same library meanwhile hears its progress, and keeps it going when the first cancels', async () => {
    const project = projectWithBigLibrary(corpus.web, body);
    const server = await connectStdio(project.configFile);
    corpus.web.clearRequests();
    try {
      const controller = new AbortController();
      const second: string[] = [];
      let joined: Promise<Awaited<ReturnType<typeof server.call>>> | undefined;
      const first = server.client.callTool(
        { name: 'get-docs', arguments: { libraryId: 'orchestra', topic: 'retries back off' } },
        CallToolResultSchema,
        {
          signal: controller.signal,
          timeout: 60_000,
          onprogress: (p) => {
            if (joined || !(p as Progress).message?.startsWith('Chunking')) return;
            // the same library, asked again with a progress token of its own while its pages are chunked
            joined = server.call(
              'get-docs',
              { libraryId: 'orchestra', topic: 'parked with its last error' },
              {
                onprogress: (q) => {
                  second.push((q as Progress).message ?? '');
                  // the first agent moves on once the second has heard of the build
                  if (second.length === 1) controller.abort('the agent moved on');
                },
              },
            );
          },
        },
      );
      await expect(first).rejects.toThrow();
      const answer = await (joined as NonNullable<typeof joined>);
      expect(answer.isError ? errorOf(answer) : undefined).toBeUndefined();
      expect((answer.structuredContent as { content: string }).content).toMatch(/parked with its last error/);
      // it heard the chunking as it went, then the indexing, of the one build both asked for
      expect(second.filter((m) => /^Chunking \d+ pages \(\d+ done\)$/.test(m)).length).toBeGreaterThan(1);
      expect(second.some((m) => m.startsWith('Indexing'))).toBe(true);
      expect(corpus.web.requestsTo('/orchestra/llms-full.txt')).toHaveLength(1);
    } finally {
      await server.close();
      project.cleanup();
    }
  });

  it('pro-context cache clear beside a server indexing a library refuses to clear it, then clears it once done', async () => {
    const project = projectWithBigLibrary(corpus.web, body, 6000);
    const server = await connectStdio(project.configFile);
    const cli = (...args: string[]) =>
      promisify(execFile)(process.execPath, [cliPath, '-c', project.configFile, ...args], {
        env: { PATH: process.env.PATH ?? '', HOME: project.dir },
      }).then(
        ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
        (e: { code?: number; stdout?: string; stderr?: string }) => ({
          code: e.code,
          stdout: e.stdout,
          stderr: e.stderr,
        }),
      );
    try {
      const indexing = server.call('get-docs', { libraryId: 'orchestra', topic: 'retries back off' });
      // the server is fetching orchestra (its llms-full.txt is answered 6 s later)
      while (corpus.web.requestsTo('/orchestra/llms-full.txt').length === 0)
        await new Promise((r) => setTimeout(r, 20));
      const one = await cli('cache', 'clear', 'orchestra');
      expect(one.code).toBe(1);
      expect(one.stderr).toMatch(
        /^error INDEXING_IN_PROGRESS: orchestra is being indexed right now by another server sharing the cache \(process \d+\)\./m,
      );
      const all = await cli('cache', 'clear', '--all');
      expect(all.code).toBe(1);
      expect(all.stderr).toMatch(
        /^error INDEXING_IN_PROGRESS: orchestra@\S+ \(pid \d+\) is being indexed right now\./m,
      );
      // the server's build was left whole: it answers, and from then on the cache clears
      const answer = await indexing;
      expect(answer.isError ? errorOf(answer) : undefined).toBeUndefined();
      let cleared = await cli('cache', 'clear', 'orchestra');
      for (let i = 0; i < 20 && cleared.code !== 0; i++) {
        await new Promise((r) => setTimeout(r, 100)); // the lease goes just after the answer
        cleared = await cli('cache', 'clear', 'orchestra');
      }
      expect(cleared.stdout).toMatch(/^orchestra: removed \d+ cache entries$/m);
    } finally {
      await server.close();
      project.cleanup();
    }
  });

  it('cancelling a get-docs while its pages are being chunked leaves the server healthy', async () => {
    const project = projectWithBigLibrary(corpus.web, body);
    const server = await connectStdio(project.configFile);
    try {
      const controller = new AbortController();
      const pending = server.client.callTool(
        { name: 'get-docs', arguments: { libraryId: 'orchestra', topic: 'retries back off' } },
        CallToolResultSchema,
        {
          signal: controller.signal,
          timeout: 60_000,
          onprogress: (p) => {
            if ((p as Progress).message?.startsWith('Chunking')) controller.abort('the agent moved on');
          },
        },
      );
      await expect(pending).rejects.toThrow();
      const httpx = await server.call('get-docs', { libraryId: 'httpx', topic: 'timeouts' });
      expect(httpx.isError).toBeFalsy();
      // the cancelled library builds again, from the start, for the next caller
      const again = await server.call('get-docs', { libraryId: 'orchestra', topic: 'parked with its last error' });
      expect(again.isError ? errorOf(again) : undefined).toBeUndefined();
      expect((again.structuredContent as { content: string }).content).toMatch(/parked with its last error/);
    } finally {
      await server.close();
      project.cleanup();
    }
  });
});

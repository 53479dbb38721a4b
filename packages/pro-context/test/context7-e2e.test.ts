import { spawnSync } from 'node:child_process';
import { type CallToolResult, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { type FakeContext7, startFakeContext7 } from '@pro-context/testing';
import type { FakeWeb } from '@pro-context/testing/fake-web';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, connectStdio, skipReason, startCorpusWeb, writeProject } from './helpers.js';

type Connection = Awaited<ReturnType<typeof connectStdio>>;

/** A key that matches no redaction pattern: only the code keeping it out of everything protects it. */
const KEY = 'fake-context7-key-5b1e9c77d2a04f31';

const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

/** JSON log lines the server wrote on stderr. */
function spans(server: Connection, name: string): Record<string, unknown>[] {
  return server.stderr
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((record) => record.span === name);
}

describe.skipIf(skipReason)(
  `Context7 tools (seed 000) over stdio against the Context7 fake${skipReason ? ` (skipped: ${skipReason})` : ''}`,
  () => {
    let web: FakeWeb;
    let context7: FakeContext7;
    let project: ReturnType<typeof writeProject>;
    let server: Connection;
    let keyless: Connection;
    const written: string[] = [];

    beforeAll(async () => {
      web = await startCorpusWeb();
      context7 = await startFakeContext7({ apiKey: KEY });
      project = writeProject(web, { context7: { timeoutMs: 600 } });
      const env = {
        PRO_CONTEXT_PLUGINS: 'context7',
        PRO_CONTEXT_CONTEXT7_URL: context7.url,
        PRO_CONTEXT_LOG_LEVEL: 'debug',
        PRO_CONTEXT_LOG_FORMAT: 'json',
      };
      [server, keyless] = await Promise.all([
        connectStdio(project.configFile, { ...env, CONTEXT7_API_KEY: KEY }),
        connectStdio(project.configFile, env),
      ]);
      for (const conn of [server, keyless]) {
        conn.client.setNotificationHandler(
          LoggingMessageNotificationSchema,
          (n) => void written.push(JSON.stringify(n.params)),
        );
        await conn.client.setLoggingLevel('debug');
      }
    });

    afterEach(() => {
      context7.fault();
    });

    afterAll(async () => {
      // everything the server wrote: stderr (logs at debug level), MCP log messages, every tool answer, health
      for (const conn of [server, keyless]) {
        const health = await conn?.client.readResource({ uri: 'pro-context://health' });
        written.push(JSON.stringify(health));
      }
      const all = [...written, server?.stderr.join('') ?? '', keyless?.stderr.join('') ?? ''].join('\n');
      await Promise.all([server?.close(), keyless?.close()]);
      await Promise.all([web?.close(), context7?.close()]);
      project?.cleanup();
      expect(all.length).toBeGreaterThan(1000);
      expect(all).not.toContain(KEY);
    });

    async function call(conn: Connection, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
      const result = await conn.call(name, args);
      written.push(JSON.stringify(result));
      return result;
    }

    /** The query parameters of the `/v2/context` requests made by `work`. */
    async function contextRequests(work: () => Promise<unknown>) {
      const before = context7.requests.length;
      await work();
      return context7.requests.slice(before).filter((r) => r.path === '/api/v2/context');
    }

    it('lists context7.search and context7.doc beside the engine tools, with and without a key', async () => {
      for (const conn of [server, keyless]) {
        const names = (await conn.client.listTools()).tools.map((t) => t.name);
        expect(names).toEqual(
          expect.arrayContaining(['context7.search', 'context7.doc', 'get-docs', 'resolve-library']),
        );
        expect(names).not.toContain('get-context7-docs');
      }
    });

    it('without a key, both tools answer exactly "[Context7 API key not configured]" and ask nothing upstream', async () => {
      const before = context7.requests.length;
      const search = await call(keyless, 'context7.search', { query: 'react' });
      expect(search.isError).toBe(true);
      expect(textOf(search)).toBe('[Context7 API key not configured]');
      const doc = await call(keyless, 'context7.doc', { library_key: 'vercel/next.js', topic: 'routing' });
      expect(doc.isError).toBe(true);
      expect(textOf(doc)).toBe('[Context7 API key not configured]');
      expect(context7.requests.length).toBe(before);
    });

    it('search("next.js") returns the matching libraries, the key only in Authorization', async () => {
      const result = await call(server, 'context7.search', { query: 'next.js' });
      expect(result.isError).toBeFalsy();
      const { results } = result.structuredContent as { results: { id: string; title: string }[] };
      expect(results.map((r) => r.id)).toEqual(['/vercel/next.js']);
      expect(textOf(result)).toContain('Context7-compatible library ID: /vercel/next.js');
      const request = context7.requests.at(-1);
      expect(request).toMatchObject({ path: '/api/v2/libs/search', query: { libraryName: 'next.js' } });
      expect(request?.authorization).toBe(`Bearer ${KEY}`);
    });

    it('doc(vercel/next.js, routing) returns documentation for that topic; without a topic, general docs', async () => {
      const [asked] = await contextRequests(async () => {
        const result = await call(server, 'context7.doc', { library_key: 'vercel/next.js', topic: 'routing' });
        expect(result.isError).toBeFalsy();
        expect(textOf(result)).toContain('Routing > Defining routes');
        expect(result.structuredContent).toMatchObject({
          libraryKey: 'vercel/next.js',
          topic: 'routing',
          mode: 'info',
        });
      });
      expect(asked?.query).toMatchObject({ libraryId: '/vercel/next.js', query: 'routing', type: 'json' });

      const general = await call(server, 'context7.doc', { library_key: 'vercel/next.js' });
      expect(general.isError).toBeFalsy();
      expect(general.structuredContent).toMatchObject({ topic: '' });
      expect(textOf(general)).toContain('Getting Started > Installation');
    });

    it('mode info (the default) gives guides; mode code gives API references and examples', async () => {
      const info = await call(server, 'context7.doc', { library_key: 'facebook/react', topic: 'hooks' });
      expect(textOf(info)).toContain('Rules of hooks');
      expect(textOf(info)).not.toContain('```');
      const explicit = await call(server, 'context7.doc', {
        library_key: 'facebook/react',
        topic: 'hooks',
        mode: 'info',
      });
      expect(textOf(explicit)).toBe(textOf(info));
      const code = await call(server, 'context7.doc', { library_key: 'facebook/react', topic: 'hooks', mode: 'code' });
      expect(textOf(code)).toContain('```jsx');
      expect(textOf(code)).toContain('useState(0)');
      expect(textOf(code)).not.toContain('Rules of hooks');
    });

    it('a library without code examples in mode code suggests "Try mode=\'info\'."', async () => {
      const result = await call(server, 'context7.doc', { library_key: 'acme/prose-only', mode: 'code' });
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toContain("Try mode='info'.");
    });

    it('page and limit page through the results, clamped to 1..10', async () => {
      const page2 = await call(server, 'context7.doc', {
        library_key: 'vercel/next.js',
        topic: 'routing',
        page: 2,
        limit: 5,
      });
      expect(page2.structuredContent).toMatchObject({ page: 2, limit: 5, totalPages: 3, results: 5 });
      expect(textOf(page2)).toContain('Routing section 6 of 12');
      expect(textOf(page2)).toContain('Routing section 10 of 12');
      expect(textOf(page2)).not.toContain('Routing section 5 of 12');
      expect(textOf(page2)).not.toContain('Routing section 11 of 12');

      const limited = await call(server, 'context7.doc', { library_key: 'vercel/next.js', topic: 'routing', limit: 5 });
      expect(limited.structuredContent).toMatchObject({ page: 1, limit: 5, results: 5 });

      const big = await call(server, 'context7.doc', {
        library_key: 'vercel/next.js',
        topic: 'routing',
        limit: 50,
        page: 0,
      });
      expect(big.structuredContent).toMatchObject({ page: 1, limit: 10, results: 10 });
      const far = await call(server, 'context7.doc', { library_key: 'vercel/next.js', topic: 'routing', page: 99 });
      expect(far.structuredContent).toMatchObject({ page: 10, results: 0 });
    });

    it('normalizes every library-key form of the seed to vercel/next.js', async () => {
      for (const library_key of [
        'vercel/next.js',
        '/vercel/next.js',
        '/vercel/next.js/v16.0.3',
        'https://github.com/vercel/next.js',
        '"vercel/next.js"',
        'vercel//next.js',
        'next.js',
      ]) {
        const asked = await contextRequests(async () => {
          const result = await call(server, 'context7.doc', { library_key, topic: 'middleware' });
          expect(result.isError, library_key).toBeFalsy();
          expect(result.structuredContent, library_key).toMatchObject({ libraryKey: 'vercel/next.js' });
        });
        // the first form fetched it; the others are answered from the cache (no second request)
        for (const r of asked) expect(r.query.libraryId).toBe('/vercel/next.js');
      }
      // the shorthand was resolved through search
      expect(context7.requests.some((r) => r.path === '/api/v2/libs/search' && r.query.libraryName === 'next.js')).toBe(
        true,
      );
    });

    it('normalizes topics: quotes, <placeholder>, path-like, kebab-case', async () => {
      const cases: [string, string, string][] = [
        ['"PPR"', 'PPR', 'PPR'],
        ['<relevant topic>', '', 'next.js'],
        ['app/partial-pre-rendering/index', 'partial pre-rendering', 'partial pre-rendering'],
        ['partial-pre-rendering', 'partial pre rendering', 'partial pre rendering'],
      ];
      for (const [topic, normalized, query] of cases) {
        const asked = await contextRequests(async () => {
          const result = await call(server, 'context7.doc', { library_key: 'vercel/next.js/v15.1.8', topic });
          expect(result.structuredContent, topic).toMatchObject({ topic: normalized });
        });
        if (asked[0]) expect(asked[0].query.query).toBe(query);
      }
      expect(context7.requests.some((r) => r.query.query === 'partial pre rendering')).toBe(true);
    });

    it('HTTP errors answer with their status code: 401, 404 tag_not_found, 429 with Retry-After, 5xx', async () => {
      context7.fault({ status: 401 });
      const unauthorized = await call(server, 'context7.search', { query: 'svelte' });
      expect(unauthorized.isError).toBe(true);
      expect(textOf(unauthorized)).toMatch(/^\[Context7 error 401: invalid_api_key: .*ctx7sk.*\]$/);

      context7.fault({
        status: 404,
        body: {
          error: 'tag_not_found',
          message: 'Tag "v1.0.0" not found for library /vercel/next.js. Available tags: v16.0.3',
        },
      });
      const missingTag = await call(server, 'context7.doc', { library_key: 'vercel/next.js', topic: 'tags' });
      expect(textOf(missingTag)).toContain('[Context7 error 404: tag_not_found: Tag "v1.0.0" not found');

      // (429 with Retry-After: the last test, since Context7 is then not asked again for two minutes)
      for (const status of [500, 503]) {
        context7.fault({ status });
        const failed = await call(server, 'context7.search', { query: `angular${status}` });
        expect(failed.isError).toBe(true);
        expect(textOf(failed)).toContain(`[Context7 error ${status}:`);
      }
    });

    it('a response slower than the timeout answers with the timeout message (configured 0.6 s here, 30 s by default)', async () => {
      context7.fault({ delayMs: 3000 });
      const started = Date.now();
      const result = await call(server, 'context7.search', { query: 'slow library' });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe('[Context7 request timed out after 0.6s]');
      expect(Date.now() - started).toBeLessThan(2500);
    });

    it('caches answers: a repeated call and identical concurrent calls make one upstream request; errors are not cached', async () => {
      const args = { library_key: 'vercel/next.js', topic: 'dynamic routes cache test' };
      const concurrent = await contextRequests(() =>
        Promise.all([1, 2, 3, 4].map(() => call(server, 'context7.doc', args))),
      );
      expect(concurrent).toHaveLength(1);
      const again = await contextRequests(() => call(server, 'context7.doc', { ...args, mode: 'code' }));
      expect(again).toHaveLength(0);

      context7.fault({ status: 401, times: 1 });
      const failed = await call(server, 'context7.search', { query: 'remix' });
      expect(failed.isError).toBe(true);
      const retried = await call(server, 'context7.search', { query: 'remix' });
      expect(retried.isError).toBeFalsy();
      expect(context7.requests.filter((r) => r.query.libraryName === 'remix')).toHaveLength(2);
    });

    it('logs one span per call with exactly the seed fields', async () => {
      await call(server, 'context7.search', { query: 'react' });
      await call(server, 'context7.doc', { library_key: 'react', topic: 'hooks', mode: 'code' });
      await new Promise((resolve) => setTimeout(resolve, 200));
      const search = spans(server, 'context7.search').at(-1);
      expect(search).toMatchObject({ span: 'context7.search', query: 'react', success: true });
      expect(search?.resultLen).toEqual(expect.any(Number));
      const doc = spans(server, 'context7.doc').at(-1);
      expect(doc).toMatchObject({
        span: 'context7.doc',
        library_key: 'react',
        topic: 'hooks',
        mode: 'code',
        resolvedKey: 'facebook/react',
        success: true,
      });
      expect(doc?.resultLen).toEqual(expect.any(Number));
      const failed = spans(keyless, 'context7.search').at(-1);
      expect(failed).toMatchObject({ success: false, resultLen: '[Context7 API key not configured]'.length });
    });
    it('429 with Retry-After answers with the wait, and Context7 is not asked again before it passes (last: it holds for 2 min)', async () => {
      context7.fault({ status: 429, retryAfter: 120 });
      const limited = await call(server, 'context7.search', { query: 'vue' });
      expect(textOf(limited)).toBe(
        '[Context7 error 429: rate_limit_exceeded: Rate limit exceeded. Please try again later.] Retry after 120s.',
      );
      context7.fault();
      const asked = context7.requests.length;
      const held = await call(server, 'context7.search', { query: 'svelte' });
      expect(held.isError).toBe(true);
      expect(textOf(held)).toMatch(
        /^\[Context7 unreachable: .* answered 429 with Retry-After: not asked again for 1\d\d s\] Retry after 1\d\ds\.$/,
      );
      expect(context7.requests.length).toBe(asked);
    });
  },
);

describe.skipIf(skipReason)('enabling remote plugins (issue #11 item 7)', () => {
  let web: FakeWeb;
  let context7: FakeContext7;
  beforeAll(async () => {
    web = await startCorpusWeb();
    context7 = await startFakeContext7({ apiKey: KEY });
  });
  afterAll(async () => {
    await Promise.all([web?.close(), context7?.close()]);
  });

  it('none by default: only the docs engine tools', async () => {
    const project = writeProject(web);
    const server = await connectStdio(project.configFile);
    try {
      const names = (await server.client.listTools()).tools.map((t) => t.name);
      expect(names.sort()).toEqual(['get-docs', 'list-libraries', 'read-page', 'resolve-library', 'search-docs']);
    } finally {
      await server.close();
      project.cleanup();
    }
  });

  it('by the config file (plugins: [context7]), with the context7 section (url, cacheTtlSeconds: 0 turns caching off)', async () => {
    const project = writeProject(web, { plugins: ['context7'], context7: { url: context7.url, cacheTtlSeconds: 0 } });
    const server = await connectStdio(project.configFile, { CONTEXT7_API_KEY: KEY });
    try {
      const names = (await server.client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['context7.search', 'context7.doc']));
      const before = context7.count('/v2/libs/search');
      for (let i = 0; i < 2; i++) {
        const result = await server.call('context7.search', { query: 'react' });
        expect(result.isError).toBeFalsy();
      }
      expect(context7.count('/v2/libs/search') - before).toBe(2);
    } finally {
      await server.close();
      project.cleanup();
    }
  });

  it("config schema describes plugins and the remote plugins' sections, for editors", () => {
    const out = spawnSync(process.execPath, [cliPath, 'config', 'schema'], { encoding: 'utf8' });
    const schema = JSON.parse(out.stdout) as { properties: Record<string, { properties?: Record<string, unknown> }> };
    expect(JSON.stringify(schema.properties.plugins)).toContain('codex7');
    expect(Object.keys(schema.properties.context7?.properties ?? {}).sort()).toEqual([
      'apiKey',
      'cacheTtlSeconds',
      'timeoutMs',
      'url',
    ]);
  });

  it('an unknown plugin name does not stop the server: config check warns, and the client is told at initialize (issue #29.7)', async () => {
    const project = writeProject(web);
    try {
      const check = spawnSync(process.execPath, [cliPath, '--config', project.configFile, 'config', 'check'], {
        env: { ...process.env, PRO_CONTEXT_PLUGINS: 'context7,context8' },
        encoding: 'utf8',
      });
      expect(check.status).toBe(0);
      expect(check.stdout).toContain(
        "warning: PRO_CONTEXT_PLUGINS names 'context8', which is no remote plugin of pro-context: no tools of it are offered. Known plugins: context7, codex7, grounding, exa, openai-embeddings.",
      );
      const server = await connectStdio(project.configFile, { PRO_CONTEXT_PLUGINS: 'context8' });
      try {
        expect(server.client.getInstructions()).toContain("PRO_CONTEXT_PLUGINS names 'context8'");
        expect((await server.client.listTools()).tools.map((t) => t.name)).not.toContain('context7.search');
      } finally {
        await server.close();
      }
    } finally {
      project.cleanup();
    }
  });
});

import { type FakeGemini, MemoryCacheStore, startFakeGemini } from '@pro-context/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MISSING_KEY_MESSAGE } from '../src/index.js';
import { GEMINI_KEY, type GroundingServer, startGroundingServer, textOf } from './helpers.js';

let gemini: FakeGemini;
const servers: GroundingServer[] = [];
const everythingWritten: string[] = [];

beforeAll(async () => {
  gemini = await startFakeGemini({ apiKey: GEMINI_KEY });
});
afterEach(async () => {
  for (const server of servers.splice(0)) {
    everythingWritten.push(...server.written);
    await server.close();
  }
  gemini.fault();
  gemini.requests.length = 0;
});
afterAll(async () => {
  await gemini.close();
});

async function server(options: Parameters<typeof startGroundingServer>[1] = {}) {
  const started = await startGroundingServer(gemini, options);
  servers.push(started);
  return started;
}

const lastPrompt = () => gemini.prompts().at(-1) ?? '';
const structured = (result: { structuredContent?: unknown }) =>
  result.structuredContent as {
    answer: string;
    sources: { title: string; url: string }[];
    grounded: boolean;
    model: string;
    cached: boolean;
  };

describe('ground.search (seed 003: grounded web search)', () => {
  it('basic search: answers with content and a numbered, de-duplicated Sources section of markdown links', async () => {
    const s = await server();
    const result = await s.call('ground.search', { query: 'What is new in FastAPI 0.115?' });
    expect(result.isError).toBeFalsy();
    const text = textOf(result);
    expect(text).toContain('Grounded answer for "Search the web and answer: What is new in FastAPI 0.115?"');
    // three grounding chunks, two of them the same page: two numbered links, each URL once
    const links = text.split('## Sources')[1]?.trim().split('\n') ?? [];
    expect(links).toEqual([
      expect.stringMatching(
        /^1\. \[docs\.example\.com\]\(https:\/\/vertexaisearch\.cloud\.google\.com\/grounding-api-redirect\/.+-a\)$/,
      ),
      expect.stringMatching(
        /^2\. \[stackoverflow\.com\]\(https:\/\/vertexaisearch\.cloud\.google\.com\/grounding-api-redirect\/.+-b\)$/,
      ),
    ]);
    expect(structured(result).sources).toHaveLength(2);
    expect(structured(result).grounded).toBe(true);
    // the request Gemini got: the REST path, the key in its header, the Google Search tool
    const request = gemini.requests.at(-1);
    expect(request?.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(request?.headers['x-goog-api-key']).toBe(GEMINI_KEY);
    expect(request?.body).toMatchObject({ tools: [{ google_search: {} }] });
  });

  it('contextual search: puts the context into the search prompt', async () => {
    const s = await server();
    await s.call('ground.search', { query: 'cancel a task group', context: 'Python async programming' });
    expect(lastPrompt()).toContain('cancel a task group');
    expect(lastPrompt()).toContain('Context: Python async programming');
  });

  it('focus modes: general by default, code / documentation / troubleshooting tailor the prompt, others are refused', async () => {
    const s = await server();
    const prompts: Record<string, string> = {};
    for (const focus of [undefined, 'general', 'code', 'documentation', 'troubleshooting']) {
      await s.call('ground.search', { query: 'retry with backoff', ...(focus ? { focus } : {}) });
      prompts[focus ?? 'default'] = lastPrompt();
    }
    expect(prompts.default).toBe(prompts.general);
    expect(prompts.code).toContain('code');
    expect(prompts.documentation).toContain('official documentation');
    expect(prompts.troubleshooting).toContain('troubleshooting');
    expect(new Set(Object.values(prompts)).size).toBe(4);
    const listed = (await s.client.listTools()).tools.find((t) => t.name === 'ground.search');
    expect((listed?.inputSchema.properties?.focus as { enum?: string[] } | undefined)?.enum).toEqual([
      'general',
      'code',
      'documentation',
      'troubleshooting',
    ]);
    const bad = await s.call('ground.search', { query: 'x', focus: 'images' });
    expect(bad.isError).toBe(true);
    expect(JSON.parse(textOf(bad)).code).toBe('INVALID_INPUT');
  });

  it('custom model: a model argument picks the model; without one the configured default is used', async () => {
    const s = await server({
      env: { OT_GEMINI_API_KEY: GEMINI_KEY, PRO_CONTEXT_GEMINI_URL: gemini.url },
      config: { grounding: { model: 'gemini-2.0-flash' } },
    });
    const custom = await s.call('ground.search', { query: 'q1', model: 'gemini-3.0-flash' });
    expect(structured(custom).model).toBe('gemini-3.0-flash');
    await s.call('ground.search', { query: 'q2' });
    expect(gemini.models()).toEqual(['gemini-3.0-flash', 'gemini-2.0-flash']);
  });

  it('an unknown model is reported with what Gemini said, not as a crash', async () => {
    const s = await server();
    const result = await s.call('ground.search', { query: 'q', model: 'palm-9' });
    expect(result.isError).toBe(true);
    const payload = JSON.parse(textOf(result));
    expect(payload.code).toBe('GROUNDING_REQUEST_INVALID');
    expect(payload.message).toContain('models/palm-9 is not found');
  });
});

describe('ground.dev, ground.docs, ground.reddit (seed 003)', () => {
  it('ground.dev searches developer resources and prioritizes the language and framework given', async () => {
    const s = await server();
    const basic = await s.call('ground.dev', { query: 'stream a large upload' });
    expect(basic.isError).toBeFalsy();
    expect(lastPrompt()).toMatch(/GitHub.*Stack Overflow.*official documentation/);
    await s.call('ground.dev', { query: 'stream a large upload', language: 'Python' });
    expect(lastPrompt()).toContain('Prioritize results for the Python programming language.');
    await s.call('ground.dev', { query: 'stream a large upload', framework: 'FastAPI' });
    expect(lastPrompt()).toContain('Prioritize results for the FastAPI framework.');
    expect(textOf(basic)).toContain('## Sources');
  });

  it('ground.docs searches official documentation, and that of the technology named', async () => {
    const s = await server();
    await s.call('ground.docs', { query: 'hooks' });
    expect(lastPrompt()).toContain('official documentation and API references');
    const react = await s.call('ground.docs', { query: 'hooks', technology: 'React' });
    expect(lastPrompt()).toContain('Search the official React documentation');
    expect(textOf(react)).toContain('## Sources');
  });

  it('ground.reddit searches Reddit, and only the subreddit named', async () => {
    const s = await server();
    await s.call('ground.reddit', { query: 'tabs or spaces' });
    expect(lastPrompt()).toContain('Reddit posts and comments');
    expect(lastPrompt()).not.toContain('r/');
    await s.call('ground.reddit', { query: 'tabs or spaces', subreddit: 'programming' });
    expect(lastPrompt()).toContain('site:reddit.com/r/programming');
    const bad = await s.call('ground.reddit', { query: 'x', subreddit: 'not a subreddit!' });
    expect(JSON.parse(textOf(bad)).code).toBe('INVALID_INPUT');
  });
});

describe('sources (seed 003: source citations)', () => {
  it('an answer without grounding metadata says it has no sources and invents none', async () => {
    const s = await server();
    gemini.setAnswer(() => ({ text: 'Paris is the capital of France.', sources: null }));
    try {
      const result = await s.call('ground.search', { query: 'capital of France' });
      expect(textOf(result)).toContain('No sources: Gemini answered without searching the web');
      expect(textOf(result)).not.toMatch(/\n1\. \[/);
      expect(structured(result)).toMatchObject({ sources: [], grounded: false });
    } finally {
      gemini.setAnswer((await import('@pro-context/testing')).defaultFakeGeminiAnswer);
    }
  });

  it('shows each unique URL once however often it is cited, numbered in first-cited order', async () => {
    const s = await server();
    const a = { uri: 'https://a.example/x', title: 'A' };
    const b = { uri: 'https://b.example/y', title: 'B' };
    const c = { uri: 'https://c.example/z', title: '' };
    gemini.setAnswer(() => ({ text: 'Answer.', sources: [b, a, b, c, a, a] }));
    try {
      const text = textOf(await s.call('ground.search', { query: 'dupes' }));
      expect(text.split('## Sources\n\n')[1]).toBe(
        '1. [B](https://b.example/y)\n2. [A](https://a.example/x)\n3. [https://c.example/z](https://c.example/z)',
      );
    } finally {
      gemini.setAnswer((await import('@pro-context/testing')).defaultFakeGeminiAnswer);
    }
  });
});

describe('API key configuration (seed 003)', () => {
  it('every tool answers the exact message when OT_GEMINI_API_KEY is not set, and no request is made', async () => {
    const s = await server({ env: { PRO_CONTEXT_GEMINI_URL: gemini.url } });
    const listed = (await s.client.listTools()).tools.map((t) => t.name);
    expect(listed).toEqual(['ground.search', 'ground.dev', 'ground.docs', 'ground.reddit']);
    for (const name of listed) {
      const result = await s.call(name, { query: 'anything' });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe('Error: OT_GEMINI_API_KEY environment variable not set');
    }
    expect(MISSING_KEY_MESSAGE).toBe('Error: OT_GEMINI_API_KEY environment variable not set');
    expect(gemini.requests).toHaveLength(0);
  });

  it("a blank OT_GEMINI_API_KEY (whitespace only) is a missing key: the seed's message, no request", async () => {
    const s = await server({ env: { OT_GEMINI_API_KEY: '  ', PRO_CONTEXT_GEMINI_URL: gemini.url } });
    const result = await s.call('ground.search', { query: 'anything' });
    expect(textOf(result)).toBe('Error: OT_GEMINI_API_KEY environment variable not set');
    expect(gemini.requests).toHaveLength(0);
  });

  it('a key Gemini refuses (403) or no key reaching it (401) is an error naming the variable to check', async () => {
    const s = await server({
      env: { OT_GEMINI_API_KEY: 'gk-wrong-key-0000000000', PRO_CONTEXT_GEMINI_URL: gemini.url },
    });
    const result = await s.call('ground.search', { query: 'q' });
    const payload = JSON.parse(textOf(result));
    expect(payload).toMatchObject({ code: 'GROUNDING_KEY_REJECTED', recoverable: false });
    expect(payload.message).toContain('HTTP 403 PERMISSION_DENIED');
    expect(payload.suggestion).toContain('OT_GEMINI_API_KEY');
    expect(textOf(result)).not.toContain('gk-wrong-key');
    gemini.fault({ status: 401 });
    const unauthenticated = JSON.parse(textOf(await s.call('ground.search', { query: 'q2' })));
    expect(unauthenticated.code).toBe('GROUNDING_KEY_REJECTED');
    expect(unauthenticated.message).toContain('HTTP 401 UNAUTHENTICATED');
  });
});

describe('logging (seed 003: LogSpan)', () => {
  it('logs span, query, hasResults and resultLen for each search, and the error message when one fails', async () => {
    const s = await server();
    const result = await s.call('ground.dev', { query: 'pin a dependency' });
    const ok = s.spans().find((r) => r.span === 'ground.dev');
    expect(ok).toMatchObject({ span: 'ground.dev', query: 'pin a dependency', hasResults: true, success: true });
    expect(ok?.resultLen).toBe(textOf(result).length);
    gemini.fault({ status: 500 });
    await s.call('ground.docs', { query: 'broken' });
    const failed = s.spans().find((r) => r.span === 'ground.docs');
    expect(failed).toMatchObject({ query: 'broken', success: false, hasResults: false, resultLen: 0 });
    expect(failed?.error).toMatch(/^Gemini is unavailable \(HTTP 500 INTERNAL\)/);
    const missing = await server({ env: { PRO_CONTEXT_GEMINI_URL: gemini.url } });
    await missing.call('ground.reddit', { query: 'no key' });
    expect(missing.spans().find((r) => r.span === 'ground.reddit')?.error).toBe(MISSING_KEY_MESSAGE);
  });
});

describe('upstream failures', () => {
  it('429 with Retry-After: RATE_LIMITED carrying the wait', async () => {
    const s = await server();
    gemini.fault({ status: 429, retryAfter: 120 });
    const payload = JSON.parse(textOf(await s.call('ground.search', { query: 'limited' })));
    expect(payload).toMatchObject({ code: 'RATE_LIMITED', retryAfter: 120, recoverable: true });
    expect(payload.message).toContain('RESOURCE_EXHAUSTED');
  });

  it('a passing 503 is retried and answered; a lasting 5xx is SOURCE_UNAVAILABLE with the status', async () => {
    const s = await server();
    gemini.fault({ status: 503, times: 1 });
    const recovered = await s.call('ground.search', { query: 'flaky' });
    expect(recovered.isError).toBeFalsy();
    expect(gemini.requests.map((r) => r.status)).toEqual([503, 200]);
    gemini.fault({ status: 502 });
    const payload = JSON.parse(textOf(await s.call('ground.search', { query: 'down' })));
    expect(payload).toMatchObject({ code: 'SOURCE_UNAVAILABLE' });
    expect(payload.message).toContain('HTTP 502');
  });

  it('a response slower than the timeout ends with its own message', async () => {
    const s = await server({
      env: { OT_GEMINI_API_KEY: GEMINI_KEY, PRO_CONTEXT_GEMINI_URL: gemini.url },
      config: { grounding: { timeoutSeconds: 1 } },
    });
    gemini.fault({ delayMs: 2500 });
    const started = Date.now();
    const payload = JSON.parse(textOf(await s.call('ground.search', { query: 'slow' })));
    expect(payload).toMatchObject({ code: 'SOURCE_UNAVAILABLE', message: 'Gemini did not answer within 1 s.' });
    expect(Date.now() - started).toBeLessThan(2400);
  });
});

describe('results cached in the CacheStore', () => {
  it('answers an identical call from the cache, shares one request between concurrent calls, never stores an error', async () => {
    const cache = new MemoryCacheStore();
    const s = await server({ cache });
    const [a, b, c] = await Promise.all([
      s.call('ground.search', { query: 'shared', focus: 'code' }),
      s.call('ground.search', { query: 'shared', focus: 'code' }),
      s.call('ground.search', { query: 'shared', focus: 'code' }),
    ]);
    expect(gemini.count(':generateContent')).toBe(1);
    expect(textOf(a)).toBe(textOf(b));
    expect(textOf(b)).toBe(textOf(c));
    const again = await s.call('ground.search', { query: 'shared', focus: 'code' });
    expect(structured(again).cached).toBe(true);
    expect(gemini.count(':generateContent')).toBe(1);
    expect(await cache.keys('grounding')).toHaveLength(1);
    // another focus is another question
    await s.call('ground.search', { query: 'shared', focus: 'general' });
    expect(gemini.count(':generateContent')).toBe(2);
    // an error is not stored: the next identical call asks again and succeeds
    gemini.fault({ status: 400, times: 1 });
    const failed = await s.call('ground.docs', { query: 'error once' });
    expect(failed.isError).toBe(true);
    const retried = await s.call('ground.docs', { query: 'error once' });
    expect(retried.isError).toBeFalsy();
    expect(structured(retried).cached).toBe(false);
  });

  it('cacheMinutes: 0 stores nothing', async () => {
    const cache = new MemoryCacheStore();
    const s = await server({
      cache,
      env: { OT_GEMINI_API_KEY: GEMINI_KEY, PRO_CONTEXT_GEMINI_URL: gemini.url },
      config: { grounding: { cacheMinutes: 0 } },
    });
    await s.call('ground.search', { query: 'uncached' });
    await s.call('ground.search', { query: 'uncached' });
    expect(gemini.count(':generateContent')).toBe(2);
    expect(await cache.keys('grounding')).toHaveLength(0);
  });
});

describe('the key never leaves the request header', () => {
  it('appears nowhere in what any server of this file wrote (logs at debug, MCP messages both ways)', () => {
    expect(everythingWritten.length).toBeGreaterThan(100);
    const leaks = everythingWritten.filter((line) => line.includes(GEMINI_KEY) || line.includes('gk-wrong-key'));
    expect(leaks).toEqual([]);
    // what was written includes the failures and the spans, so the check covers error paths too
    expect(everythingWritten.some((line) => line.includes('GROUNDING_KEY_REJECTED'))).toBe(true);
    expect(everythingWritten.some((line) => line.includes('"span":"ground.search"'))).toBe(true);
  });
});

import type { StartedKernel } from '@pro-context/kernel';
import {
  createTestKernel,
  type FakeContext7,
  type FaultInjector,
  loopbackOnlyLookup,
  MemoryCacheStore,
  startFakeContext7,
  startFaultInjector,
  type UnreachableUpstreams,
  type UpstreamFaultKind,
  unreachableUpstreams,
} from '@pro-context/testing';
import { createToolRunner } from '@pro-context/tool-runner';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { context7Plugin } from '../src/index.js';

// Issue #26: Context7's deadline (context7.timeoutMs) is each request's headers and body timeout (an answer slower
// than the HTTP client's 15 s headers timeout is no longer cut), a timed-out call is not sent again, and every
// fault ends in a coded error naming its cause (deliverable 9).
const KEY = 'faults-test-key-3b9d0e71';
let fake: FakeContext7;
let injector: FaultInjector;
let dead: UnreachableUpstreams;
const kernels: StartedKernel[] = [];

beforeAll(async () => {
  fake = await startFakeContext7({ apiKey: KEY });
  injector = await startFaultInjector(fake.origin);
  dead = await unreachableUpstreams();
});
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((k) => k.stop()));
  injector.requests.length = 0;
  fake.fault();
  injector.fault();
  fake.requests.length = 0;
});
afterAll(async () => {
  await injector.close();
  await fake.close();
});

async function tools(url: string, config: Record<string, unknown>) {
  const kernel = await createTestKernel({
    plugins: [context7Plugin],
    config: { security: { allowPrivateNetwork: true }, ...config },
    env: { CONTEXT7_API_KEY: KEY, PRO_CONTEXT_CONTEXT7_URL: url },
    fakeCache: new MemoryCacheStore(),
    httpOptions: { lookup: loopbackOnlyLookup },
  });
  kernels.push(kernel);
  return createToolRunner(kernel);
}

describe("Context7's deadline", () => {
  it('an answer slower than the HTTP headers timeout but within context7.timeoutMs arrives, in one request', async () => {
    // http.headersTimeoutMs 300 stands for the client's 15 s default
    const runner = await tools(fake.url, { http: { headersTimeoutMs: 300 }, context7: { timeoutMs: 10_000 } });
    fake.fault({ delayMs: 1200, times: 1 });
    const outcome = await runner.call('context7.search', { query: 'next.js' });
    expect(outcome.ok, outcome.text).toBe(true);
    expect(fake.count('/libs/search')).toBe(1);
  });

  it('a call past its deadline says the deadline that applied, after one request', async () => {
    const runner = await tools(`${injector.origin}/api`, {
      http: { retryDelaysMs: [10] },
      context7: { timeoutMs: 1000 },
    });
    injector.fault({ kind: 'slow-headers', delayMs: 4000 });
    const outcome = await runner.call('context7.search', { query: 'next.js' });
    expect(outcome.ok).toBe(false);
    expect(outcome.text).toBe('[Context7 request timed out after 1s]');
    expect(injector.requests).toHaveLength(1);
  });
});

describe('Context7 fault matrix', () => {
  const config = { http: { retryDelaysMs: [10] }, context7: { timeoutMs: 2000 } };

  it.each([
    ['refused by policy', 'refusedByPolicy', /^\[Context7 unreachable: Refused to connect to 203\.0\.113\.80/],
    ['DNS failure', 'dnsFailure', /^\[Context7 unreachable: .*could not be resolved/],
    ['connection refused', 'connectionRefused', /^\[Context7 unreachable: .*connection was refused/],
  ] as const)('%s → CONTEXT7_UNAVAILABLE', async (_name, which, text) => {
    const runner = await tools(`${dead[which]}api`, config);
    const outcome = await runner.call('context7.search', { query: 'next.js' });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.code).toBe('CONTEXT7_UNAVAILABLE');
    expect(outcome.text).toMatch(text);
  });

  const answered: [UpstreamFaultKind, string, RegExp][] = [
    ['reset-mid-body', 'CONTEXT7_UNAVAILABLE', /^\[Context7 unreachable: .*(reset|closed)/],
    ['slow-headers', 'CONTEXT7_TIMEOUT', /^\[Context7 request timed out after 2s\]$/],
    ['slow-body', 'CONTEXT7_TIMEOUT', /^\[Context7 request timed out after 2s\]$/],
    ['status-500', 'CONTEXT7_HTTP_ERROR', /^\[Context7 error 500/],
    ['status-502', 'CONTEXT7_HTTP_ERROR', /^\[Context7 error 502/],
    ['status-503', 'CONTEXT7_HTTP_ERROR', /^\[Context7 error 503/],
    ['rate-limited', 'CONTEXT7_HTTP_ERROR', /^\[Context7 error 429/],
    ['truncated-body', 'INVALID_CONTENT', /not valid JSON/],
    ['garbage-body', 'INVALID_CONTENT', /not valid JSON/],
    ['wrong-content-type', 'INVALID_CONTENT', /not valid JSON/],
    ['redirect-loop', 'CONTEXT7_UNAVAILABLE', /^\[Context7 unreachable: Too many redirects/],
  ];
  it.each(answered)('%s → %s', async (kind, code, text) => {
    const runner = await tools(`${injector.origin}/api`, config);
    injector.fault({ kind, delayMs: 5000, retryAfter: 120 });
    const started = performance.now();
    const outcome = await runner.call('context7.search', { query: `fault ${kind}` });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect([outcome.error.code, outcome.text]).toEqual([code, expect.stringMatching(text)]);
    if (kind === 'rate-limited') expect(outcome.error.retryAfter).toBe(120);
    expect(outcome.text).not.toContain(KEY);
    expect(performance.now() - started).toBeLessThan(2000 + 3000);
  });
});

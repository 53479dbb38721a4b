import {
  type FakeExa,
  type FaultInjector,
  loopbackOnlyLookup,
  startFakeExa,
  startFaultInjector,
  type UnreachableUpstreams,
  type UpstreamFaultKind,
  unreachableUpstreams,
} from '@pro-context/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EXA_KEY, type ExaServer, startExaServer, textOf } from './helpers.js';

// Issue #26: Exa's deadline (exa.timeoutSeconds) is each request's headers and body timeout, a timed-out
// (billed) call is not sent again past it, and every fault ends in a coded error naming its cause (deliverable 9).
let exa: FakeExa;
let injector: FaultInjector;
let dead: UnreachableUpstreams;
const servers: ExaServer[] = [];

beforeAll(async () => {
  exa = await startFakeExa({ apiKey: EXA_KEY });
  injector = await startFaultInjector(exa.url);
  dead = await unreachableUpstreams();
});
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  exa.fault();
  injector.fault();
  injector.requests.length = 0;
  exa.requests.length = 0;
});
afterAll(async () => {
  await injector.close();
  await exa.close();
});

async function server(url: string, config: Record<string, unknown>) {
  const s = await startExaServer(exa, {
    env: { EXA_API_KEY: EXA_KEY, PRO_CONTEXT_EXA_URL: url },
    config: { security: { allowPrivateNetwork: true }, ...config },
    httpOptions: { lookup: loopbackOnlyLookup },
  });
  servers.push(s);
  return s;
}

describe("Exa's deadline", () => {
  it('an answer slower than the HTTP headers timeout but within exa.timeoutSeconds arrives, in one request', async () => {
    // http.headersTimeoutMs 300 stands for the client's 15 s default; the call is given 10 s
    const s = await server(exa.url, {
      http: { headersTimeoutMs: 300, retryDelaysMs: [10] },
      exa: { timeoutSeconds: 10 },
    });
    exa.fault({ delayMs: 1200, times: 1 });
    const result = await s.call('web_search', { query: 'slow but fine' });
    expect(result.isError, `${textOf(result)}\n${s.written.filter((l) => l.includes('http')).join('\n')}`).toBeFalsy();
    // one billed request, not one per headers timeout
    expect(exa.count('/search')).toBe(1);
  });

  it('a call past its deadline fails once, stating that deadline, without a second billed request', async () => {
    const s = await server(injector.origin, { http: { retryDelaysMs: [10] }, exa: { timeoutSeconds: 1 } });
    injector.fault({ kind: 'slow-headers', delayMs: 4000 });
    const payload = JSON.parse(textOf(await s.call('web_search', { query: 'too slow' })));
    expect(payload).toMatchObject({ code: 'SOURCE_UNAVAILABLE', message: 'Exa search failed: no answer within 1 s.' });
    expect(injector.requests).toHaveLength(1);
  });
});

describe('Exa fault matrix', () => {
  const config = { http: { retryDelaysMs: [10] }, exa: { timeoutSeconds: 2 } };

  it.each([
    ['refused by policy', 'refusedByPolicy', 'URL_NOT_ALLOWED', /documentation-only|refused/i],
    ['DNS failure', 'dnsFailure', 'SOURCE_UNAVAILABLE', /could not be resolved/],
    ['connection refused', 'connectionRefused', 'SOURCE_UNAVAILABLE', /connection was refused/],
  ] as const)('%s → %s', async (_name, which, code, message) => {
    const s = await server(dead[which], config);
    const payload = JSON.parse(textOf(await s.call('web_search', { query: 'q' })));
    expect(payload.code).toBe(code);
    expect(payload.message).toMatch(message);
  });

  const answered: [UpstreamFaultKind, string, RegExp][] = [
    ['reset-mid-body', 'SOURCE_UNAVAILABLE', /could not be reached: .*(reset|closed)/],
    ['slow-headers', 'SOURCE_UNAVAILABLE', /Exa search failed: no answer within 2 s/],
    ['slow-body', 'SOURCE_UNAVAILABLE', /Exa search failed: no answer within 2 s/],
    ['status-500', 'SOURCE_UNAVAILABLE', /HTTP 500/],
    ['status-502', 'SOURCE_UNAVAILABLE', /HTTP 502/],
    ['status-503', 'SOURCE_UNAVAILABLE', /HTTP 503/],
    ['rate-limited', 'RATE_LIMITED', /HTTP 429/],
    ['truncated-body', 'SOURCE_UNAVAILABLE', /not JSON/],
    ['garbage-body', 'SOURCE_UNAVAILABLE', /not JSON/],
    ['wrong-content-type', 'SOURCE_UNAVAILABLE', /not JSON/],
    ['redirect-loop', 'SOURCE_UNAVAILABLE', /redirects/],
  ];
  it.each(answered)('%s → %s', async (kind, code, message) => {
    const s = await server(injector.origin, config);
    injector.fault({ kind, delayMs: 5000, retryAfter: 120 });
    const started = performance.now();
    const payload = JSON.parse(textOf(await s.call('web_search', { query: `fault ${kind}` })));
    expect(payload.code).toBe(code);
    expect(payload.message).toMatch(message);
    if (kind === 'rate-limited') expect(payload.retryAfter).toBe(120);
    expect(payload.message).not.toContain(EXA_KEY);
    expect(performance.now() - started).toBeLessThan(2000 + 3000);
  });
});

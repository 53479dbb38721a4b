import { type SourceAdapter, type StartedKernel, sourceAdapterToken } from '@pro-context/kernel';
import { upstreamFailureOf } from '@pro-context/plugin-kit';
import {
  catalogErrorOf,
  createTestKernel,
  type FaultInjector,
  type LoopbackSite,
  loopbackOnlyLookup,
  startFaultInjector,
  startLoopbackSite,
  type UnreachableUpstreams,
  type UpstreamFaultKind,
  unreachableUpstreams,
} from '@pro-context/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { llmsTxtPlugin } from '../src/index.js';

// The fault-injection matrix for a documentation site (issue #26 deliverable 9), at the llms-txt adapter: every
// fault ends in a catalog error whose classification (`details.failure`, kept through its causes) names the cause,
// within the deadline — never a crash, a hang or a message about something else. (The engine then serves the
// stale cache, or another source, as its own tests show.)
const LLMS_TXT = '# Example\n\n> An example site.\n\n## Guide\n\n- [Start](start): Begin\n- [Install](install): How\n';
let site: LoopbackSite;
let injector: FaultInjector;
let dead: UnreachableUpstreams;
let kernel: StartedKernel;
let adapter: SourceAdapter;

beforeAll(async () => {
  site = await startLoopbackSite((path, res) => {
    if (path.endsWith('/llms.txt')) res.writeHead(200, { 'content-type': 'text/plain' }).end(LLMS_TXT);
    else res.writeHead(404).end('not found');
  });
  injector = await startFaultInjector(site.origin);
  dead = await unreachableUpstreams();
  kernel = await createTestKernel({
    plugins: [llmsTxtPlugin],
    config: { http: { timeoutMs: 1500, retryDelaysMs: [10] } },
    httpOptions: { lookup: loopbackOnlyLookup },
  });
  adapter = kernel.resolveAll(sourceAdapterToken).find((a) => a.id === 'llms-txt') as SourceAdapter;
});
afterEach(() => injector.fault());
afterAll(async () => {
  await kernel.stop();
  await injector.close();
  await site.close();
});

/** A library of its own per case (the adapter keeps what it fetched). */
const lib = (origin: string, name = 'ex') => ({
  id: name,
  name,
  llmsTxtUrl: `${origin.replace(/\/$/, '')}/${name}/llms.txt`,
});

describe('a documentation site that cannot be reached', () => {
  it.each([
    ['refused by policy', 'refusedByPolicy', 'URL_NOT_ALLOWED', 'refused-by-policy'],
    ['DNS failure', 'dnsFailure', 'SOURCE_UNAVAILABLE', 'dns'],
    ['connection refused', 'connectionRefused', 'SOURCE_UNAVAILABLE', 'connection-refused'],
  ] as const)('%s → %s (%s)', async (_name, which, code, failure) => {
    const error = await catalogErrorOf(adapter.fetchToc(lib(dead[which], which), 'latest'));
    expect([error.code, upstreamFailureOf(error)]).toEqual([code, failure]);
  });
});

describe('a documentation site answering wrongly', () => {
  it('answers normally through the injector', async () => {
    expect((await adapter.fetchToc(lib(injector.origin), 'latest')).entries).toHaveLength(2);
  });

  const rows: [UpstreamFaultKind, string, string | undefined][] = [
    ['reset-mid-body', 'SOURCE_UNAVAILABLE', 'connection-reset'],
    ['slow-headers', 'SOURCE_UNAVAILABLE', 'timeout'],
    ['slow-body', 'SOURCE_UNAVAILABLE', 'timeout'],
    ['status-500', 'SOURCE_UNAVAILABLE', undefined],
    ['status-502', 'SOURCE_UNAVAILABLE', undefined],
    ['status-503', 'SOURCE_UNAVAILABLE', undefined],
    // a text file has no framing to tell a cut one from a short one: what arrived is served
    ['truncated-body', 'OK', undefined],
    ['garbage-body', 'INVALID_CONTENT', undefined],
    ['wrong-content-type', 'INVALID_CONTENT', undefined],
    ['redirect-loop', 'SOURCE_UNAVAILABLE', 'redirect-loop'],
    // last: the client then holds the host back until its Retry-After passes (issue #25.6)
    ['rate-limited', 'RATE_LIMITED', undefined],
  ];
  it.each(rows)('%s → %s', async (kind, code, failure) => {
    injector.fault({ kind, delayMs: 5000 });
    const started = performance.now();
    const outcome = await adapter.fetchToc(lib(injector.origin, kind), 'latest').then(
      (toc) => ({ code: 'OK', failure: undefined, message: `${toc.entries.length} entries` }),
      (error: { code?: string; message?: string }) => ({
        code: error.code,
        failure: upstreamFailureOf(error),
        message: error.message,
      }),
    );
    expect(outcome.code).toBe(code);
    if (failure) expect(outcome.failure).toBe(failure);
    expect(performance.now() - started).toBeLessThan(1500 + 3000);
  });
});

import type { StartedKernel } from '@pro-context/kernel';
import {
  catalogErrorOf,
  type FakeRegistry,
  type FaultInjector,
  fakePypiProjects,
  startFakePypi,
  startFaultInjector,
  type UnreachableUpstreams,
  type UpstreamFaultKind,
  unreachableUpstreams,
} from '@pro-context/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { kernelWith } from './helpers.js';

// The fault-injection matrix for PyPI (issue #26 deliverable 9): every way the index fails ends in a coded error
// whose code and `details.failure` name the cause (the engine turns each into a note for a library whose docs it
// knows), never a crash, a hang or a message about something else. Deadlines are short through the config.
let pypi: FakeRegistry;
let injector: FaultInjector;
let dead: UnreachableUpstreams;
const kernels: StartedKernel[] = [];
const TIMEOUT_MS = 1500;

beforeAll(async () => {
  pypi = await startFakePypi(fakePypiProjects);
  injector = await startFaultInjector(pypi.origin);
  dead = await unreachableUpstreams();
});
afterEach(() => injector.fault());
afterAll(async () => {
  await Promise.all(kernels.map((k) => k.stop()));
  await injector.close();
  await pypi.close();
});

async function lookupVia(url: string) {
  const { kernel, resolver } = await kernelWith(
    { url, timeoutMs: TIMEOUT_MS, reuseSeconds: 0 },
    { security: { allowPrivateNetwork: true }, http: { retries: 2, retryDelaysMs: [10] } },
  );
  kernels.push(kernel);
  const started = performance.now();
  const error = await catalogErrorOf(resolver.lookup('fastapi'));
  return { error, ms: performance.now() - started };
}

describe('PyPI unreachable', () => {
  it.each([
    ['refused by policy (a DNS sinkhole address)', 'refusedByPolicy', 'refused-by-policy'],
    ['DNS failure', 'dnsFailure', 'dns'],
    ['connection refused', 'connectionRefused', 'connection-refused'],
  ] as const)('%s → REGISTRY_UNREACHABLE', async (_name, which, failure) => {
    const { error } = await lookupVia(dead[which]);
    expect([error.code, error.recoverable, error.details?.failure]).toEqual(['REGISTRY_UNREACHABLE', true, failure]);
    expect(error.message).toMatch(/^PyPI \(.+\) could not be reached: /);
  });
});

const answered: [UpstreamFaultKind, string, string, RegExp][] = [
  ['reset-mid-body', 'REGISTRY_UNREACHABLE', 'connection-reset', /could not be reached/],
  ['slow-headers', 'REGISTRY_TIMEOUT', 'timeout', /did not answer within 1\.5 s/],
  ['slow-body', 'REGISTRY_TIMEOUT', 'timeout', /did not answer within 1\.5 s/],
  ['status-500', 'REGISTRY_ERROR', 'http-5xx', /HTTP 500/],
  ['status-502', 'REGISTRY_ERROR', 'http-5xx', /HTTP 502/],
  ['status-503', 'REGISTRY_ERROR', 'http-5xx', /HTTP 503/],
  ['rate-limited', 'RATE_LIMITED', 'rate-limited', /rate limiting/],
  ['truncated-body', 'REGISTRY_ERROR', 'invalid-body', /not JSON/],
  ['garbage-body', 'REGISTRY_ERROR', 'invalid-body', /not JSON/],
  ['wrong-content-type', 'REGISTRY_ERROR', 'invalid-body', /not JSON/],
  ['redirect-loop', 'REGISTRY_ERROR', 'redirect-loop', /redirect/i],
];

describe('PyPI answering wrongly', () => {
  it.each(answered)('%s → %s (%s)', async (kind, code, failure, message) => {
    injector.fault({ kind, delayMs: 5000, retryAfter: 30 });
    const { error, ms } = await lookupVia(injector.origin);
    expect([error.code, error.details?.failure]).toEqual([code, failure]);
    expect(error.message).toMatch(message);
    if (kind === 'rate-limited') expect(error.retryAfter).toBe(30);
    // bounded by the registry's deadline, never a hang (generous: the machine may be loaded)
    expect(ms).toBeLessThan(TIMEOUT_MS + 2500);
  });

  it('a reset, a 5xx or a 429 played once is retried and the answer arrives', async () => {
    for (const kind of ['reset-mid-body', 'status-503', 'status-502'] as const) {
      injector.fault({ kind, times: 1 });
      const { kernel, resolver } = await kernelWith(
        { url: injector.origin, timeoutMs: 5000, reuseSeconds: 0 },
        { security: { allowPrivateNetwork: true }, http: { retries: 2, retryDelaysMs: [10] } },
      );
      kernels.push(kernel);
      expect((await resolver.lookup('fastapi'))?.name, kind).toBe('fastapi');
    }
  });
});

// JSON, but not a project: a mirror or proxy answering an error object or another API with 200. Before, an answer
// without `info.name` read as "PyPI has no such project" (LIBRARY_NOT_FOUND, the registry's failure hidden), and
// `releases` that were not an object of file lists threw a bare TypeError (`files.map is not a function`).
describe('PyPI answering JSON of the wrong shape', () => {
  it.each([
    ['an error object', { message: 'Service moved', code: 42 }, /info: /],
    ['info not an object', { info: 'nope', releases: {} }, /info: /],
    ['releases a list', { info: { name: 'fastapi' }, releases: [1, 2] }, /releases: /],
    [
      'a release whose files are not objects',
      { info: { name: 'fastapi' }, releases: { '1.0': [null] } },
      /releases\.1\.0\.0: /,
    ],
    ['a JSON array', [1, 2, 3], /the document: /],
  ])('%s → REGISTRY_ERROR (invalid-body) naming what is wrong', async (_name, body, why) => {
    pypi.fault({ path: '/pypi/fastapi/json', status: 200, body: JSON.stringify(body) });
    try {
      const { error } = await lookupVia(pypi.url);
      expect([error.code, error.details?.failure]).toEqual(['REGISTRY_ERROR', 'invalid-body']);
      expect(error.message).toMatch(/^PyPI \(127\.0\.0\.1:\d+\) answered JSON that is not a PyPI project for http:/);
      expect(error.message).toMatch(why);
      expect(error.suggestion).toMatch(/registries\.pypi\.url/);
    } finally {
      pypi.fault();
    }
  });

  it('the same project answered in its real shape still resolves', async () => {
    const { kernel, resolver } = await kernelWith(
      { url: pypi.url, timeoutMs: TIMEOUT_MS, reuseSeconds: 0 },
      { security: { allowPrivateNetwork: true } },
    );
    kernels.push(kernel);
    expect((await resolver.lookup('fastapi'))?.name).toBe('fastapi');
  });
});

// A 429 or 503 with Retry-After keeps PyPI from being asked again before it passes (the HTTP client's memory):
// the lookups meanwhile keep their code and the seconds left, and name the cause (details.failure), so the
// engine's note says "the pypi registry could not be asked (it is rate limiting requests)" rather than "(it could
// not be asked)".
describe('PyPI holding back after its Retry-After', () => {
  it.each([
    [429, 'RATE_LIMITED', 'rate-limited'],
    [503, 'SOURCE_UNAVAILABLE', 'http-5xx'],
  ] as const)(
    'a %i with Retry-After, then a lookup meanwhile → %s (%s), retryAfter, no request',
    async (status, code, failure) => {
      const { kernel, resolver } = await kernelWith(
        { url: pypi.url, timeoutMs: TIMEOUT_MS, reuseSeconds: 0 },
        { security: { allowPrivateNetwork: true }, http: { retries: 0 } },
      );
      kernels.push(kernel);
      pypi.fault({ status, retryAfter: 120, times: 1 });
      await catalogErrorOf(resolver.lookup('fastapi'));
      const asked = pypi.count();
      const error = await catalogErrorOf(resolver.lookup('pydantic'));
      expect([error.code, error.details?.failure]).toEqual([code, failure]);
      expect(error.retryAfter).toBeGreaterThan(100);
      expect(error.message).toMatch(/answered \d{3} with Retry-After: not asked again for \d+ s/);
      expect(pypi.count()).toBe(asked);
    },
  );
});

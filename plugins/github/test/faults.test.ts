import {
  type LibraryDescriptor,
  type SourceAdapter,
  type StartedKernel,
  sourceAdapterToken,
} from '@pro-context/kernel';
import { upstreamFailureOf } from '@pro-context/plugin-kit';
import {
  createTestKernel,
  type FakeGithub,
  type FaultInjector,
  loopbackOnlyLookup,
  startFakeGithub,
  startFaultInjector,
  type UnreachableUpstreams,
  type UpstreamFaultKind,
  unreachableUpstreams,
  upstreamFaultKinds,
} from '@pro-context/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { githubPlugin } from '../src/index.js';

// The fault-injection matrix for GitHub (issue #26 deliverable 9), at the github adapter: every fault ends in a
// catalog error naming the cause, within the deadline — never a crash, a hang or a message about something else.
const README = '# Tiny\n\nA tiny library.\n\n## Install\n\n`pip install tiny`\n\n## Use\n\nCall `go()`.\n';
const repoNames = ['refusedByPolicy', 'dnsFailure', 'connectionRefused', 'through', ...upstreamFaultKinds];
let github: FakeGithub;
let injector: FaultInjector;
let dead: UnreachableUpstreams;
const kernels: StartedKernel[] = [];

beforeAll(async () => {
  github = await startFakeGithub(
    repoNames.map((name) => ({ fullName: `acme/${name}`, files: { 'README.md': README } })),
  );
  injector = await startFaultInjector(new URL(github.apiUrl).origin);
  dead = await unreachableUpstreams();
});
afterEach(() => injector.fault());
afterAll(async () => {
  await Promise.all(kernels.map((k) => k.stop()));
  await injector.close();
  await github.close();
});

async function adapterAt(origin: string): Promise<SourceAdapter> {
  const swap = (url: string) => `${origin.replace(/\/$/, '')}${new URL(url).pathname}`;
  const kernel = await createTestKernel({
    plugins: [[githubPlugin, { apiUrl: swap(github.apiUrl), rawUrl: swap(github.rawUrl) }]],
    config: { http: { timeoutMs: 1500, retryDelaysMs: [10] } },
    httpOptions: { lookup: loopbackOnlyLookup },
  });
  kernels.push(kernel);
  return kernel.resolveAll(sourceAdapterToken).find((a) => a.id === 'github') as SourceAdapter;
}

const lib = (name: string): LibraryDescriptor => ({ id: name, name, repository: `acme/${name}` });

async function outcomeOf(adapter: SourceAdapter, name: string) {
  const started = performance.now();
  const outcome = await adapter.fetchToc(lib(name), 'latest').then(
    (toc) => ({ code: 'OK', failure: undefined, message: `${toc.entries.length} entries` }),
    (error: { code?: string; message?: string }) => ({
      code: error.code,
      failure: upstreamFailureOf(error),
      message: String(error.message),
    }),
  );
  return { ...outcome, ms: performance.now() - started };
}

describe('GitHub that cannot be reached', () => {
  it.each([
    ['refused by policy', 'refusedByPolicy', 'URL_NOT_ALLOWED', 'refused-by-policy'],
    ['DNS failure', 'dnsFailure', 'SOURCE_UNAVAILABLE', 'dns'],
    ['connection refused', 'connectionRefused', 'SOURCE_UNAVAILABLE', 'connection-refused'],
  ] as const)('%s → %s (%s)', async (_name, which, code, failure) => {
    const outcome = await outcomeOf(await adapterAt(dead[which]), which);
    expect([outcome.code, outcome.failure], outcome.message).toEqual([code, failure]);
  });
});

describe('GitHub answering wrongly', () => {
  it('answers normally through the injector', async () => {
    expect((await outcomeOf(await adapterAt(injector.origin), 'through')).code).toBe('OK');
  });

  const rows: [UpstreamFaultKind, string, string | undefined][] = [
    ['reset-mid-body', 'SOURCE_UNAVAILABLE', 'connection-reset'],
    ['slow-headers', 'SOURCE_UNAVAILABLE', 'timeout'],
    ['slow-body', 'SOURCE_UNAVAILABLE', 'timeout'],
    ['status-500', 'SOURCE_UNAVAILABLE', undefined],
    ['status-502', 'SOURCE_UNAVAILABLE', undefined],
    ['status-503', 'SOURCE_UNAVAILABLE', undefined],
    ['rate-limited', 'RATE_LIMITED', undefined],
    ['truncated-body', 'INVALID_CONTENT', undefined],
    ['garbage-body', 'INVALID_CONTENT', undefined],
    ['wrong-content-type', 'INVALID_CONTENT', undefined],
    ['redirect-loop', 'SOURCE_UNAVAILABLE', 'redirect-loop'],
  ];
  it.each(rows)('%s → %s', async (kind, code, failure) => {
    const adapter = await adapterAt(injector.origin);
    injector.fault({ kind, delayMs: 5000 });
    const outcome = await outcomeOf(adapter, kind);
    expect(outcome.code, outcome.message).toBe(code);
    if (failure) expect(outcome.failure).toBe(failure);
    expect(outcome.ms).toBeLessThan(1500 * 3 + 3000);
  });
});

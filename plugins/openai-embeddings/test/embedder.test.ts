import { type Embedder, embedderToken, type Reranker, rerankerToken } from '@pro-context/engine/api';
import type { StartedKernel } from '@pro-context/kernel';
import { createLogger } from '@pro-context/logging';
import { catalogErrorOf, createTestKernel, type FakeEmbeddings, startFakeEmbeddings } from '@pro-context/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openAiEmbeddingsPlugin } from '../src/index.js';

/** A key no redaction pattern recognises, so a leak would show as written. */
const KEY = 'emb-test-5d4c3b2a1f0e9d8c7b6a';

let fake: FakeEmbeddings;
const kernels: StartedKernel[] = [];
const written: string[] = [];

beforeAll(async () => {
  fake = await startFakeEmbeddings({ apiKey: KEY, dimensions: 32 });
});
afterAll(async () => {
  await fake?.close();
});
afterEach(async () => {
  fake.fault();
  await fake.accept();
  fake.requests.length = 0;
  await Promise.all(kernels.splice(0).map((k) => k.stop()));
});

async function start(embeddings: Record<string, unknown> = {}, config: Record<string, unknown> = {}) {
  const kernel = await createTestKernel({
    plugins: [openAiEmbeddingsPlugin],
    config: {
      http: { retryDelaysMs: [10] },
      embeddings: { baseUrl: fake.baseUrl, model: 'fake-embed', apiKey: KEY, ...embeddings },
      ...config,
    },
    logger: createLogger({ level: 'debug', stream: { write: (line: string) => written.push(line) } }),
  });
  kernels.push(kernel);
  return { embedder: kernel.resolve(embedderToken) as Embedder, reranker: kernel.resolve(rerankerToken) as Reranker };
}

const signal = () => new AbortController().signal;

describe('the OpenAI-compatible embedder', () => {
  it("gives the server's vectors in order, in batches, each text asked once", async () => {
    const { embedder } = await start({ batchSize: 2 });
    const texts = ['alpha beta', 'gamma', 'delta epsilon', 'zeta', 'alpha beta'];
    const vectors = await embedder.embed(texts, signal());
    expect(vectors).toHaveLength(5);
    vectors.forEach((v, i) => {
      const expected = fake.vectorOf(texts[i] as string);
      v.forEach((x, j) => {
        expect(x).toBeCloseTo(expected[j] as number, 5);
      });
    });
    // four distinct texts, two a request; the key sent as a bearer token, the model and inputs as OpenAI's shape
    expect(fake.count('/v1/embeddings')).toBe(2);
    expect(fake.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(fake.requests[0]?.body).toEqual({ model: 'fake-embed', input: ['alpha beta', 'gamma'] });
    expect(embedder.dimensions).toBe(32);
    expect(embedder.model).toBe('fake-embed');
    // asked again: from the cache (keyed by model and text), no request
    await embedder.embed(['zeta', 'gamma'], signal());
    expect(fake.count()).toBe(2);
  });

  it('sends dimensions when configured, and refuses vectors of another length', async () => {
    const { embedder } = await start({ dimensions: 16 });
    expect((await embedder.embed(['one'], signal()))[0]).toHaveLength(16);
    expect(fake.requests[0]?.body).toMatchObject({ dimensions: 16 });
    fake.fault({
      json: { object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2] }], model: 'fake-embed' },
    });
    const error = await catalogErrorOf(embedder.embed(['two'], signal()));
    expect(error.code).toBe('EMBEDDINGS_BAD_RESPONSE');
    expect(error.message).toContain('2 dimensions where 16 were configured');
    // an answer far larger than 16-dimension vectors can be is refused as it arrives (the size cap follows the batch)
    fake.fault({ json: { data: [{ index: 0, embedding: new Array(20_000).fill(0.123456789) }] } });
    const huge = await catalogErrorOf(embedder.embed(['three'], signal()));
    expect(huge.code).toBe('EMBEDDINGS_BAD_RESPONSE');
    expect(huge.message).toContain('over the size cap');
  });

  it('names each failure by its cause, never with the key (the fake echoes a wrong key in its 401)', async () => {
    const { embedder } = await start({ timeoutMs: 300 });
    const cases: [string, () => Promise<void> | void, string, RegExp][] = [
      ['refused', () => fake.refuse(), 'EMBEDDINGS_UNREACHABLE', /could not be reached: the connection was refused/],
      ['slow', () => fake.fault({ delayMs: 1500 }), 'EMBEDDINGS_TIMEOUT', /did not answer within 300 ms/],
      ['500', () => fake.fault({ status: 500 }), 'EMBEDDINGS_UNAVAILABLE', /failed \(HTTP 500\)/],
      ['html', () => fake.fault({ status: 200, body: '<html>portal</html>' }), 'EMBEDDINGS_BAD_RESPONSE', /not JSON/],
      ['no data', () => fake.fault({ json: { result: [] } }), 'EMBEDDINGS_BAD_RESPONSE', /no "data" list/],
      ['count', () => fake.fault({ json: { data: [] } }), 'EMBEDDINGS_BAD_RESPONSE', /0 vectors for 1 texts/],
      [
        'nan',
        () => fake.fault({ json: { data: [{ index: 0, embedding: ['x'] }] } }),
        'EMBEDDINGS_BAD_RESPONSE',
        /no number/,
      ],
    ];
    let n = 0;
    for (const [name, play, code, message] of cases) {
      await play();
      const error = await catalogErrorOf(embedder.embed([`text ${name} ${n++}`], signal()));
      expect(error.code, `${name}: ${error.message}`).toBe(code);
      expect(error.message, name).toMatch(message);
      fake.fault();
      await fake.accept();
    }
    // a 429 with Retry-After: its wait is kept (the HTTP client then asks nothing of the host until it passes)
    fake.fault({ status: 429, retryAfter: 9 });
    const limited = await catalogErrorOf(embedder.embed(['rate limited'], signal()));
    expect(limited.code).toBe('RATE_LIMITED');
    expect(limited.message).toMatch(/rate limiting requests \(HTTP 429: Rate limit reached/);
    expect(limited.retryAfter).toBe(9);
    fake.fault();
    const asked = fake.count();
    const again = await catalogErrorOf(embedder.embed(['rate limited again'], signal()));
    expect(again.code).toBe('RATE_LIMITED');
    expect(again.retryAfter).toBeGreaterThan(0);
    expect(fake.count()).toBe(asked);

    const wrongKey = 'emb-wrong-9a8b7c6d5e4f3a2b1c0d';
    const other = await start({ apiKey: wrongKey });
    const rejected = await catalogErrorOf(other.embedder.embed(['hello'], signal()));
    expect(rejected.code).toBe('EMBEDDINGS_KEY_REJECTED');
    expect(rejected.message).toContain('Incorrect API key provided: [REDACTED]');
    expect(JSON.stringify(rejected.toPayload())).not.toContain(wrongKey);
    const unknown = await start({ model: 'no-such-model' });
    const refused = await catalogErrorOf(unknown.embedder.embed(['hello'], signal()));
    expect(refused.code).toBe('EMBEDDINGS_REQUEST_REFUSED');
    expect(refused.message).toContain('HTTP 404');
    expect(refused.message).toContain('`no-such-model` does not exist');
    // neither key was ever logged
    expect(written.join('\n')).not.toContain(KEY);
    expect(written.join('\n')).not.toContain(wrongKey);
  });

  it('refuses a loopback server unless security.allowPrivateNetwork is set, and says so at start', async () => {
    written.length = 0;
    const { embedder } = await start({}, { security: { allowPrivateNetwork: false } });
    expect(written.join('\n')).toContain('security.allowPrivateNetwork');
    const error = await catalogErrorOf(embedder.embed(['hello'], signal()));
    expect(error.code).toBe('EMBEDDINGS_NOT_ALLOWED');
    expect(error.suggestion).toContain('security.allowPrivateNetwork: true');
    expect(fake.count()).toBe(0);
  });
});

describe('the reranker built on it', () => {
  it("scores candidates by the cosine of the query's vector and theirs, embedding each section once", async () => {
    const { reranker } = await start();
    expect(reranker.id).toBe('openai-embeddings:fake-embed');
    expect(reranker.weight).toBe(0.5);
    const candidates = [
      { id: 'a', text: 'proxies and SOCKS' },
      { id: 'b', text: 'upload a file with multipart' },
      { id: 'c', text: 'timeouts' },
    ];
    const scores = await reranker.rerank('upload file', candidates, signal());
    expect(scores).toHaveLength(3);
    expect(scores[1]).toBeGreaterThan(scores[0] as number);
    expect(scores[1]).toBeGreaterThan(scores[2] as number);
    expect(fake.inputs).toContain('upload a file with multipart');
    const asked = fake.inputs.length;
    // another query over the same sections: only the query is embedded
    await reranker.rerank('proxies', candidates, signal());
    expect(fake.inputs.slice(asked)).toEqual(['proxies']);
  });

  it('binds nothing when enabled is false', async () => {
    const kernel = await createTestKernel({
      plugins: [openAiEmbeddingsPlugin],
      config: { embeddings: { enabled: false, baseUrl: fake.baseUrl, model: 'fake-embed' } },
    });
    kernels.push(kernel);
    expect(kernel.isBound(rerankerToken)).toBe(false);
    expect(kernel.isBound(embedderToken)).toBe(false);
  });
});

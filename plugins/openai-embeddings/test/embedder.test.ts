import { type Embedder, embedderToken, type Reranker, rerankerToken } from '@pro-context/engine/api';
import { type AnyPlugin, definePlugin, type StartedKernel, z } from '@pro-context/kernel';
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

async function start(
  embeddings: Record<string, unknown> = {},
  config: Record<string, unknown> = {},
  others: AnyPlugin[] = [],
) {
  const kernel = await createTestKernel({
    plugins: [...others, openAiEmbeddingsPlugin],
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
/** The fake's `host:port`, which no error may name. */
const host = () => new URL(fake.baseUrl).host;

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
      ['count', () => fake.fault({ json: { data: [] } }), 'EMBEDDINGS_BAD_RESPONSE', /: 0 vectors for 1 text$/],
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
      // a note reaches remote clients: never the server's address
      expect(JSON.stringify(error.toPayload()), name).not.toContain(host());
      fake.fault();
      await fake.accept();
    }
    // a 429 with Retry-After: its wait is kept (the HTTP client then asks nothing of the host until it passes)
    fake.fault({ status: 429, retryAfter: 9 });
    const limited = await catalogErrorOf(embedder.embed(['rate limited'], signal()));
    expect(limited.code).toBe('RATE_LIMITED');
    expect(limited.message).toBe('the embeddings server is rate limiting requests (HTTP 429)');
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
    expect(rejected.message).toBe('the embeddings server refused the API key (HTTP 401)');
    expect(JSON.stringify(rejected.toPayload())).not.toContain(wrongKey);
    expect(JSON.stringify(rejected.toPayload())).not.toContain('Incorrect API key');
    const unknown = await start({ model: 'no-such-model' });
    const refused = await catalogErrorOf(unknown.embedder.embed(['hello'], signal()));
    expect(refused.code).toBe('EMBEDDINGS_REQUEST_REFUSED');
    expect(refused.message).toBe('the embeddings server refused the request (HTTP 404)');
    expect(refused.suggestion).toContain("the server's own message is in pro-context's log");
    // the server's own words are for the operator: in the log, with the server's address
    expect(written.join('\n')).toContain('`no-such-model` does not exist');
    expect(written.join('\n')).toContain(host());
    // neither key was ever logged
    expect(written.join('\n')).not.toContain(KEY);
    expect(written.join('\n')).not.toContain(wrongKey);
  });

  it('says "1 vector", "2 texts", "1 dimension": counts in the right number', async () => {
    const { embedder } = await start();
    fake.fault({ json: { data: [{ index: 0, embedding: [0.5] }] } });
    const count = await catalogErrorOf(embedder.embed(['one', 'two'], signal()));
    expect(count.message).toMatch(/: 1 vector for 2 texts$/);
    fake.fault({ json: { data: [{ index: 0, embedding: [0.5] }] } });
    // the first answer tells the length: 1 dimension
    const first = await embedder.embed(['alone'], signal());
    expect(first[0]).toHaveLength(1);
    fake.fault({ json: { data: [{ index: 0, embedding: [0.5, 0.5] }] } });
    const length = await catalogErrorOf(embedder.embed(['again'], signal()));
    expect(length.message).toMatch(/: 2 dimensions where 1 was given before$/);
  });

  it('keeps whatever a 401 echoes (part of the key, its base64) out of the error: code, fixed sentence, status', async () => {
    const wrongKey = 'emb-echo-1f2e3d4c5b6a79880706';
    const partial = `${wrongKey.slice(0, 7)}****${wrongKey.slice(-4)}`;
    const base64 = Buffer.from(`:${wrongKey}`).toString('base64');
    written.length = 0;
    const { embedder } = await start({ apiKey: wrongKey });
    for (const status of [401, 403]) {
      fake.fault({
        status,
        body: JSON.stringify({
          error: { message: `Incorrect API key provided: ${partial} (Basic ${base64}) at ${fake.baseUrl}`, code: 'x' },
        }),
      });
      const error = await catalogErrorOf(embedder.embed([`echo ${status}`], signal()));
      expect(error.code).toBe('EMBEDDINGS_KEY_REJECTED');
      expect(error.message).toBe(`the embeddings server refused the API key (HTTP ${status})`);
      const payload = JSON.stringify(error.toPayload());
      for (const secret of [partial, wrongKey.slice(-4), base64, host()]) expect(payload).not.toContain(secret);
    }
    // nor in the log: a 401's text is not even logged
    expect(written.join('\n')).not.toContain(partial);
    expect(written.join('\n')).not.toContain(base64);
    // another status's text is logged for the operator, the key and its base64 masked
    fake.fault({
      status: 400,
      body: JSON.stringify({ error: { message: `bad header Basic ${base64} (${wrongKey})` } }),
    });
    expect((await catalogErrorOf(embedder.embed(['echo 400'], signal()))).code).toBe('EMBEDDINGS_REQUEST_REFUSED');
    expect(written.join('\n')).toContain('bad header Basic [REDACTED]');
    expect(written.join('\n')).not.toContain(base64.slice(0, 20));
    expect(written.join('\n')).not.toContain(wrongKey);

    // a proxy echoing the header it got, base64-encoded, or Basic with a user name: the key at another alignment
    for (const prefix of ['Bearer ', 'user:', 'ab:']) {
      const encoded = Buffer.from(`${prefix}${wrongKey}`).toString('base64');
      written.length = 0;
      fake.fault({ status: 500, body: JSON.stringify({ error: { message: `proxy saw ${encoded}` } }), times: 2 });
      expect((await catalogErrorOf(embedder.embed([`echo ${prefix}`], signal()))).code).toBe('EMBEDDINGS_UNAVAILABLE');
      expect(written.join('\n')).toContain('proxy saw');
      // what is left of it encodes a few bytes at either end, not the key
      expect(written.join('\n')).not.toContain(encoded.slice(4, 20));
      expect(written.join('\n')).not.toContain(encoded.slice(-16));
    }
  });

  it('refuses a baseUrl with a user name or password before asking anything, saying so', async () => {
    const withCredentials = fake.baseUrl.replace('http://', 'http://user:hunter2@');
    written.length = 0;
    const { embedder } = await start({ baseUrl: withCredentials });
    const error = await catalogErrorOf(embedder.embed(['hello'], signal()));
    expect(error.code).toBe('EMBEDDINGS_URL_CREDENTIALS');
    expect(error.message).toContain('embeddings.baseUrl holds a user name or password');
    expect(error.suggestion).toContain('PRO_CONTEXT_EMBEDDINGS_API_KEY');
    expect(error.suggestion).not.toContain('allowPrivateNetwork');
    expect(JSON.stringify(error.toPayload())).not.toContain('hunter2');
    expect(fake.count()).toBe(0);
    // said at start too, in the same words
    expect(written.join('\n')).toContain(`EMBEDDINGS_URL_CREDENTIALS: ${error.message}.`);
    expect(written.join('\n')).not.toContain('hunter2');
  });

  it('refuses a redirect that turns the POST into a GET, naming its status; follows a 307', async () => {
    const { embedder } = await start();
    for (const status of [301, 302, 303]) {
      fake.fault({ status, headers: { location: `${fake.baseUrl}/elsewhere` }, body: '' });
      const error = await catalogErrorOf(embedder.embed([`moved ${status}`], signal()));
      expect(error.code, error.message).toBe('EMBEDDINGS_REDIRECTED');
      expect(error.message).toContain(`answered HTTP ${status}, a redirect that turns the POST into a GET`);
      expect(error.message).not.toContain(host());
    }
    // the GET was never sent
    expect(fake.requests.every((r) => r.method === 'POST')).toBe(true);
    // a 307 keeps the method and the body: followed (once, to the same path)
    fake.fault({ status: 307, headers: { location: `${fake.baseUrl}/embeddings` }, body: '', times: 1 });
    expect(await embedder.embed(['kept'], signal())).toHaveLength(1);
    expect(fake.requests.at(-1)?.body).toMatchObject({ input: ['kept'] });
  });

  it('names a 307 to a URL with a user name or password, or not http(s), as such (not as cloud metadata)', async () => {
    const { embedder } = await start();
    const targets = [fake.baseUrl.replace('http://', 'http://user:hunter2@'), 'ftp://files.example/v1/embeddings'];
    for (const location of targets) {
      fake.fault({ status: 307, headers: { location }, body: '', times: 1 });
      const error = await catalogErrorOf(embedder.embed([`to ${location}`], signal()));
      expect(error.code, error.message).toBe('EMBEDDINGS_NOT_ALLOWED');
      expect(error.message).toBe(
        'the embeddings server is redirecting to a URL pro-context never fetches (one with a user name or password, or not http:// or https://), which the network guard refuses',
      );
      expect(error.message).not.toMatch(/link-local|cloud metadata/);
      expect(error.suggestion).toMatch(/without a redirect/);
      const payload = JSON.stringify(error.toPayload());
      for (const secret of ['hunter2', host(), 'files.example']) expect(payload).not.toContain(secret);
    }
    // the redirect was not followed
    expect(fake.count()).toBe(2);
  });

  it("gives up under the engine's interactiveTimeoutMs when timeoutMs is past it, and says so at start", async () => {
    written.length = 0;
    const { embedder, reranker } = await start(
      { timeoutMs: 5000 },
      { engine: { interactiveTimeoutMs: 1000 } },
      // the engine's section as the engine declares it (the plugin reads only interactiveTimeoutMs)
      [
        definePlugin({
          id: 'engine-settings',
          kernel: '^0.1.0',
          configKey: 'engine',
          optionsSchema: z.object({ interactiveTimeoutMs: z.number() }),
          register() {},
        }),
      ],
    );
    expect(reranker.timeoutMs).toBe(750);
    expect(written.join('\n')).toContain(
      'embeddings.timeoutMs (5000 ms) is past engine.interactiveTimeoutMs (1000 ms), how long a tool call waits: get-docs waits for the model 750 ms at most',
    );
    fake.fault({ delayMs: 3000 });
    const error = await catalogErrorOf(embedder.embed(['slow'], signal()));
    expect(error.code).toBe('EMBEDDINGS_TIMEOUT');
    expect(error.message).toBe('the embeddings server did not answer within 750 ms');
  });

  it('refuses a loopback server unless security.allowPrivateNetwork is set, and says so at start', async () => {
    written.length = 0;
    const { embedder } = await start({}, { security: { allowPrivateNetwork: false } });
    expect(written.join('\n')).toContain('security.allowPrivateNetwork');
    const error = await catalogErrorOf(embedder.embed(['hello'], signal()));
    expect(error.code).toBe('EMBEDDINGS_NOT_ALLOWED');
    expect(error.message).toBe(
      'the embeddings server is on this machine or a private network, which the network guard refuses',
    );
    expect(error.suggestion).toContain('security.allowPrivateNetwork in the configuration: a list with its host');
    // the start's warning says it in the same words
    expect(written.join('\n')).toContain(`EMBEDDINGS_NOT_ALLOWED: ${error.message}.`);
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

  it('binds nothing when enabled is false, and then needs neither baseUrl nor model', async () => {
    const bare = await createTestKernel({
      plugins: [openAiEmbeddingsPlugin],
      config: { embeddings: { enabled: false } },
    });
    kernels.push(bare);
    expect(bare.isBound(rerankerToken)).toBe(false);
    // enabled (the default), both are required, each named with its variable and "required"
    const error = await catalogErrorOf(
      createTestKernel({ plugins: [openAiEmbeddingsPlugin], config: { embeddings: { weight: 0.3 } } }),
    );
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toMatch(
      /embeddings\.baseUrl: required: .*Set PRO_CONTEXT_EMBEDDINGS_URL or embeddings\.baseUrl/,
    );
    expect(error.message).toMatch(
      /embeddings\.model: required: .*Set PRO_CONTEXT_EMBEDDINGS_MODEL or embeddings\.model/,
    );
    expect(error.message).not.toContain('expected string, received undefined');
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

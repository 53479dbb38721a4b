import {
  definePlugin,
  KERNEL_VERSION,
  ProContextError,
  type StartedKernel,
  sourceAdapterToken,
} from '@pro-context/kernel';
import { createTestKernel, StaticSourceAdapter } from '@pro-context/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { RERANK_SECTIONS, RERANK_TEXT_CHARS } from '../src/get-docs/rerank.js';
import { docsEngineToken, enginePlugin } from '../src/plugin.js';
import { type RerankCandidate, type Reranker, rerankerToken } from '../src/reranking.js';

const kernels: StartedKernel[] = [];
afterEach(async () => {
  await Promise.all(kernels.splice(0).map((k) => k.stop()));
});

// three sections about uploads; the one the model prefers (it says ZEBRA) matches the topic's words least
const markdown = [
  '# Uploads',
  '',
  '## Upload a file',
  '',
  'To upload a file, pass the file to upload with files=. Each file upload is sent as a file part; upload a file or many.',
  '',
  '## Upload limits',
  '',
  'An upload over the limit is refused: the file upload limit is 10 MB per file.',
  '',
  '## Multipart bodies',
  '',
  'ZEBRA: a multipart/form-data body carries one part per form field; a file upload becomes one of them.',
  '',
].join('\n');

const docs = {
  acme: { pages: [{ url: 'https://docs.acme.test/uploads', title: 'Uploads', markdown }] },
};

/** A model in-process: it scores a section 1 when it says ZEBRA, else 0; or fails as told. */
class ZebraReranker implements Reranker {
  readonly id = 'zebra:test';
  calls: { query: string; candidates: readonly RerankCandidate[] }[] = [];
  fail: (() => Promise<number[]>) | undefined;
  constructor(readonly timeoutMs?: number) {}
  async rerank(query: string, candidates: readonly RerankCandidate[]): Promise<number[]> {
    this.calls.push({ query, candidates });
    if (this.fail) return this.fail();
    return candidates.map((c) => (c.text.includes('ZEBRA') ? 1 : 0));
  }
}

async function engineWith(reranker?: Reranker) {
  const kernel = await createTestKernel({
    plugins: [
      enginePlugin,
      definePlugin({
        id: 'internal-docs',
        kernel: `>=${KERNEL_VERSION}`,
        register: (ctx) => {
          ctx.bindValue(sourceAdapterToken, new StaticSourceAdapter('internal', docs));
          if (reranker) ctx.bindValue(rerankerToken, reranker);
        },
      }),
    ],
    config: { libraries: [{ id: 'acme', name: 'acme', language: 'python', source: 'internal' }] },
  });
  kernels.push(kernel);
  return kernel.resolve(docsEngineToken);
}

const topic = 'how do I upload a file';
/** The heading of the section an answer opens with. */
const firstSection = (content: string) => /^<!-- ([^—]*) —/.exec(content)?.[1]?.trim();

describe('get-docs with a bound Reranker (issue #28, deliverable 7)', () => {
  it('without one, answers lexically; with one, the section the model prefers comes first', async () => {
    const lexical = await engineWith();
    const plain = (await lexical.answerDocs({ libraryId: 'acme', topic, maxTokens: 2000 })).answer;
    expect(firstSection(plain.content)).not.toContain('Multipart');
    expect(plain.notes).toBeUndefined();

    const reranker = new ZebraReranker();
    const engine = await engineWith(reranker);
    const { answer } = await engine.answerDocs({ libraryId: 'acme', topic, maxTokens: 2000 });
    expect(firstSection(answer.content)).toBe('Uploads › Multipart bodies');
    expect(answer.notes).toBeUndefined();
    // the model got the query and the sections (heading path and text, bounded), best lexical first
    const [call] = reranker.calls;
    expect(call?.query).toBe(topic);
    expect(call?.candidates.length).toBeGreaterThanOrEqual(3);
    expect(call?.candidates.length).toBeLessThanOrEqual(RERANK_SECTIONS);
    expect(call?.candidates.every((c) => c.text.length <= RERANK_TEXT_CHARS)).toBe(true);
    expect(call?.candidates.some((c) => c.text.startsWith('Uploads › Multipart bodies'))).toBe(true);
    // the overview (no topic) is a page given from its beginning: not reranked
    await engine.answerDocs({ libraryId: 'acme', topic: '', maxTokens: 2000 });
    expect(reranker.calls).toHaveLength(1);
  });

  it('a failing model leaves the lexical answer and a coded note; that answer is not stored', async () => {
    const reranker = new ZebraReranker();
    const engine = await engineWith(reranker);
    reranker.fail = async () => {
      throw new ProContextError('EMBEDDINGS_UNREACHABLE', 'the embeddings server could not be reached: refused', {
        recoverable: true,
      });
    };
    const failed = (await engine.answerDocs({ libraryId: 'acme', topic, maxTokens: 2000 })).answer;
    expect(firstSection(failed.content)).not.toContain('Multipart');
    expect(failed.notes?.[0]).toMatch(/^EMBEDDINGS_UNREACHABLE: reranking by zebra:test failed \(.*refused\)/);
    // the model is back: the same question is reranked, not answered from a stored lexical answer
    reranker.fail = undefined;
    await engine.idle();
    const back = await engine.answerDocs({ libraryId: 'acme', topic, maxTokens: 2000 });
    expect(firstSection(back.answer.content)).toBe('Uploads › Multipart bodies');
    expect(back.answer.notes).toBeUndefined();
    expect(reranker.calls).toHaveLength(2);
  });

  it('a wrong answer (scores missing or not numbers) is RERANK_INVALID', async () => {
    const reranker = new ZebraReranker();
    const engine = await engineWith(reranker);
    reranker.fail = async () => [1];
    const short = (await engine.answerDocs({ libraryId: 'acme', topic, maxTokens: 2000 })).answer;
    expect(short.notes?.[0]).toMatch(/^RERANK_INVALID: .*gave 1 scores for \d+ sections/);
    reranker.fail = async () => reranker.calls[0]?.candidates.map(() => Number.NaN) ?? [];
    const nan = (await engine.answerDocs({ libraryId: 'acme', topic: `${topic}?`, maxTokens: 2000 })).answer;
    expect(nan.notes?.[0]).toMatch(/^RERANK_INVALID: .*no number \(NaN\)/);
  });

  it('a slow model is given up at its time budget and left alone for a while; a rate limit for its Retry-After', async () => {
    const slow = new ZebraReranker(100);
    const engine = await engineWith(slow);
    // never answers, and ignores the abort
    slow.fail = () => new Promise<number[]>(() => undefined);
    const timedOut = (await engine.answerDocs({ libraryId: 'acme', topic, maxTokens: 2000 })).answer;
    expect(timedOut.notes?.[0]).toMatch(/^RERANK_TIMEOUT: reranking by zebra:test failed \(no answer within 300 ms\)/);
    expect(firstSection(timedOut.content)).not.toContain('Multipart');
    // the next call does not wait on it again
    const skipped = (await engine.answerDocs({ libraryId: 'acme', topic: 'upload limits', maxTokens: 2000 })).answer;
    expect(skipped.notes?.[0]).toMatch(/^RERANK_TIMEOUT: reranking skipped \(.*asked again in \d+ s\)/);
    expect(slow.calls).toHaveLength(1);

    const limited = new ZebraReranker();
    const other = await engineWith(limited);
    limited.fail = async () => {
      throw new ProContextError('RATE_LIMITED', 'the embeddings server is rate limiting requests (HTTP 429)', {
        recoverable: true,
        retryAfter: 7,
      });
    };
    const first = (await other.answerDocs({ libraryId: 'acme', topic, maxTokens: 2000 })).answer;
    expect(first.notes?.[0]).toMatch(/^RATE_LIMITED: reranking by zebra:test failed \(.*HTTP 429\)/);
    const second = (await other.answerDocs({ libraryId: 'acme', topic: 'upload limits', maxTokens: 2000 })).answer;
    expect(second.notes?.[0]).toMatch(/^RATE_LIMITED: reranking skipped \(.*asked again in [67] s\)/);
    expect(limited.calls).toHaveLength(1);
  });
});

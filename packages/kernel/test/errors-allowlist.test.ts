import { describe, expect, it } from 'vitest';
import { createToken, createUrlAllowlist, estimateTokens, ProContextError, toProContextError } from '../src/index.js';

describe('errors', () => {
  it('carry the catalog suggestion, recoverability and retryAfter', () => {
    const error = new ProContextError('INDEXING_IN_PROGRESS', 'Indexing pydantic.', { retryAfter: 4 });
    expect(error.toPayload()).toEqual({
      code: 'INDEXING_IN_PROGRESS',
      message: 'Indexing pydantic.',
      recoverable: true,
      suggestion: 'Try again in 4 seconds.',
      retryAfter: 4,
    });
  });

  it('turn unknown failures into INTERNAL_ERROR without leaking their message', () => {
    const payload = toProContextError(new Error('db password=hunter2 in stack')).toPayload();
    expect(payload.code).toBe('INTERNAL_ERROR');
    expect(payload.message).not.toContain('hunter2');
  });
});

describe('allowlist', () => {
  it('allows hosts, wildcard suffixes and URL prefixes, http(s) only', () => {
    const list = createUrlAllowlist([
      { entry: 'docs.pydantic.dev', reason: 'test' },
      { entry: '*.readthedocs.io', reason: 'test' },
      { entry: 'https://example.com/docs/', reason: 'test' },
    ]);
    expect(list.isAllowed('https://docs.pydantic.dev/latest/x')).toBe(true);
    expect(list.isAllowed('https://httpx.readthedocs.io/en/')).toBe(true);
    expect(list.isAllowed('https://readthedocs.io.evil.com/')).toBe(false);
    expect(list.isAllowed('https://example.com/docs/a')).toBe(true);
    expect(list.isAllowed('https://example.com/admin')).toBe(false);
    expect(list.isAllowed('file:///etc/passwd')).toBe(false);
    expect(list.isAllowed('https://user:pw@docs.pydantic.dev/')).toBe(false);
    list.allowHostsOf(['https://docs.langchain.com/x', 'not a url'], 'llms.txt');
    expect(list.isAllowed('https://docs.langchain.com/other')).toBe(true);
  });
});

describe('tokens and schema', () => {
  it('gives the same symbol for the same id across calls (two installed copies agree)', () => {
    expect(createToken('test.same')).toBe(createToken('test.same'));
    expect(() => createToken('no-dot')).toThrow(/must look like/);
  });

  it('estimates tokens at about four characters each', () => {
    expect(estimateTokens('')).toBe(0);
    expect(estimateTokens('a'.repeat(4000))).toBe(1000);
  });
});

import { describe, expect, it } from 'vitest';
import { createToken, estimateTokens, ProContextError, toProContextError } from '../src/index.js';

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

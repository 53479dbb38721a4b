import { ProContextError } from '@pro-context/kernel';
import { describe, expect, it } from 'vitest';
import { defineMessages, withEnableHint } from '../src/index.js';

describe('defineMessages', () => {
  const messages = defineMessages({
    DOWN: { code: 'SOURCE_UNAVAILABLE', message: 'X is unavailable (HTTP {status}): {detail}' },
    SLOW: {
      code: 'RATE_LIMITED',
      message: 'X rate limit reached: {detail}',
      suggestion: 'Try again after {retryAfter} seconds.',
    },
  });

  it("raises the kernel's code with the filled message, and the catalog's suggestion unless the table has one", () => {
    const down = messages.create('DOWN', { status: 503, detail: 'a {status} in the detail stays as written' });
    expect(down).toBeInstanceOf(ProContextError);
    expect(down.code).toBe('SOURCE_UNAVAILABLE');
    expect(down.message).toBe('X is unavailable (HTTP 503): a {status} in the detail stays as written');
    expect(down.suggestion).toBe('Try again later.');
    const slow = messages.create('SLOW', { detail: 'busy', retryAfter: 30 }, { retryAfter: 30 });
    expect(slow).toMatchObject({ code: 'RATE_LIMITED', suggestion: 'Try again after 30 seconds.', retryAfter: 30 });
  });
});

describe('withEnableHint', () => {
  it('adds the sentence to the message and before the suggestion, keeping the code and the cause', () => {
    const error = new ProContextError('LIBRARY_NOT_FOUND', 'No library matches x. ', { suggestion: 'Check the name.' });
    const hinted = withEnableHint(error, 'Set KEY to answer from Y.');
    expect(hinted.code).toBe('LIBRARY_NOT_FOUND');
    expect(hinted.message).toBe('No library matches x. Set KEY to answer from Y.');
    expect(hinted.suggestion).toBe('Set KEY to answer from Y. Check the name.');
    expect(hinted.cause).toBe(error);
  });
});

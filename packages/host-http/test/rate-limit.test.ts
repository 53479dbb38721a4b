import { describe, expect, it } from 'vitest';
import { TokenBuckets } from '../src/index.js';

describe('TokenBuckets', () => {
  it('starts full, refuses past the burst, refills at maxRequestsPerMinute, and tells when to retry', () => {
    let now = 1_000_000;
    const buckets = new TokenBuckets(() => now);
    const limit = { maxRequestsPerMinute: 60, burstSize: 3 };
    const taken = [1, 2, 3, 4].map(() => buckets.take('k', limit));
    expect(taken.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(taken.map((d) => d.remaining)).toEqual([2, 1, 0, 0]);
    expect(taken[3]?.retryAfter).toBe(1); // one token per second
    expect(taken[3]?.reset).toBe(Math.ceil((now + 3000) / 1000)); // full again in 3 s
    now += 1000;
    expect(buckets.take('k', limit).allowed).toBe(true);
    expect(buckets.take('k', limit).allowed).toBe(false);
    now += 60_000;
    expect(buckets.take('k', limit).remaining).toBe(2); // capped at the burst
    // keys are independent; a slower per-key limit says a longer wait
    const slow = { maxRequestsPerMinute: 2, burstSize: 1 };
    expect(buckets.take('other', slow).allowed).toBe(true);
    expect(buckets.take('other', slow).retryAfter).toBe(30);
  });

  it('charges a cost of several tokens all or none, and says when the whole cost is back', () => {
    let now = 1_000_000;
    const buckets = new TokenBuckets(() => now);
    const limit = { maxRequestsPerMinute: 60, burstSize: 10 };
    expect(buckets.take('k', limit, 4)).toMatchObject({ allowed: true, remaining: 6 });
    const short = buckets.take('k', limit, 7);
    expect(short).toMatchObject({ allowed: false, remaining: 6, retryAfter: 1 }); // 6 of 7: one more second
    now += 1000;
    expect(buckets.take('k', limit, 7)).toMatchObject({ allowed: true, remaining: 0 });
    // a cost above the burst never passes; its wait is the time to a full bucket
    expect(buckets.take('k', limit, 11)).toMatchObject({ allowed: false, retryAfter: 10 });
  });
});

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { errorText, TtlMemo } from '../src/index.js';

describe('TtlMemo', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers a value until its time to live has passed, then forgets it', () => {
    const memo = new TtlMemo<string>({ ttlMs: 1000, max: 10 });
    memo.set('a', 'first');
    vi.advanceTimersByTime(999);
    expect(memo.get('a')).toBe('first');
    vi.advanceTimersByTime(2);
    expect(memo.get('a')).toBeUndefined();
  });

  it('keeps nothing when the time to live is 0 (reuse turned off), and a set may keep a value for less', () => {
    const off = new TtlMemo<string>({ ttlMs: 0, max: 10 });
    off.set('a', 'value');
    expect(off.get('a')).toBeUndefined();
    const memo = new TtlMemo<string>({ ttlMs: 10_000, max: 10 });
    memo.set('short', 'value', 100);
    memo.set('none', 'value', 0);
    expect(memo.get('none')).toBeUndefined();
    vi.advanceTimersByTime(101);
    expect(memo.get('short')).toBeUndefined();
  });

  it('holds at most max values, dropping the least recently used', () => {
    const memo = new TtlMemo<number>({ ttlMs: 60_000, max: 2 });
    memo.set('a', 1);
    memo.set('b', 2);
    memo.get('a');
    memo.set('c', 3);
    expect(memo.get('b')).toBeUndefined();
    expect([...memo.values()].sort()).toEqual([1, 3]);
  });

  it('shares one load between concurrent calls and keeps no failure', async () => {
    const memo = new TtlMemo<Promise<unknown>>({ ttlMs: 60_000, max: 10 });
    let loads = 0;
    const load = async () => {
      loads += 1;
      return 'answer';
    };
    const [one, two] = await Promise.all([memo.remember('k', load), memo.remember('k', load)]);
    expect([one, two, loads]).toEqual(['answer', 'answer', 1]);

    let attempts = 0;
    const failing = async () => {
      attempts += 1;
      throw new Error(`upstream down (${attempts})`);
    };
    await expect(memo.remember('f', failing)).rejects.toThrow('upstream down (1)');
    await expect(memo.remember('f', failing)).rejects.toThrow('upstream down (2)');
  });

  it('drops the values whose keys match', () => {
    const memo = new TtlMemo<string>({ ttlMs: 60_000, max: 10 });
    memo.set('repo@v1|docs', 'a');
    memo.set('repo@v1|site', 'b');
    memo.set('repo@v2|docs', 'c');
    memo.deleteWhere((key) => key.startsWith('repo@v1|'));
    expect([...memo.values()]).toEqual(['c']);
  });
});

describe('errorText', () => {
  it("is an error's message, or the thrown value as text", () => {
    expect(errorText(new TypeError('bad URL'))).toBe('bad URL');
    expect(errorText('plain')).toBe('plain');
    expect(errorText(42)).toBe('42');
  });
});

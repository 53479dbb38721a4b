import { describe, expect, it } from 'vitest';

// issue #25: trailing runs such as `/\/+$/` were retried from every position of a long run (quadratic). The rewrites in
// engine, known-libraries, context7, exa, grounding and pypi try the run only where it starts (`(?<!\/)\/+$`); this
// pins that the rewrite removes exactly what the old pattern removed, and completes on 50,000 repeats.
const pairs: [old: RegExp, linear: RegExp][] = [
  [/\/+$/, /(?<!\/)\/+$/],
  [/^\/+|\/+$/g, /^\/+|(?<!\/)\/+$/g],
];

function* strings(alphabet: string[], count: number, maxLength: number): Generator<string> {
  let seed = 25;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  for (let i = 0; i < count; i++) {
    let s = '';
    const length = rand(maxLength + 1);
    for (let j = 0; j < length; j++) s += alphabet[rand(alphabet.length)];
    yield s;
  }
}

describe('the trailing-slash idiom `(?<!\\/)\\/+$` removes what `\\/+$` removed (issue #25)', () => {
  it('agrees on 10,000 generated URLs', () => {
    for (const s of strings(['/', 'a', ':', '\n', '.'], 10_000, 12))
      for (const [old, linear] of pairs) expect(s.replace(linear, ''), JSON.stringify(s)).toBe(s.replace(old, ''));
  });

  it('completes on 50,000 slashes before a non-slash, and strips 50,000 trailing ones', () => {
    const hostile = `https://x.dev${'/'.repeat(50_000)}x`;
    for (const [, linear] of pairs) expect(hostile.replace(linear, '')).toBe(hostile.replace(/^\/+/, ''));
    expect(`https://x.dev/${'/'.repeat(50_000)}`.replace(/(?<!\/)\/+$/, '')).toBe('https://x.dev');
  });
});

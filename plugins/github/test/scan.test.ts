import { describe, expect, it } from 'vitest';
import {
  codeIncludeTargets,
  directiveOf,
  hyperlinksAsMarkdown,
  isAdornment,
  markdownIncludeTargets,
  referencesAsText,
  replaceClosingColons,
  replaceRoles,
  trimPathSlashes,
  trimTrailingSlashes,
} from '../src/scan.js';

/** Random strings over the characters the replaced regexes care about (seeded: the same cases on every run). */
function* samples(alphabet: string[], count: number, maxLength = 12): Generator<string> {
  let seed = 25;
  const next = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  for (let n = 0; n < count; n++) {
    const len = Math.floor(next() * maxLength);
    let s = '';
    for (let i = 0; i < len; i++) s += alphabet[Math.floor(next() * alphabet.length)];
    yield s;
  }
}

const DIRECTIVE = /^(\s*)\.\.\s+([\w:-]+)::\s*(.*)$/;

describe('linear scans give what the regexes they replace gave', () => {
  it('trimTrailingSlashes and trimPathSlashes', () => {
    for (const s of samples(['/', '.', 'a', '\n'], 5000)) {
      expect(trimTrailingSlashes(s)).toBe(s.replace(/\/+$/, ''));
      expect(trimPathSlashes(s), JSON.stringify(s)).toBe(s.replace(/^\.?\/+|\/+$/g, ''));
    }
  });

  it('codeIncludeTargets and markdownIncludeTargets', () => {
    const parts = ['{*', '*}', '{!', '!}', '>', ' ', '\t', 'a', '*', '!', '\n', '\r', '\u2028', '\u00a0', '\v'];
    for (const s of samples(parts, 30_000, 10)) {
      const label = JSON.stringify(s);
      expect(codeIncludeTargets(s), label).toEqual(
        [...s.matchAll(/^[ \t]*\{\*[ \t]*(\S+).*?\*\}[ \t]*$/gm)].map((m) => m[1]),
      );
      expect(markdownIncludeTargets(s), label).toEqual(
        [...s.matchAll(/^[ \t]*\{!>?[ \t]*(.+?)[ \t]*!\}[ \t]*$/gm)].map((m) => m[1]),
      );
    }
  });

  it('isAdornment, directiveOf and replaceClosingColons', () => {
    const parts = ['=', '-', '.', '..', ' ', ':', '::', 'a', '\u2028', '\t', '\u00a0', '~'];
    for (const s of samples(parts, 30_000)) {
      const label = JSON.stringify(s);
      expect(isAdornment(s), label).toBe(/^([=\-`:'"~^_*+#<>.])\1{2,}\s*$/.test(s));
      const m = DIRECTIVE.exec(s);
      expect(directiveOf(s), label).toEqual(m ? { indent: m[1], name: m[2], argument: m[3] } : undefined);
      if (/::\s*$/.test(s)) expect(replaceClosingColons(s, ':'), label).toBe(s.replace(/\s*::\s*$/, ':'));
    }
  });

  it('replaceRoles, hyperlinksAsMarkdown and referencesAsText', () => {
    const role = (label: string, target?: string) => `<${label}|${target}>`;
    const chars = [':', 'a', '`', '~', '<', '>', ' ', 'http:', 'https:', '_', '.', '-', '\u2028'];
    // tokens too, so that roles with targets and hyperlinks occur (hundreds of each)
    const tokens = [':r:`', '`', '~', '<', '<https://x', '<http:', '>', '>`', '>`_', '__', ' ', 'a', ':'];
    for (const s of [...samples(chars, 20_000, 14), ...samples(tokens, 30_000, 8)]) {
      const label = JSON.stringify(s);
      expect(replaceRoles(s, role), label).toBe(
        s.replace(/:[\w:.-]+:`~?([^`<]*?)(?:\s*<([^>]+)>)?`/g, (_m, l: string, t?: string) => role(l, t)),
      );
      expect(hyperlinksAsMarkdown(s), label).toBe(s.replace(/`([^`<]+?)\s*<(https?:[^>]+)>`__?/g, '[$1]($2)'));
      expect(referencesAsText(s), label).toBe(s.replace(/`([^`]+)`__?(?=\W|$)/g, '$1'));
    }
  });

  it('finishes on inputs that made the regexes backtrack for long (50,000 repeats)', () => {
    const n = 50_000;
    expect(trimTrailingSlashes(`${'/'.repeat(n)}x`)).toBe(`${'/'.repeat(n)}x`);
    expect(trimPathSlashes(`a${'/'.repeat(n)}x/`)).toBe(`a${'/'.repeat(n)}x`);
    expect(codeIncludeTargets(`{* ${'a'.repeat(n)}`)).toEqual([]);
    expect(codeIncludeTargets(`{* a ${'*} '.repeat(n)}x`)).toEqual([]);
    expect(markdownIncludeTargets(`{! a${' '.repeat(n)}!`)).toEqual([]);
    expect(isAdornment(`==${' '.repeat(n)}x`)).toBe(false);
    expect(directiveOf(`.. ${'::'.repeat(n)}a\u2028`)).toBeUndefined();
    expect(directiveOf(`.. note${'::'.repeat(n)} x`)).toEqual({
      indent: '',
      name: `note${'::'.repeat(n - 1)}`,
      argument: 'x',
    });
    expect(replaceClosingColons(`a${' '.repeat(n)}::`, ':')).toBe('a:');
    const roles = `:a:\`${'x '.repeat(n)}<`;
    expect(replaceRoles(roles, () => '')).toBe(roles);
    expect(replaceRoles(`${':'.repeat(n)}x`, () => '')).toBe(`${':'.repeat(n)}x`);
    const links = `${'`a <'.repeat(n)}`;
    expect(hyperlinksAsMarkdown(links)).toBe(links);
    expect(referencesAsText(`${'`a`_b'.repeat(n)}`)).toBe(`${'`a`_b'.repeat(n)}`);
  });
});

import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { check, type Diagnostics } from 'recheck';
import { describe, expect, it } from 'vitest';
import { type RegexLiteral, regexLiterals } from '../src/regex-literals.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const allowListFile = fileURLToPath(new URL('../redos-allowlist.json', import.meta.url));

/**
 * An allowed super-linear literal: where, the pattern exactly as written, and either why its input is bounded
 * (`bounded`) or, for known debt not rewritten yet, why it is listed (`pending`: reported on every run).
 */
interface Allowed {
  file: string;
  pattern: string;
  complexity: string;
  bounded?: string;
  pending?: string;
}

const allowList = JSON.parse(readFileSync(allowListFile, 'utf8')) as { allowed: Allowed[] };

/**
 * Verdicts cache: the literals (`/source/flags`, exactly as written) recheck found safe, with the recheck version that
 * said so. A literal in it is not checked again; any other literal (new, or changed by one character) is. Keyed by the
 * literal alone, not its file: a safe pattern is safe wherever it is. A cache written by another recheck version is
 * ignored. `REDOS_UPDATE=1` re-checks every literal and rewrites the file with the safe ones that exist today.
 */
interface Verdicts {
  $comment: string;
  recheck: string;
  safe: string[];
}
const verdictsFile = fileURLToPath(new URL('../redos-verdicts.json', import.meta.url));
const recheckVersion = (createRequire(import.meta.url)('recheck/package.json') as { version: string }).version;
const update = process.env.REDOS_UPDATE === '1';
function cachedSafe(): Set<string> {
  if (update) return new Set();
  try {
    const v = JSON.parse(readFileSync(verdictsFile, 'utf8')) as Verdicts;
    return v.recheck === recheckVersion ? new Set(v.safe) : new Set();
  } catch {
    return new Set();
  }
}
const keyOf = (file: string, pattern: string): string => `${file}\u0000${pattern}`;
const allowed = new Map(allowList.allowed.map((a) => [keyOf(a.file, a.pattern), a]));
const literal = (l: RegexLiteral): string => `/${l.source}/${l.flags}`;

function complexity(d: Diagnostics): string {
  if (d.status === 'unknown') return `unknown (${d.error.kind})`;
  const c = d.complexity;
  return c.type === 'polynomial' ? `polynomial ${c.degree}` : c.type;
}

describe('every regex literal of packages/*/src and plugins/*/src runs in linear time (recheck)', () => {
  const literals = regexLiterals(root);

  it('finds the literals (the TypeScript parser reads every source file)', () => {
    expect(literals.length).toBeGreaterThan(500);
  });

  it('has no super-linear literal that the allow-list does not account for', async () => {
    const cached = cachedSafe();
    const toCheck = literals.filter((l) => !allowed.has(keyOf(l.file, literal(l))) && !cached.has(literal(l)));
    const safe = new Set(literals.map(literal).filter((p) => cached.has(p)));
    const found: string[] = [];
    const undecided: string[] = [];
    // One at a time (recheck's time limits are wall-clock: run together, they time out). The attack search is
    // seeded (recheck's default seed), so a verdict is the same on every run; a pattern recheck cannot decide within
    // its limits is reported, not failed (that depends on the machine's load).
    for (const l of toCheck) {
      const d = await check(l.source, l.flags, { timeout: 30_000 });
      if (d.status === 'safe') {
        safe.add(literal(l));
        continue;
      }
      if (d.status === 'unknown') {
        undecided.push(`${l.file}:${l.line} ${literal(l)} (${complexity(d)})`);
        continue;
      }
      found.push(`${l.file}:${l.line} ${literal(l)} is ${complexity(d)} — attack: ${d.attack.pattern}`);
    }
    if (update) {
      const verdicts: Verdicts = {
        $comment:
          'Regex literals recheck found safe (linear), exactly as written: the ReDoS test skips these and checks any other literal. Written by REDOS_UPDATE=1 (see README.md); never edit by hand.',
        recheck: recheckVersion,
        safe: [...safe].sort(),
      };
      writeFileSync(verdictsFile, `${JSON.stringify(verdicts, null, 2)}\n`);
    }
    if (undecided.length)
      console.warn(`recheck could not decide ${undecided.length} pattern(s):\n${undecided.join('\n')}`);
    const pending = allowList.allowed.filter((a) => a.pending);
    if (pending.length)
      console.warn(`${pending.length} super-linear pattern(s) are known debt (pending in redos-allowlist.json)`);
    expect(found, 'rewrite these in linear time, or bound their input and add them to redos-allowlist.json').toEqual(
      [],
    );
  }, 600_000);

  it('lists only literals that exist (a rewritten or removed pattern leaves the allow-list)', () => {
    const present = new Set(literals.map((l) => keyOf(l.file, literal(l))));
    const stale = allowList.allowed.filter((a) => !present.has(keyOf(a.file, a.pattern)));
    expect(stale.map((a) => `${a.file} ${a.pattern}`)).toEqual([]);
  });

  it('says for each allowed literal why its input is bounded, or that it is known debt', () => {
    const unexplained = allowList.allowed.filter(
      (a) =>
        (a.bounded === undefined) === (a.pending === undefined) || (a.bounded ?? a.pending ?? '').trim().length < 20,
    );
    expect(unexplained.map((a) => `${a.file} ${a.pattern}`)).toEqual([]);
  });
});

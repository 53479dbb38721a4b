import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/** One regex literal of the sources: where it is, its pattern and flags. */
export interface RegexLiteral {
  /** Path from the repository root, with `/`. */
  readonly file: string;
  /** 1-based line of the literal. */
  readonly line: number;
  readonly source: string;
  readonly flags: string;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(?:ts|tsx|mts|cts)$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/**
 * Every regex literal (`/…/flags`) of `packages/*\/src` and `plugins/*\/src` under `root`, read with the
 * TypeScript compiler's scanner-backed parser (so a `/` in a string, a comment or a division is never taken for one).
 */
export function regexLiterals(root: string): RegexLiteral[] {
  const literals: RegexLiteral[] = [];
  for (const group of ['packages', 'plugins']) {
    for (const pkg of readdirSync(join(root, group))) {
      const src = join(root, group, pkg, 'src');
      try {
        if (!statSync(src).isDirectory()) continue;
      } catch {
        continue;
      }
      for (const path of sourceFiles(src)) {
        const text = readFileSync(path, 'utf8');
        const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
        const visit = (node: ts.Node): void => {
          if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
            const raw = (node as ts.RegularExpressionLiteral).text;
            const end = raw.lastIndexOf('/');
            literals.push({
              file: relative(root, path).split('\\').join('/'),
              line: file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1,
              source: raw.slice(1, end),
              flags: raw.slice(end + 1),
            });
          }
          ts.forEachChild(node, visit);
        };
        visit(file);
      }
    }
  }
  return literals;
}

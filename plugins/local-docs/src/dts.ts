import { readFile, stat } from 'node:fs/promises';
import { posix } from 'node:path';
import type * as TS from 'typescript';
import { confinedPath } from './paths.js';
import { jsdocTag, linksAsCode } from './scan.js';

type Ts = typeof TS;
let loading: Promise<Ts> | undefined;

/** The TypeScript compiler, loaded on the first `.d.ts` rendered (it is large: start-up never pays for it). */
function typescript(): Promise<Ts> {
  loading ??= import('typescript').then((m) => (m as unknown as { default?: Ts }).default ?? (m as unknown as Ts));
  return loading;
}

/** Bounds of the walk through re-exports. */
const MAX_FILES = 50;

/** One exported declaration. */
interface Entry {
  group: string;
  name: string;
  signature: string;
  doc: string;
  members: { name: string; signature: string; doc: string }[];
}

const GROUPS = ['Functions', 'Classes', 'Interfaces', 'Types', 'Enums', 'Variables', 'Namespaces'];

/** A JSDoc comment as markdown: the text, then `@param`/`@returns`/`@deprecated`… as a list, `@example` kept. */
function jsDocOf(ts: Ts, node: TS.Node, source: TS.SourceFile): string {
  const ranges = ts.getLeadingCommentRanges(source.text, node.getFullStart()) ?? [];
  const last = [...ranges].reverse().find((r) => source.text.slice(r.pos, r.pos + 3) === '/**');
  if (!last) return '';
  const raw = source.text
    .slice(last.pos + 3, last.end - 2)
    .split('\n')
    .map((l) => l.replace(/^\s*\* ?/, ''))
    .join('\n')
    .trim();
  const text: string[] = [];
  const tags: string[] = [];
  const examples: string[][] = [];
  let current: string[] = text;
  for (const line of linksAsCode(raw).split('\n')) {
    const tag = jsdocTag(line);
    if (!tag) {
      current.push(line);
      continue;
    }
    if (tag.name === 'example') {
      current = [];
      examples.push(current);
      if (tag.text) current.push(tag.text);
      continue;
    }
    current = tags;
    const [name, ...rest] = tag.text.split(/\s+/);
    if (tag.name === 'param' && name)
      tags.push(`- \`${name}\`${rest.length ? ` — ${rest.join(' ').replace(/^- /, '')}` : ''}`);
    else tags.push(`- **@${tag.name}**${tag.text ? ` ${tag.text}` : ''}`);
  }
  const blocks = [text.join('\n').trim(), tags.join('\n').trim()];
  for (const example of examples) {
    const code = example.join('\n').trim();
    // an example is code: fenced as TypeScript unless it brings its own fences
    blocks.push(`**Example**\n\n${code.includes('```') ? code : `\`\`\`ts\n${code}\n\`\`\``}`);
  }
  return blocks.filter((b) => b).join('\n\n');
}

const isExported = (ts: Ts, node: TS.Node) =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/** The declarations of one `.d.ts`, and the relative modules it re-exports from. */
function declarationsOf(ts: Ts, source: TS.SourceFile): { entries: Entry[]; reexports: string[] } {
  const printer = ts.createPrinter({ removeComments: true });
  const print = (node: TS.Node) => printer.printNode(ts.EmitHint.Unspecified, node, source).trim();
  const hasExports = source.statements.some(
    (s) => isExported(ts, s) || ts.isExportDeclaration(s) || ts.isExportAssignment(s),
  );
  const entries: Entry[] = [];
  const reexports: string[] = [];
  const visit = (statements: readonly TS.Statement[], prefix: string, all: boolean) => {
    for (const node of statements) {
      if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
        if (node.moduleSpecifier.text.startsWith('.')) reexports.push(node.moduleSpecifier.text);
        continue;
      }
      if (!all && !isExported(ts, node)) continue;
      const doc = jsDocOf(ts, node, source);
      const named = (group: string, name: string, members: Entry['members'] = [], signature = print(node)) =>
        entries.push({ group, name: `${prefix}${name}`, signature, doc, members });
      if (ts.isFunctionDeclaration(node) && node.name) named('Functions', node.name.text);
      else if ((ts.isClassDeclaration(node) || ts.isInterfaceDeclaration(node)) && node.name) {
        const members: Entry['members'] = [];
        for (const member of node.members) {
          const memberDoc = jsDocOf(ts, member, source);
          if (!memberDoc) continue;
          const name =
            member.name && ts.isIdentifier(member.name)
              ? member.name.text
              : ts.isConstructorDeclaration(member)
                ? 'constructor'
                : undefined;
          if (name) members.push({ name, signature: print(member), doc: memberDoc });
        }
        named(ts.isClassDeclaration(node) ? 'Classes' : 'Interfaces', node.name.text, members);
      } else if (ts.isTypeAliasDeclaration(node)) named('Types', node.name.text);
      else if (ts.isEnumDeclaration(node)) named('Enums', node.name.text);
      else if (ts.isVariableStatement(node))
        for (const d of node.declarationList.declarations) {
          if (ts.isIdentifier(d.name)) named('Variables', d.name.text);
        }
      else if (ts.isModuleDeclaration(node) && node.body && ts.isModuleBlock(node.body)) {
        const name = node.name.getText(source);
        visit(node.body.statements, `${prefix}${name}.`, true);
      }
    }
  };
  visit(source.statements, '', !hasExports);
  return { entries, reexports };
}

/** The `.d.ts` a relative module specifier names from `fromRel` (`./a` → `a.d.ts` or `a/index.d.ts`). */
async function resolveModule(root: string, fromRel: string, specifier: string): Promise<string | undefined> {
  const base = posix.join(posix.dirname(fromRel), specifier).replace(/\.(m|c)?js$/, '');
  for (const candidate of [`${base}.d.ts`, `${base}.d.mts`, `${base}.d.cts`, `${base}/index.d.ts`, base]) {
    try {
      const s = await stat(await confinedPath(root, candidate));
      if (s.isFile()) return candidate;
    } catch {
      // not this one (or outside the package: never followed)
    }
  }
  return undefined;
}

/**
 * The API surface of a package's `.d.ts` entry as one markdown reference page: exported functions, classes,
 * interfaces, types, enums, variables and namespaces, each with its declaration and its JSDoc, following the
 * entry's relative re-exports (`export * from './x'`) inside the package.
 */
export async function renderDts(root: string, entry: string, heading: string, maxFileBytes: number): Promise<string> {
  const ts = await typescript();
  const queue = [entry];
  const seen = new Set<string>();
  const entries: Entry[] = [];
  while (queue.length > 0 && seen.size < MAX_FILES) {
    const rel = queue.shift() as string;
    if (seen.has(rel)) continue;
    seen.add(rel);
    const absolute = await confinedPath(root, rel);
    if ((await stat(absolute)).size > maxFileBytes) continue;
    const source = ts.createSourceFile(rel, await readFile(absolute, 'utf8'), ts.ScriptTarget.Latest, true);
    const found = declarationsOf(ts, source);
    entries.push(...found.entries);
    for (const specifier of found.reexports) {
      const next = await resolveModule(root, rel, specifier);
      if (next && !seen.has(next)) queue.push(next);
    }
  }
  const lines = [`# ${heading}`, '', `Generated from the type declarations (\`${entry}\`) of the installed package.`];
  const byName = new Set<string>();
  for (const group of GROUPS) {
    const items = entries.filter((e) => e.group === group && !byName.has(`${group}:${e.name}`));
    if (items.length === 0) continue;
    lines.push('', `## ${group}`);
    for (const item of items) {
      // overloads: one heading, every signature
      if (byName.has(`${group}:${item.name}`)) continue;
      byName.add(`${group}:${item.name}`);
      const same = entries.filter((e) => e.group === group && e.name === item.name);
      lines.push('', `### ${item.name}`, '', '```ts', ...same.map((e) => e.signature), '```');
      const doc = same.map((e) => e.doc).find((d) => d);
      if (doc) lines.push('', doc);
      for (const member of item.members) {
        lines.push('', `#### ${item.name}.${member.name}`, '', '```ts', member.signature, '```', '', member.doc);
      }
    }
  }
  if (entries.length === 0) lines.push('', 'The declarations export nothing this reference can list.');
  return `${lines.join('\n')}\n`;
}

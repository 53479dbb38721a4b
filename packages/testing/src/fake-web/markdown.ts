// Small markdown helpers for the fake web: front matter, page titles and mdx_include expansion.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const FRONT_MATTER = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---\r?\n?/;

/** Top-level scalar keys of a page's YAML front matter (only `key: value` lines). */
export function frontMatter(markdown: string): Record<string, string> {
  const m = FRONT_MATTER.exec(markdown);
  const out: Record<string, string> = {};
  if (!m?.[1]) return out;
  for (const line of m[1].split(/\r?\n/)) {
    const kv = /^([A-Za-z_][\w-]*):\s*(.+)$/.exec(line);
    if (!kv?.[1] || !kv[2]) continue;
    let v = kv[2].trim();
    if ((v.startsWith('"') && v.endsWith('"')) || (v.startsWith("'") && v.endsWith("'"))) v = v.slice(1, -1);
    out[kv[1]] = v;
  }
  return out;
}

/** The first level-1 heading outside fenced code, without mkdocs attribute lists (`{ #id }`). */
export function firstH1(markdown: string): string | undefined {
  let fence: string | undefined;
  for (const line of markdown.replace(FRONT_MATTER, '').split(/\r?\n/)) {
    const f = /^\s*(```+|~~~+)/.exec(line);
    if (f?.[1]) {
      if (!fence) fence = f[1];
      else if (line.trim().startsWith(fence)) fence = undefined;
      continue;
    }
    if (fence) continue;
    const h = /^#\s+(.+?)\s*#*\s*$/.exec(line);
    if (h?.[1]) {
      const title = h[1].replace(/\s*\{[^}]*\}\s*$/, '').trim();
      if (title) return title;
    }
  }
  return undefined;
}

/** Title of a page: front matter `title`, else first H1, else the file name made readable. */
export function pageTitle(markdown: string, file: string): string {
  const fm = frontMatter(markdown).title;
  if (fm) return fm.split(' | ')[0]?.trim() || fm;
  const h1 = firstH1(markdown);
  if (h1) return h1;
  const base = path.posix.basename(file).replace(/\.mdx?$/, '');
  const name = base === 'index' ? path.posix.basename(path.posix.dirname(file)) || 'Home' : base;
  return name.replace(/[-_]+/g, ' ').replace(/^\w/, (c) => c.toUpperCase());
}

const LANG_BY_EXT: Record<string, string> = {
  '.py': 'python',
  '.js': 'javascript',
  '.ts': 'typescript',
  '.html': 'html',
  '.css': 'css',
  '.json': 'json',
  '.toml': 'toml',
  '.yaml': 'yaml',
  '.yml': 'yaml',
  '.sh': 'bash',
};

/**
 * The lines an `ln[14:18]` / `ln[1:3,10:12]` option selects (1-based, inclusive), with an omission marker
 * between ranges, as FastAPI's docs build renders them; the whole file without the option.
 */
function selectLines(content: string, options: string): string {
  const spec = /\bln\[([\d:,\s]+)\]/.exec(options)?.[1];
  if (!spec) return content;
  const lines = content.split('\n');
  const parts: string[] = [];
  for (const range of spec.split(',')) {
    const [from, to] = range.split(':').map((n) => Number(n.trim()));
    if (!from) continue;
    parts.push(lines.slice(from - 1, to ?? from).join('\n'));
  }
  return parts.length > 0 ? parts.join('\n\n# Code omitted...\n\n') : content;
}

/**
 * Expand mdx_include directives the way the real site build does: `{* path opts *}` becomes a fenced code
 * block with the file's content (the lines of an `ln[…]` option only; highlights ignored), `{!path!}` / `{!> path!}` the raw
 * content. Paths resolve against `baseDir` (the folder mkdocs runs in); a missing file leaves the directive.
 */
export function expandIncludes(markdown: string, baseDir: string, rootDir: string): string {
  const read = (rel: string): string | undefined => {
    const abs = path.resolve(baseDir, rel);
    // Stay inside the corpus: directives are data, not a way to read the machine.
    if (!abs.startsWith(rootDir + path.sep) || !existsSync(abs)) return undefined;
    return readFileSync(abs, 'utf8');
  };
  return markdown
    .replace(/^\{\*\s*(\S+)([^\n]*?)\*\}[ \t]*$/gm, (whole, rel: string, options: string) => {
      const content = read(rel);
      if (content === undefined) return whole;
      const lang = LANG_BY_EXT[path.extname(rel)] ?? '';
      return `\`\`\`${lang}\n${selectLines(content.replace(/\s+$/, ''), options)}\n\`\`\``;
    })
    .replace(/^\{!>?\s*([^!\s]+)\s*!\}[ \t]*$/gm, (whole, rel: string) => {
      const content = read(rel);
      return content === undefined ? whole : content.replace(/\s+$/, '');
    });
}

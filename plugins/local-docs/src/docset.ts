import { createHash } from 'node:crypto';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { basename, extname, isAbsolute, join, posix, resolve } from 'node:path';
import type { DocPage, TocEntry } from '@pro-context/kernel';
import { createSlugger, headingPlainText, parseLlmsTxt, splitFrontMatter, walkLines } from '@pro-context/markdown';
import { confinedPath, isInside, realRootOf } from './paths.js';
import { localUrl, type RootKind } from './urls.js';

/** Markdown file extensions read from folders. */
const MARKDOWN = new Set(['.md', '.mdx', '.markdown']);
/** Folders never walked. */
const SKIPPED_DIRS = new Set(['node_modules', '__pycache__']);

/** Bounds of one read. */
/** Why a file past `maxFiles` was left out (the reason of its {@link Listing.skipped} entry). */
export function overMaxFiles(maxFiles: number): string {
  return `more than ${maxFiles} files (maxFiles)`;
}

export interface ReadLimits {
  maxFiles: number;
  maxFileBytes: number;
}

/** Where a set of local documents is, and how it is laid out. */
export type DocSetSpec =
  /** A folder of markdown, read recursively. */
  | { layout: 'folder'; kind: RootKind; key: string; root: string }
  /** One markdown file (`file` relative to `root`, its folder). */
  | { layout: 'file'; kind: RootKind; key: string; root: string; file: string }
  /** A local llms.txt: the local files it links to (relative links), read from its folder. */
  | { layout: 'llms-txt'; kind: RootKind; key: string; root: string; file: string }
  /** An installed npm package: README, docs/**, and the API of its `.d.ts` entry. */
  | { layout: 'npm'; kind: 'npm'; key: string; root: string; version: string; types?: string }
  /** An installed Python distribution: the long description in its `*.dist-info/METADATA`. */
  | { layout: 'pypi'; kind: 'pypi'; key: string; root: string; version: string };

/** One file of a doc set: its path in the root and what it is. */
export interface DocFile {
  rel: string;
  role: 'page' | 'api' | 'metadata';
  section?: string;
  /** A title given by an llms.txt link. */
  title?: string;
  description?: string;
}

/** A doc set as listed: its files, and what was left out and why. */
export interface Listing {
  files: DocFile[];
  /** TOC entries pointing elsewhere (an llms.txt's absolute links). */
  external: TocEntry[];
  title?: string;
  summary?: string;
  skipped: { url: string; reason: string }[];
}

/** Renders a page from a file that is not markdown (a `.d.ts`, a METADATA file). */
export type Renderer = (
  spec: DocSetSpec,
  file: DocFile,
  absolute: string,
) => Promise<{ title: string; markdown: string }>;

const toPosix = (p: string) => p.split('\\').join('/');

/** A file or folder name as a title (`getting-started.md` → `Getting started`). */
export function humanize(name: string): string {
  const stem = name
    .replace(/\.(md|mdx|markdown|txt)$/i, '')
    .replace(/[-_]+/g, ' ')
    .trim();
  return stem ? stem.charAt(0).toUpperCase() + stem.slice(1) : name;
}

/** A markdown page's title: front matter `title`, else its first H1, else `fallback`. */
export function titleOf(markdown: string, fallback: string): string {
  const front = splitFrontMatter(markdown);
  if (front.title) return front.title;
  let h1: string | undefined;
  walkLines(front.body.split('\n'), (_line, _i, heading) => {
    if (heading?.level === '#') {
      h1 = headingPlainText(heading.raw).trim();
      return false;
    }
    return undefined;
  });
  return h1 || fallback;
}

/** The `##` headings of a page, with the anchors read-page and the chunker give them. */
export function sectionsOf(markdown: string): { title: string; anchor: string }[] {
  const slugger = createSlugger();
  const out: { title: string; anchor: string }[] = [];
  walkLines(splitFrontMatter(markdown).body.split('\n'), (_line, _i, heading) => {
    if (!heading) return;
    const text = headingPlainText(heading.raw).trim();
    const anchor = slugger.slug(text);
    if (heading.level === '##' && text) out.push({ title: text, anchor });
  });
  return out;
}

/** Markdown files under `dir` (relative to `root`, `/`-separated), sorted, symbolic links confined to `root`. */
async function walkMarkdown(
  root: string,
  dir: string,
  limits: ReadLimits,
  skipped: Listing['skipped'],
  urlOf: (rel: string) => string,
): Promise<string[]> {
  const realRoot = await realRootOf(root);
  const found: string[] = [];
  const seen = new Set<string>();
  const walk = async (rel: string): Promise<void> => {
    const absolute = join(realRoot, rel);
    let real: string;
    try {
      real = await realpath(absolute);
    } catch {
      return;
    }
    if (!isInside(realRoot, real)) {
      skipped.push({ url: urlOf(rel), reason: 'a symbolic link leading out of the folder (refused)' });
      return;
    }
    if (seen.has(real)) return;
    seen.add(real);
    const entries = await readdir(real, { withFileTypes: true }).catch(() => []);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const dirs: string[] = [];
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      let isDir = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        try {
          const target = await realpath(join(real, entry.name));
          if (!isInside(realRoot, target)) {
            skipped.push({ url: urlOf(childRel), reason: 'a symbolic link leading out of the folder (refused)' });
            continue;
          }
          const s = await stat(target);
          isDir = s.isDirectory();
          isFile = s.isFile();
        } catch {
          continue;
        }
      }
      if (isDir && !SKIPPED_DIRS.has(entry.name)) dirs.push(childRel);
      else if (isFile && MARKDOWN.has(extname(entry.name).toLowerCase())) {
        if (found.length >= limits.maxFiles) {
          skipped.push({ url: urlOf(childRel), reason: overMaxFiles(limits.maxFiles) });
          continue;
        }
        found.push(childRel);
      }
    }
    for (const d of dirs) await walk(d);
  };
  await walk(toPosix(dir));
  // README / index first within each folder level is already given by the walk order: files before subfolders
  return found.sort((a, b) => depth(a) - depth(b) || rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

const depth = (rel: string) => rel.split('/').length;
const rank = (rel: string) => (/^(readme|index)\.(md|mdx|markdown)$/i.test(posix.basename(rel)) ? 0 : 1);

/** The files a doc set is made of, without reading them (for the TOC, the docs, and freshness). */
export async function listDocSet(spec: DocSetSpec, limits: ReadLimits): Promise<Listing> {
  const skipped: Listing['skipped'] = [];
  const urlOf = (rel: string) => localUrl(spec.kind, spec.key, rel);
  switch (spec.layout) {
    case 'folder': {
      const files = await walkMarkdown(spec.root, '', limits, skipped, urlOf);
      return {
        files: files.map((rel) => {
          const parts = rel.split('/');
          return { rel, role: 'page', ...(parts.length > 1 ? { section: humanize(parts[0] as string) } : {}) };
        }),
        external: [],
        skipped,
      };
    }
    case 'file':
      await confinedPath(spec.root, spec.file);
      return { files: [{ rel: spec.file, role: 'page' }], external: [], skipped };
    case 'llms-txt': {
      const text = await readFile(await confinedPath(spec.root, spec.file), 'utf8');
      const base = urlOf(posix.dirname(spec.file) === '.' ? '' : `${posix.dirname(spec.file)}/`);
      const parsed = parseLlmsTxt(text, base.endsWith('/') ? base : `${base}/`);
      const files: DocFile[] = [];
      const external: TocEntry[] = [];
      const prefix = urlOf('');
      for (const entry of parsed.entries) {
        if (!entry.url.startsWith(prefix)) {
          // a relative link climbing out of the folder resolves to another local URL: refused, not listed
          if (new URL(entry.url).hostname === new URL(prefix).hostname)
            skipped.push({ url: entry.url, reason: 'a link leading out of the folder (refused)' });
          else external.push(entry);
          continue;
        }
        const rel = decodeURIComponent(new URL(entry.url).pathname.slice(new URL(prefix).pathname.length));
        files.push({
          rel,
          role: 'page',
          title: entry.title,
          ...(entry.section ? { section: entry.section } : {}),
          ...(entry.description ? { description: entry.description } : {}),
        });
      }
      // an llms.txt that links to nothing local is itself the page
      if (files.length === 0) files.push({ rel: spec.file, role: 'page' });
      return {
        files,
        external,
        ...(parsed.title ? { title: parsed.title } : {}),
        ...(parsed.summary ? { summary: parsed.summary } : {}),
        skipped,
      };
    }
    case 'npm': {
      const files: DocFile[] = [];
      const entries = await readdir(spec.root).catch(() => [] as string[]);
      const readme = entries.find((n) => /^readme(\.(md|markdown|mdx|txt))?$/i.test(n));
      if (readme) files.push({ rel: readme, role: 'page', section: 'Overview' });
      if (entries.includes('docs')) {
        for (const rel of await walkMarkdown(spec.root, 'docs', limits, skipped, urlOf)) {
          const parts = rel.split('/');
          files.push({ rel, role: 'page', section: parts.length > 2 ? humanize(parts[1] as string) : 'Guides' });
        }
      }
      if (spec.types) files.push({ rel: spec.types, role: 'api', section: 'API reference' });
      return { files, external: [], skipped };
    }
    case 'pypi':
      return { files: [{ rel: 'METADATA', role: 'metadata', section: 'Overview' }], external: [], skipped };
  }
}

/** A stamp of the files' sizes and modification times: changes when a file is edited, added or removed. */
export async function stampOf(spec: DocSetSpec, listing: Listing): Promise<string> {
  const hash = createHash('sha256');
  hash.update(`${spec.layout}\0${spec.root}\n`);
  const extra = spec.layout === 'llms-txt' ? [spec.file] : spec.layout === 'npm' ? ['package.json'] : [];
  const rels = [...extra, ...listing.files.map((f) => f.rel)];
  // the files were confined to the root when listed (a link leading out is not listed), and a stat reads no
  // content: each is stat'ed at its path in the root, STAT_BATCH at a time (one by one, through realpath first,
  // 1,928 files took 300-400 ms, on every call for the library)
  const stamps: string[] = new Array(rels.length);
  for (let from = 0; from < rels.length; from += STAT_BATCH) {
    await Promise.all(
      rels.slice(from, from + STAT_BATCH).map(async (rel, i) => {
        const lexical = resolve(spec.root, rel);
        let stamp = 'missing';
        if (!rel.includes('\0') && !isAbsolute(rel) && isInside(resolve(spec.root), lexical)) {
          try {
            const s = await stat(lexical);
            stamp = `${s.size}\0${s.mtimeMs}`;
          } catch {
            // missing: stamped as such
          }
        }
        stamps[from + i] = `${rel}\0${stamp}\n`;
      }),
    );
  }
  for (const line of stamps) hash.update(line);
  return hash.digest('hex').slice(0, 32);
}

/** Files stat'ed at once by {@link stampOf}. */
const STAT_BATCH = 64;

/** One file of a doc set read as a page. */
export async function readDocFile(
  spec: DocSetSpec,
  file: DocFile,
  limits: ReadLimits,
  render: Renderer,
): Promise<DocPage> {
  const absolute = await confinedPath(spec.root, file.rel);
  const s = await stat(absolute);
  if (s.size > limits.maxFileBytes) {
    throw new Error(`${file.rel} is ${s.size} bytes, more than maxFileBytes (${limits.maxFileBytes})`);
  }
  const url = localUrl(spec.kind, spec.key, file.rel);
  if (file.role !== 'page') {
    const rendered = await render(spec, file, absolute);
    return {
      url,
      title: rendered.title,
      markdown: rendered.markdown,
      ...(file.section ? { section: file.section } : {}),
    };
  }
  const markdown = await readFile(absolute, 'utf8');
  const fallback = /^readme$/i.test(basename(file.rel).replace(/\.[^.]+$/, ''))
    ? spec.key
    : humanize(basename(file.rel));
  return {
    url,
    title: file.title ?? titleOf(markdown, fallback),
    markdown,
    ...(file.section ? { section: file.section } : {}),
  };
}

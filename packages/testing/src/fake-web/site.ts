// One fake documentation site: which URL serves which corpus file, and the generated llms.txt files.
import { readdirSync, readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { expandIncludes, frontMatter, pageTitle } from './markdown.js';
import { type NavNode, parseFumadocsMeta, parseMkdocsNav, parseVitepressSidebar } from './nav.js';
import type { FakeSiteDefinition, FakeSiteFile } from './types.js';

/** What a site path serves. */
export type SiteResource =
  | {
      readonly kind: 'content';
      readonly contentType: string;
      /** Corpus-relative source file, for pages. */
      readonly sourceFile: string | undefined;
      load(baseUrl: string): Promise<{ body: Buffer; lastModified: Date }>;
    }
  /** `location` is site-relative. */
  | { readonly kind: 'redirect'; readonly location: string; readonly sourceFile: string | undefined };

const MARKDOWN = 'text/markdown; charset=utf-8';
const HTML = 'text/html; charset=utf-8';
const TEXT = 'text/plain; charset=utf-8';
const XML = 'application/xml; charset=utf-8';

interface ListedPage {
  readonly file: string; // docs-relative
  readonly title: string;
  readonly description: string | undefined;
}

function walk(dir: string, accept: (name: string) => boolean, rel = ''): string[] {
  let entries: import('node:fs').Dirent[];
  try {
    entries = readdirSync(path.join(dir, rel), { withFileTypes: true });
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (e.name.startsWith('.') || e.name === 'node_modules') continue;
    const child = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...walk(dir, accept, child));
    else if (e.isFile() && accept(e.name)) out.push(child);
  }
  return out;
}

function escapeLinkText(s: string): string {
  return s.replace(/([[\]])/g, '\\$1');
}

function stripMdExt(p: string): string {
  return p.replace(/\.(mdx?|html)$/, '');
}

/** Routing and content of one site; content depends on the base URL it is served under. */
export class FakeSite {
  readonly name: string;
  private readonly def: FakeSiteDefinition;
  private readonly docsRoot: string;
  private readonly docsFiles: string[];
  private readonly docsSet: Set<string>;
  private readonly mdRoutes = new Map<string, string>(); // url path -> docs-relative file
  private readonly mdUrlOf = new Map<string, string>(); // docs-relative file -> url path
  private readonly htmlRoutes = new Map<string, { abs: string; file: string | undefined }>(); // 'a/b/' -> built page
  private readonly htmlUrlOf = new Map<string, string>(); // docs-relative file -> 'a/b/'
  private readonly htmlTwins = new Map<string, string>(); // 'a/b/index.md' -> absolute path of the built twin
  private readonly created = new Date(Math.floor(Date.now() / 1000) * 1000);
  private readonly cache = new Map<string, Promise<{ body: Buffer; lastModified: Date }>>();
  private readonly titles = new Map<string, Promise<ListedPage>>();

  constructor(def: FakeSiteDefinition) {
    if (!/^[a-z0-9][a-z0-9-]*$/.test(def.name)) throw new Error(`Fake site name '${def.name}' must match [a-z0-9-]+`);
    this.def = def;
    this.name = def.name;
    this.docsRoot = path.resolve(def.corpusDir, def.docsDir ?? 'docs');
    this.docsFiles = walk(this.docsRoot, (n) => /\.mdx?$/.test(n));
    this.docsSet = new Set(this.docsFiles);
    if (def.markdown !== false) {
      for (const file of this.docsFiles) {
        const url = this.markdownPath(file);
        if (this.mdRoutes.has(url)) continue;
        this.mdRoutes.set(url, file);
        this.mdUrlOf.set(file, url);
      }
    }
    if (def.htmlDir) {
      for (const rel of walk(def.htmlDir, (n) => n === 'index.html')) {
        const dir = rel === 'index.html' ? '' : rel.slice(0, -'index.html'.length);
        const file = this.resolveTarget(dir);
        this.htmlRoutes.set(dir, { abs: path.join(def.htmlDir, rel), file });
        if (file && !this.htmlUrlOf.has(file)) this.htmlUrlOf.set(file, dir);
      }
      if (def.htmlMarkdownTwins) {
        for (const rel of walk(def.htmlDir, (n) => n === 'index.md')) {
          if (this.htmlRoutes.has(rel.slice(0, -'index.md'.length)))
            this.htmlTwins.set(rel, path.join(def.htmlDir, rel));
        }
      }
    }
  }

  /**
   * The site's robots.txt rules for the root of the origin: paths prefixed with `prefix` (`/httpx-html`), `{base}`
   * replaced; `undefined` when the site has no robots.txt.
   */
  robotsRules(prefix: string, base: string): string | undefined {
    if (this.def.robotsTxt === undefined) return undefined;
    return this.def.robotsTxt
      .replaceAll('{base}', base)
      .replace(/^(\s*(?:Allow|Disallow)\s*:\s*)(\/\S*)/gim, (_m, key: string, p: string) => `${key}${prefix}${p}`);
  }

  /** URL path (relative to the site) of a docs-relative markdown file. */
  private markdownPath(file: string): string {
    const bare = stripMdExt(file);
    if (this.def.urlStyle === 'plain') return `${bare}.md`;
    return bare === 'index' || bare.endsWith('/index') ? `${bare}.md` : `${bare}/index.md`;
  }

  /** Corpus-relative path of a docs-relative file. */
  private corpusPath(file: string): string {
    return path.posix.normalize(path.posix.join(this.def.docsDir ?? 'docs', file));
  }

  /**
   * Map a nav target or site-relative link (`a/b.md`, `/a/b`, `a/b/`, `a/b/index.md`) to a docs-relative file.
   */
  resolveTarget(target: string): string | undefined {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined;
    let p = target.replace(/[#?].*$/, '').replace(/^\.?\/+/, '');
    try {
      p = decodeURIComponent(p);
    } catch {
      return undefined;
    }
    if (p === '' || p.endsWith('/')) p += 'index';
    p = stripMdExt(p);
    for (const c of [`${p}.md`, `${p}.mdx`, `${p}/index.md`, `${p}/index.mdx`]) {
      if (this.docsSet.has(c)) return c;
    }
    // mkdocs page URLs end in `/index` for `a/b.md` pages: `a/b/index.md` -> `a/b.md`.
    if (p.endsWith('/index')) {
      const parent = p.slice(0, -'/index'.length);
      for (const c of [`${parent}.md`, `${parent}.mdx`]) if (this.docsSet.has(c)) return c;
    }
    return undefined;
  }

  /** Site-relative URL path serving a docs-relative file (markdown when served, else HTML). */
  private servedPath(file: string): string | undefined {
    return this.mdUrlOf.get(file) ?? this.htmlUrlOf.get(file);
  }

  /** Site-relative URL path for a corpus-relative file. */
  pathForCorpusFile(corpusFile: string): string | undefined {
    const rel = path.posix.relative(path.posix.normalize(this.def.docsDir ?? 'docs'), path.posix.normalize(corpusFile));
    return rel.startsWith('..') ? undefined : this.servedPath(rel);
  }

  /** Corpus-relative source file of a site-relative path, if it is a page. */
  sourceFileFor(relPath: string): string | undefined {
    const r = this.route(relPath);
    if (r?.sourceFile) return r.sourceFile;
    // a page's directory URL (`a/b/`, as the sitemap lists it) names the page even without built HTML
    if (relPath === '' || relPath.endsWith('/')) return this.route(`${relPath}index.md`)?.sourceFile;
    return undefined;
  }

  /** Whether the site serves llms.txt. */
  get hasLlmsTxt(): boolean {
    return this.def.llmsTxt !== false;
  }

  /** What a site-relative path (decoded, no leading slash, no query) serves. */
  route(rel: string): SiteResource | undefined {
    if (rel === 'llms.txt' && this.def.llmsTxt !== false) {
      return this.generated(rel, TEXT, (base) => this.llmsTxt(base));
    }
    if (rel === 'llms-full.txt' && this.def.llmsFullTxt) {
      return this.generated(rel, TEXT, (base) => this.llmsFullTxt(base));
    }
    if (rel === 'robots.txt' && this.def.robotsTxt !== undefined) {
      const robots = this.def.robotsTxt;
      return this.generated(rel, TEXT, async (base) => robots.replaceAll('{base}', base));
    }
    const twin = this.htmlTwins.get(rel);
    if (twin !== undefined) {
      const dir = rel.slice(0, -'index.md'.length);
      const file = this.htmlRoutes.get(dir)?.file;
      return {
        kind: 'content',
        contentType: MARKDOWN,
        sourceFile: file && this.corpusPath(file),
        load: () => this.cached(`twin:${rel}`, () => this.loadFile(twin)),
      };
    }
    if (rel === 'sitemap.xml' && this.def.sitemap !== false && this.sitemapPaths().length > 0) {
      return this.generated(rel, XML, async (base) => this.sitemap(base));
    }
    const md = this.mdRoutes.get(rel);
    if (md !== undefined) {
      return {
        kind: 'content',
        contentType: MARKDOWN,
        sourceFile: this.corpusPath(md),
        load: () => this.cached(`md:${md}`, () => this.loadMarkdown(md)),
      };
    }
    const dir =
      rel === '' || rel.endsWith('/')
        ? rel
        : rel === 'index.html' || rel.endsWith('/index.html')
          ? rel.slice(0, -'index.html'.length)
          : undefined;
    const html = dir === undefined ? undefined : this.htmlRoutes.get(dir);
    if (html) {
      return {
        kind: 'content',
        contentType: HTML,
        sourceFile: html.file && this.corpusPath(html.file),
        load: () => this.cached(`html:${dir}`, () => this.loadFile(html.abs)),
      };
    }
    const asDir = this.htmlRoutes.get(`${rel}/`);
    if (asDir && rel !== '') {
      return {
        kind: 'redirect',
        location: `${rel}/`,
        sourceFile: asDir.file && this.corpusPath(asDir.file),
      };
    }
    return undefined;
  }

  private generated(
    key: string,
    contentType: string,
    make: (baseUrl: string) => Promise<string>,
  ): SiteResource & { kind: 'content' } {
    return {
      kind: 'content',
      contentType,
      sourceFile: undefined,
      load: (base) =>
        this.cached(`${key}@${base}`, async () => ({
          body: Buffer.from(await make(base)),
          lastModified: this.created,
        })),
    };
  }

  private cached(
    key: string,
    make: () => Promise<{ body: Buffer; lastModified: Date }>,
  ): Promise<{ body: Buffer; lastModified: Date }> {
    let p = this.cache.get(key);
    if (!p) {
      p = make();
      this.cache.set(key, p);
      p.catch(() => this.cache.delete(key));
    }
    return p;
  }

  private async loadFile(abs: string): Promise<{ body: Buffer; lastModified: Date }> {
    const [body, st] = await Promise.all([readFile(abs), stat(abs)]);
    return { body, lastModified: new Date(Math.floor(st.mtimeMs / 1000) * 1000) };
  }

  private async readMarkdown(file: string): Promise<string> {
    const text = await readFile(path.join(this.docsRoot, file), 'utf8');
    if (this.def.includeBaseDir === undefined) return text;
    const corpusDir = path.resolve(this.def.corpusDir);
    return expandIncludes(text, path.resolve(corpusDir, this.def.includeBaseDir), corpusDir);
  }

  private async loadMarkdown(file: string): Promise<{ body: Buffer; lastModified: Date }> {
    const abs = path.join(this.docsRoot, file);
    const [text, st] = await Promise.all([this.readMarkdown(file), stat(abs)]);
    return { body: Buffer.from(text), lastModified: new Date(Math.floor(st.mtimeMs / 1000) * 1000) };
  }

  private page(file: string, navTitle: string | undefined): Promise<ListedPage> {
    const key = `${file}\0${navTitle ?? ''}`;
    let p = this.titles.get(key);
    if (!p) {
      p = readFile(path.join(this.docsRoot, file), 'utf8').then((text) => ({
        file,
        title: navTitle || pageTitle(text, file),
        description: frontMatter(text).description,
      }));
      this.titles.set(key, p);
    }
    return p;
  }

  private navTree(): NavNode[] {
    const nav = this.def.nav ?? { kind: 'tree' };
    const read = (rel: string): string => {
      try {
        return readFileSync(path.resolve(this.def.corpusDir, rel), 'utf8');
      } catch {
        return '';
      }
    };
    if (nav.kind === 'mkdocs') return parseMkdocsNav(read(nav.configFile));
    if (nav.kind === 'vitepress') return parseVitepressSidebar(read(nav.configFile));
    if (nav.kind === 'fumadocs') return parseFumadocsMeta(read(nav.metaFile));
    // Tree: root files first, then one section per top-level folder.
    const root: NavNode[] = [];
    const sections = new Map<string, NavNode[]>();
    for (const file of this.docsFiles) {
      const slash = file.indexOf('/');
      if (slash < 0) {
        root.push({ kind: 'page', title: undefined, target: file });
        continue;
      }
      const dir = file.slice(0, slash);
      let list = sections.get(dir);
      if (!list) {
        list = [];
        sections.set(dir, list);
        const title = dir.replace(/[-_]+/g, ' ').replace(/^\w/, (c) => c.toUpperCase());
        root.push({ kind: 'section', title, children: list });
      }
      list.push({ kind: 'page', title: undefined, target: file });
    }
    return root;
  }

  /** The pages of the generated llms.txt, grouped into sections, in nav order. */
  async sections(): Promise<{ title: string; pages: ListedPage[] }[]> {
    const sections = new Map<string, ListedPage[]>();
    const listed = new Set<string>();
    const servable = (file: string): boolean => this.servedPath(file) !== undefined;
    const sectionTitle = async (node: NavNode & { kind: 'section' }): Promise<string> => {
      if (node.title) return node.title;
      // mkdocs "navigation.indexes": an untitled section is named by its index page.
      const first = node.children.find((c) => c.kind === 'page');
      const file = first?.kind === 'page' ? this.resolveTarget(first.target) : undefined;
      return file ? (await this.page(file, first?.kind === 'page' ? first.title : undefined)).title : 'Docs';
    };
    const visit = async (nodes: NavNode[], section: string): Promise<void> => {
      for (const node of nodes) {
        if (node.kind === 'section') {
          await visit(node.children, await sectionTitle(node));
          continue;
        }
        const file = this.resolveTarget(node.target);
        if (!file || listed.has(file) || !servable(file)) continue;
        listed.add(file);
        let list = sections.get(section);
        if (!list) {
          list = [];
          sections.set(section, list);
        }
        list.push(await this.page(file, node.title));
      }
    };
    await visit(this.navTree(), 'Docs');
    if (this.def.listUnlisted !== false) {
      const rest = this.docsFiles.filter((f) => !listed.has(f) && servable(f));
      if (rest.length > 0) {
        const list = sections.get('Optional') ?? [];
        sections.delete('Optional');
        for (const f of rest) list.push(await this.page(f, undefined));
        sections.set('Optional', list);
      }
    }
    return [...sections].map(([title, pages]) => ({ title, pages }));
  }

  private async llmsTxt(base: string): Promise<string> {
    const llms = this.def.llmsTxt;
    if (llms && llms !== 'generated') return this.rewritten(llms, base);
    const lines = [`# ${this.def.title}`, ''];
    if (this.def.summary) lines.push(`> ${this.def.summary}`, '');
    for (const section of await this.sections()) {
      lines.push(`## ${section.title}`, '');
      for (const p of section.pages) {
        const desc = p.description ? `: ${p.description}` : '';
        lines.push(`- [${escapeLinkText(p.title)}](${base}${this.servedPath(p.file)})${desc}`);
      }
      lines.push('');
    }
    return lines.join('\n');
  }

  private async llmsFullTxt(base: string): Promise<string> {
    const full = this.def.llmsFullTxt;
    if (full && full !== 'generated') return this.rewritten(full, base);
    const parts: string[] = [];
    for (const section of await this.sections()) {
      for (const p of section.pages) {
        const text = (await this.readMarkdown(p.file)).replace(/^\uFEFF?---\r?\n[\s\S]*?\r?\n---\r?\n?/, '');
        parts.push(`# ${p.title}\n\nSource: ${base}${this.servedPath(p.file)}\n\n${text.trim()}\n`);
      }
    }
    return parts.join('\n');
  }

  private async rewritten(src: FakeSiteFile, base: string): Promise<string> {
    const text = await readFile(src.file, 'utf8');
    const origin = src.originUrl;
    if (!origin) return text;
    const escaped = origin.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return text.replace(new RegExp(`${escaped}([^\\s)"'<>\\]]*)`, 'g'), (_whole, rest: string) => {
      const hash = rest.indexOf('#');
      const fragment = hash >= 0 ? rest.slice(hash) : '';
      const file = this.resolveTarget(rest);
      const served = file === undefined ? undefined : this.servedPath(file);
      return served === undefined ? `${base}${rest}` : `${base}${served}${fragment}`;
    });
  }

  /**
   * What the site's sitemap.xml lists: every page's directory URL, as MkDocs writes it (pages of an mkdocs
   * layout, whether or not a built HTML page exists here, plus every built page).
   */
  private sitemapPaths(): string[] {
    const pages =
      (this.def.urlStyle ?? 'mkdocs') === 'mkdocs' && this.def.markdown !== false
        ? [...this.mdRoutes.keys()]
            .filter((k) => k === 'index.md' || k.endsWith('/index.md'))
            .map((k) => k.slice(0, -'index.md'.length))
        : [];
    return [...new Set([...pages, ...this.htmlRoutes.keys()])].sort();
  }

  private sitemap(base: string): string {
    const urls = this.sitemapPaths().map((dir) => `  <url><loc>${base}${dir}</loc></url>`);
    return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join('\n')}\n</urlset>\n`;
  }
}

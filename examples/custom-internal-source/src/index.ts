/**
 * An example third-party plugin: a `SourceAdapter` that serves a team's internal documentation from a
 * folder of markdown files, and a `LibraryProvider` that makes those libraries known to the engine (so
 * `resolve-library` and `get-docs` answer them with no `libraries:` entry). It depends only on
 * `@pro-context/kernel`.
 *
 * Pages get stable https URLs under `baseUrl` (they never leave the machine: the adapter owns those URLs
 * and `read-page` asks it for them instead of going to the network).
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import {
  createToken,
  type DocPage,
  type DocsResult,
  definePlugin,
  type Freshness,
  inject,
  injectable,
  type LibraryDescriptor,
  type LibraryProvider,
  libraryProviderToken,
  type PageResult,
  ProContextError,
  type SourceAdapter,
  sourceAdapterToken,
  type TocResult,
  z,
} from '@pro-context/kernel';

/** One internal library: where its markdown lives and the URL its pages are published under. */
export const internalLibrarySchema = z.strictObject({
  id: z.string().min(1).describe('Library id agents use, e.g. "acme/billing-sdk".'),
  name: z.string().min(1).describe('Human-readable name.'),
  description: z.string().optional().describe('One sentence on what the library is.'),
  aliases: z.array(z.string().min(1)).optional().describe('Other names agents may use.'),
  path: z.string().min(1).describe('Folder holding the markdown files.'),
  baseUrl: z.url().describe('URL prefix the pages are known by, e.g. https://docs.acme.internal/billing/.'),
});

/** Options of the internal-docs plugin (config section `sources.internalDocs`). */
export const internalDocsOptionsSchema = z.strictObject({
  libraries: z.array(internalLibrarySchema).default([]).describe('Internal libraries served from folders.'),
});

/** Options after validation. */
export type InternalDocsOptions = z.output<typeof internalDocsOptionsSchema>;

/** Token of this plugin's options. */
export const internalDocsOptionsToken = createToken<InternalDocsOptions>('internalDocs.options');

async function listMarkdown(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listMarkdown(full)));
    else if (/\.mdx?$/.test(entry.name)) out.push(full);
  }
  return out.sort();
}

const titleOf = (markdown: string, fallback: string) => /^#\s+(.+)$/m.exec(markdown)?.[1]?.trim() ?? fallback;

/** Serves each configured folder as a library. */
@injectable()
export class InternalDocsAdapter implements SourceAdapter {
  readonly id = 'internal-docs';
  readonly priority = 30;

  constructor(@inject(internalDocsOptionsToken) private readonly options: InternalDocsOptions) {}

  private find(library: LibraryDescriptor) {
    return this.options.libraries.find((l) => l.id === library.id);
  }

  canHandle(library: LibraryDescriptor): boolean {
    return this.find(library) !== undefined && (library.source === undefined || library.source === this.id);
  }

  private async read(library: LibraryDescriptor): Promise<{ pages: DocPage[]; freshness: Freshness; root: string }> {
    const config = this.find(library);
    if (!config) {
      throw new ProContextError('SOURCE_UNAVAILABLE', `internal-docs does not serve '${library.id}'.`, {
        suggestion: 'Add the library under sources.internalDocs.libraries in the config.',
      });
    }
    const root = resolve(config.path);
    const files = await listMarkdown(root).catch((error: unknown) => {
      throw new ProContextError('SOURCE_UNAVAILABLE', `Cannot read ${root}: ${(error as Error).message}`, {
        cause: error,
      });
    });
    const hash = createHash('sha256');
    const pages: DocPage[] = [];
    for (const file of files) {
      const markdown = await readFile(file, 'utf8');
      const path = relative(root, file).split(sep).join('/');
      hash.update(path).update('\0').update(markdown);
      pages.push({
        url: new URL(path.replace(/\.mdx?$/, ''), config.baseUrl.endsWith('/') ? config.baseUrl : `${config.baseUrl}/`)
          .href,
        title: titleOf(markdown, path),
        ...(path.includes('/') ? { section: path.slice(0, path.indexOf('/')) } : {}),
        markdown,
      });
    }
    return { pages, freshness: { contentHash: hash.digest('hex') }, root };
  }

  async fetchToc(library: LibraryDescriptor): Promise<TocResult> {
    const { pages, freshness, root } = await this.read(library);
    return {
      title: library.name,
      entries: pages.map((p) => ({ title: p.title, url: p.url, ...(p.section ? { section: p.section } : {}) })),
      sourceUrl: root,
      fetchedAt: new Date().toISOString(),
      freshness,
    };
  }

  async fetchDocs(library: LibraryDescriptor): Promise<DocsResult> {
    const { pages, freshness, root } = await this.read(library);
    return { pages, sourceUrl: root, fetchedAt: new Date().toISOString(), freshness };
  }

  ownsUrl(url: URL): boolean {
    return this.options.libraries.some((l) => url.href.startsWith(l.baseUrl));
  }

  async fetchPage(url: URL): Promise<PageResult> {
    const library = this.options.libraries.find((l) => url.href.startsWith(l.baseUrl));
    if (!library) throw new ProContextError('URL_NOT_ALLOWED', `${url.href} is not an internal docs URL.`);
    const rest = decodeURIComponent(url.pathname.slice(new URL(library.baseUrl).pathname.length)).replace(/^\/+/, '');
    const root = resolve(library.path);
    for (const candidate of [`${rest}.md`, `${rest}.mdx`, join(rest, 'index.md')]) {
      const file = resolve(root, candidate);
      if (!file.startsWith(root + sep)) break; // never leave the folder (../ in the URL)
      if (!(await stat(file).catch(() => null))?.isFile()) continue;
      const markdown = await readFile(file, 'utf8');
      return {
        url: url.href,
        finalUrl: url.href,
        title: titleOf(markdown, rest),
        markdown,
        contentType: 'markdown',
        fetchedAt: new Date().toISOString(),
        freshness: { contentHash: createHash('sha256').update(markdown).digest('hex') },
      };
    }
    throw new ProContextError('PAGE_NOT_FOUND', `No internal page at ${url.href}.`);
  }

  async checkFreshness(library: LibraryDescriptor, _version: string, cached: Freshness) {
    const { freshness } = await this.read(library);
    return freshness.contentHash === cached.contentHash ? ('fresh' as const) : ('changed' as const);
  }
}

/**
 * Makes each configured folder a library the engine knows. Priority 50: config (0) overrides any field
 * (`project.libraryOverrides: { acme/billing-sdk: { description: … } }`), a curated registry (100) does not.
 */
@injectable()
export class InternalDocsLibraryProvider implements LibraryProvider {
  readonly id = 'internal-docs';
  readonly priority = 50;

  constructor(@inject(internalDocsOptionsToken) private readonly options: InternalDocsOptions) {}

  libraries(): LibraryDescriptor[] {
    return this.options.libraries.map((l) => ({
      id: l.id,
      name: l.name,
      ...(l.description ? { description: l.description } : {}),
      ...(l.aliases ? { aliases: l.aliases } : {}),
      categories: ['internal'],
      // served by this plugin's adapter only
      source: 'internal-docs',
    }));
  }
}

/** The plugin: `createKernel(...).use(internalDocsPlugin, { libraries: [...] })`. */
export const internalDocsPlugin = definePlugin({
  id: 'internal-docs',
  version: '0.1.0',
  description: 'Serves internal documentation folders as libraries.',
  kernel: '^0.1.0',
  configKey: 'sources.internalDocs',
  optionsSchema: internalDocsOptionsSchema,
  register(context, options) {
    context.bindValue(internalDocsOptionsToken, options);
    context.bindClass(sourceAdapterToken, InternalDocsAdapter);
    context.bindClass(libraryProviderToken, InternalDocsLibraryProvider);
  },
});

export default internalDocsPlugin;

import type { LibraryDescriptor, SourceAdapter } from '@pro-context/kernel';
import { isProContextError } from '@pro-context/kernel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** What the suite needs: an adapter, a library it serves, and one it does not. */
export interface SourceAdapterContractOptions {
  create(): SourceAdapter | Promise<SourceAdapter>;
  /** A library the adapter serves, with at least one page. */
  library: LibraryDescriptor;
  /** The version to ask for (default `'latest'`). */
  version?: string;
  /** A library the adapter cannot serve (its `canHandle` must say no). */
  foreignLibrary: LibraryDescriptor;
  destroy?(): void | Promise<void>;
}

/**
 * The behaviour every `SourceAdapter` must have:
 * `describeSourceAdapterContract('internal-docs', { create, library, foreignLibrary })`.
 */
export function describeSourceAdapterContract(name: string, options: SourceAdapterContractOptions): void {
  describe(`SourceAdapter contract: ${name}`, () => {
    let adapter: SourceAdapter;
    const version = options.version ?? 'latest';
    beforeAll(async () => {
      adapter = await options.create();
    });
    afterAll(async () => {
      await options.destroy?.();
    });

    it('has a kebab-case id and a numeric priority', () => {
      expect(adapter.id).toMatch(/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/);
      expect(Number.isFinite(adapter.priority)).toBe(true);
    });

    it('says which libraries it can handle', () => {
      expect(adapter.canHandle(options.library)).toBe(true);
      expect(adapter.canHandle(options.foreignLibrary)).toBe(false);
    });

    it('returns a table of contents with titles and URLs', async () => {
      const toc = await adapter.fetchToc(options.library, version);
      expect(toc.entries.length).toBeGreaterThan(0);
      for (const entry of toc.entries) {
        expect(entry.title.trim()).not.toBe('');
        expect(() => new URL(entry.url)).not.toThrow();
      }
      expect(Number.isNaN(Date.parse(toc.fetchedAt))).toBe(false);
      expect(toc.sourceUrl).not.toBe('');
    });

    it('returns documentation pages as markdown', async () => {
      const docs = await adapter.fetchDocs(options.library, version);
      expect(docs.pages.length).toBeGreaterThan(0);
      for (const page of docs.pages) {
        expect(page.markdown.trim().length).toBeGreaterThan(0);
        expect(() => new URL(page.url)).not.toThrow();
      }
    });

    it('serves the pages it owns through fetchPage', async () => {
      const toc = await adapter.fetchToc(options.library, version);
      const first = toc.entries[0];
      if (!first || !adapter.ownsUrl || !adapter.fetchPage) return;
      const url = new URL(first.url);
      if (!adapter.ownsUrl(url)) return;
      const page = await adapter.fetchPage(url);
      expect(page.markdown.trim().length).toBeGreaterThan(0);
    });

    it('reports unchanged content as fresh (or unknown)', async () => {
      const docs = await adapter.fetchDocs(options.library, version);
      expect(['fresh', 'unknown']).toContain(await adapter.checkFreshness(options.library, version, docs.freshness));
    });

    it('fails with a catalog error, not a crash, for a library it cannot serve', async () => {
      try {
        await adapter.fetchDocs(options.foreignLibrary, version);
      } catch (error) {
        expect(isProContextError(error)).toBe(true);
        return;
      }
      throw new Error('fetchDocs of a foreign library should fail with a ProContextError');
    });
  });
}

import type { CacheStore, ResourceDefinition, ResourceTemplateDefinition } from '@pro-context/kernel';
import type { DocsEngine } from './engine.js';

/** `pro-context://health` and `pro-context://libraries` (seed 001 §6.1, §6.2). */
export function engineResources(engine: DocsEngine, cache: CacheStore, version: string): ResourceDefinition[] {
  return [
    {
      name: 'health',
      uri: 'pro-context://health',
      title: 'Server health',
      description: 'Server status, uptime, cache statistics, documentation sources and project libraries.',
      mimeType: 'application/json',
      async read() {
        const stats = await cache.stats();
        const adapters = Object.fromEntries(
          [...engine.sources.status].map(([id, status]) => {
            const extra = engine.sources.adapterHealth(id);
            return [id, extra ? { ...status, ...extra } : status];
          }),
        );
        // a source that could not be reached on its last try: answers come from the cache (marked stale) meanwhile
        const failing = [...engine.sources.status.entries()]
          .filter(([, s]) => s.status === 'failing')
          .map(([source, s]) => ({ source, since: s.failingSince ?? s.lastErrorAt, lastError: s.lastError }));
        return {
          text: JSON.stringify(
            {
              status: failing.length > 0 ? 'degraded' : 'healthy',
              ...(failing.length > 0
                ? {
                    reason: `${failing.map((f) => `${f.source} failing since ${f.since}`).join('; ')}: cached answers are served, marked stale.`,
                    failing,
                  }
                : {}),
              uptime: Math.round((Date.now() - engine.startedAt) / 1000),
              cache: {
                memoryEntries: stats.memoryEntries,
                sqliteEntries: stats.durableEntries,
                hitRate: Math.round(stats.hitRate * 100) / 100,
              },
              adapters,
              indexedLibraries: engine.loadedVersions(),
              projectLibraries: [],
              version,
            },
            null,
            2,
          ),
        };
      },
    },
    {
      name: 'libraries',
      uri: 'pro-context://libraries',
      title: 'Project libraries',
      description: 'Libraries detected in the current project, with the versions it uses.',
      mimeType: 'application/json',
      async read() {
        const libraries = (await engine.listLibraries()).filter((l) => l.projectDetected);
        return {
          text: JSON.stringify(
            {
              libraries: libraries.map((l) => ({
                id: l.id,
                name: l.name,
                version: l.defaultVersion,
                ...(l.detectedFrom ? { detectedFrom: l.detectedFrom } : {}),
              })),
              detectedFrom: [...new Set(libraries.flatMap((l) => (l.detectedFrom ? [l.detectedFrom] : [])))],
            },
            null,
            2,
          ),
        };
      },
    },
  ];
}

/** `library://{libraryId}/toc` (seed 001 §6.3): one resource per resolved library. */
export function engineResourceTemplates(engine: DocsEngine): ResourceTemplateDefinition[] {
  return [
    {
      name: 'library-toc',
      uriTemplate: 'library://{+libraryId}/toc',
      title: 'Library table of contents',
      description: 'The table of contents of a resolved library, as markdown links read-page accepts.',
      mimeType: 'text/markdown',
      async list() {
        const names = new Map(engine.libraries().map((l) => [l.id, l.name]));
        return [...engine.resolvedLibraries().keys()].map((id) => ({
          uri: `library://${id}/toc`,
          name: `${names.get(id) ?? id} TOC`,
          title: `${names.get(id) ?? id} documentation`,
          mimeType: 'text/markdown',
        }));
      },
      complete: {
        libraryId: (prefix) =>
          engine
            .libraries()
            .map((l) => l.id)
            .filter((id) => id.startsWith(prefix))
            .slice(0, 50),
      },
      async read(_uri, variables) {
        return { text: await engine.tocMarkdown(variables.libraryId ?? ''), mimeType: 'text/markdown' };
      },
    },
  ];
}

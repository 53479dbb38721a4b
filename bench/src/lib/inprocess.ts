/**
 * pro-context loaded in the benchmark's own process (as bench/src/tune.ts does), to read the exact chunks a
 * library was indexed into and to time the search backend without a transport in between.
 */
import { type DocsEngine, docsEngineToken, type StoredChunk } from '@pro-context/engine';
import { type SearchBackend, type StartedKernel, searchBackendToken } from '@pro-context/kernel';
import { createSilentLogger } from '@pro-context/logging';
import type { FakeWeb } from '@pro-context/testing/fake-web';
import { startProContext } from 'pro-context';
import { makeProject } from './setup.js';

/** A started in-process kernel over the fake web. */
export interface InProcess {
  kernel: StartedKernel;
  engine: DocsEngine;
  backend: SearchBackend;
  /** The library's chunks in stored (page) order, fetching and indexing it the first time. */
  chunks(libraryId: string): Promise<StoredChunk[]>;
  /** The library's chunks by id. */
  chunkMap(libraryId: string): Promise<Map<string, StoredChunk>>;
  stop(): Promise<void>;
}

/** Starts the preset in-process with the benchmark's project config (the nine corpus libraries). */
export async function startInProcess(web: FakeWeb): Promise<InProcess> {
  const project = makeProject(web);
  const kernel = await startProContext({ configFile: project.configFile, logger: createSilentLogger(), env: {} });
  const engine = kernel.resolve(docsEngineToken);
  const backend = kernel.resolve(searchBackendToken);
  const chunkMap = async (libraryId: string) => {
    const loaded = await engine.loadDocs(libraryId, 'latest');
    return new Map((await loaded.docs.all()).map((c) => [c.id, c]));
  };
  return {
    kernel,
    engine,
    backend,
    chunkMap,
    chunks: async (libraryId) => [...(await chunkMap(libraryId)).values()],
    async stop() {
      await kernel.stop();
      project.cleanup();
    },
  };
}

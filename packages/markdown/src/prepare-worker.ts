/**
 * The chunking worker's entry point (run by {@link ChunkingPool} in a `worker_threads` Worker): prepares one
 * library's pages per message, posting progress while it works. Kept as its own file next to the pool (and,
 * in the preset's bundle, as its own entry point next to the CLI), because a Worker starts from a file.
 */
import { parentPort } from 'node:worker_threads';
import { type PreparablePage, type PrepareOptions, prepareDocs } from './prepare/prepare.js';

/** A task from the pool. */
interface PrepareRequest {
  id: number;
  pages: PreparablePage[];
  options: PrepareOptions;
}

const port = parentPort;
if (!port) throw new Error('prepare-worker runs in a worker thread (see ChunkingPool)');

port.on('message', (request: PrepareRequest) => {
  prepareDocs(request.pages, request.options, (done, total) => port.postMessage({ id: request.id, done, total }))
    .then((result) => port.postMessage({ id: request.id, result }, [result.terms.buffer as ArrayBuffer]))
    .catch((error: unknown) =>
      port.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) }),
    );
});

/**
 * The page worker's entry point (run by {@link PageConverter} in a `worker_threads` Worker): converts one page per
 * message within its limits. The converter stops this worker when a page overruns its time budget, and starts
 * another for the next page. Kept as its own file next to the converter (and, in the preset's bundle, as its own
 * entry point next to the CLI), because a Worker starts from a file.
 */
import { parentPort } from 'node:worker_threads';
import { isProContextError } from '@pro-context/kernel';
import type { PageLimits } from './html/limits.js';
import { convertPage, type PageWork } from './page/convert.js';

const port = parentPort;
if (!port) throw new Error('page-worker runs in a worker thread (see PageConverter)');

port.on('message', (request: { id: number; work: PageWork; limits: PageLimits }) => {
  convertPage(request.work, request.limits).then(
    (result) => port.postMessage({ id: request.id, result }),
    (error: unknown) =>
      port.postMessage({
        id: request.id,
        error: isProContextError(error)
          ? { code: error.code, message: error.message, details: error.details }
          : { message: error instanceof Error ? error.message : String(error) },
      }),
  );
});

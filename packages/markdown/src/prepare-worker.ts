/**
 * The chunking worker's entry point (run by {@link ChunkingPool} in a `worker_threads` Worker): prepares one
 * library's pages per message, posting progress while it works. Kept as its own file next to the pool (and,
 * in the preset's bundle, as its own entry point next to the CLI), because a Worker starts from a file.
 */
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { DocsPreparer, type PreparablePage, type PrepareOptions, prepareDocs } from './prepare/prepare.js';

/** A task from the pool: one library's pages at once, or one step of a library prepared in batches. */
type PrepareRequest =
  | { id: number; pages: PreparablePage[]; options: PrepareOptions }
  | { id: number; session: number; op: 'open'; options: PrepareOptions }
  | { id: number; session: number; op: 'add'; pages: PreparablePage[] }
  | { id: number; session: number; op: 'finish' };

const port = parentPort;
if (!port) throw new Error('prepare-worker runs in a worker thread (see ChunkingPool)');

// Background work: on Linux, where a thread's nice value is its own, this thread yields the cores to the main
// thread's answers (a hot library's get-docs stays fast while another library is chunked and indexed). Elsewhere a
// process-wide call would slow the whole server: left as is.
if (process.platform === 'linux') {
  try {
    setPriority(10);
  } catch {
    // not permitted here: the thread keeps the process's priority
  }
}

/** Libraries being prepared in batches, by session. */
const sessions = new Map<number, DocsPreparer>();

const fail = (id: number) => (error: unknown) =>
  port.postMessage({ id, error: error instanceof Error ? error.message : String(error) });

port.on('message', (request: PrepareRequest) => {
  const progress = (done: number, total: number) => port.postMessage({ id: request.id, done, total });
  if (!('op' in request)) {
    prepareDocs(request.pages, request.options, progress)
      .then((result) => port.postMessage({ id: request.id, result }, [result.terms.buffer as ArrayBuffer]))
      .catch(fail(request.id));
    return;
  }
  if (request.op === 'open') {
    sessions.set(request.session, new DocsPreparer(request.options));
    port.postMessage({ id: request.id, result: true });
    return;
  }
  const preparer = sessions.get(request.session);
  if (!preparer) {
    fail(request.id)(new Error(`no preparation ${request.session} under way`));
    return;
  }
  if (request.op === 'add') {
    preparer
      .add(request.pages, progress)
      .then((result) => port.postMessage({ id: request.id, result }), fail(request.id));
    return;
  }
  sessions.delete(request.session);
  try {
    const result = preparer.finish();
    port.postMessage({ id: request.id, result }, [result.terms.buffer as ArrayBuffer]);
  } catch (error) {
    fail(request.id)(error);
  }
});

/**
 * The chunking worker's entry point (run by {@link ChunkingPool} in a `worker_threads` Worker): prepares one
 * library's pages per message, posting progress while it works. Kept as its own file next to the pool (and,
 * in the preset's bundle, as its own entry point next to the CLI), because a Worker starts from a file.
 */
import { setPriority } from 'node:os';
import { type MessagePort, parentPort } from 'node:worker_threads';
import { ChunkBlockCutter, encodeBlock } from './prepare/blocks.js';
import {
  DocsPreparer,
  indexableChunk,
  type PreparablePage,
  type PreparedChunk,
  type PrepareOptions,
  prepareDocs,
} from './prepare/prepare.js';
import type { PipedBatch, PipedTotals } from './prepare-pool.js';

/** A task from the pool: one library's pages at once, or one step of a library prepared in batches. */
type PrepareRequest =
  | { id: number; pages: PreparablePage[]; options: PrepareOptions }
  | { id: number; session: number; op: 'open'; options: PrepareOptions }
  | { id: number; session: number; op: 'pipe'; port: MessagePort; blockChars: number }
  | { id: number; session: number; op: 'add'; pages: PreparablePage[]; withChunks?: boolean }
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

/** Sessions whose chunks go to an index build's channel (`pipe`), and how they are cut into blocks. */
interface Pipe {
  port: MessagePort;
  cutter: ChunkBlockCutter<PreparedChunk>;
  seq: number;
}
const pipes = new Map<number, Pipe>();

const unpipe = (session: number) => {
  pipes.get(session)?.port.close();
  pipes.delete(session);
};

/** Posts a prepared batch's chunks to the channel and cuts them into blocks: what the calling thread gets. */
function forward(
  pipe: Pipe,
  pages: PipedBatch['pages'],
  chunks: PreparedChunk[],
  withChunks: boolean,
  skipped: PipedBatch['skipped'],
): PipedBatch {
  const seq = ++pipe.seq;
  pipe.port.postMessage({
    seq,
    chunks: chunks.map(indexableChunk),
  });
  // what the calling thread keeps for the manifest: handed over, not kept here as well
  const blocks = pipe.cutter.add(chunks).map(encodeBlock);
  return {
    pages,
    seq,
    ...pipe.cutter.drain(),
    blocks,
    ...(withChunks ? { chunks } : {}),
    ...(skipped ? { skipped } : {}),
  };
}

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
  if (request.op === 'pipe') {
    pipes.set(request.session, { port: request.port, cutter: new ChunkBlockCutter(request.blockChars), seq: 0 });
    port.postMessage({ id: request.id, result: true });
    return;
  }
  const pipe = pipes.get(request.session);
  if (request.op === 'add') {
    preparer
      .add(request.pages, progress)
      .then((result) => {
        if (!pipe) {
          port.postMessage({ id: request.id, result });
          return;
        }
        const piped = forward(pipe, result.pages, result.chunks, request.withChunks === true, result.skipped);
        port.postMessage(
          { id: request.id, result: piped },
          piped.blocks.map((b) => b.buffer as ArrayBuffer),
        );
      })
      .catch(fail(request.id));
    return;
  }
  sessions.delete(request.session);
  unpipe(request.session);
  try {
    const totals = preparer.finish();
    const last = pipe?.cutter.flush();
    const result: PipedTotals = last ? { ...totals, last: encodeBlock(last) } : totals;
    const transfer = [result.terms.buffer as ArrayBuffer, ...(result.last ? [result.last.buffer as ArrayBuffer] : [])];
    port.postMessage({ id: request.id, result }, transfer);
  } catch (error) {
    fail(request.id)(error);
  }
});

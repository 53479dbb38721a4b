/**
 * The build worker: turns batches of chunks into a packed index and transfers its buffers back. Started
 * by {@link WorkerIndexBuilder} from the file next to the module that starts it (dist/, or dist/bin/ in the
 * CLI bundle, where it is an entry point of its own).
 */
import { setPriority } from 'node:os';
import { type MessagePort, parentPort } from 'node:worker_threads';
import type { IndexBatchMessage } from '@pro-context/kernel';
import { PackedIndexBuilder, packedBuffers } from './packed-index.js';
import { type BuildRequest, type BuildResponse, toPacked } from './protocol.js';

const port = parentPort;
if (port === null) throw new Error('packed-search-worker runs in a worker thread');

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

const builders = new Map<number, PackedIndexBuilder>();
/** Ports of jobs fed by another thread ('attach'), closed when the job ends. */
const attached = new Map<number, MessagePort>();

const detach = (job: number) => {
  attached.get(job)?.close();
  attached.delete(job);
};

const send = (message: BuildResponse, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

port.on('message', (request: BuildRequest) => {
  try {
    switch (request.type) {
      case 'start':
        // each build has a tokenizer (and so a word cache) of its own, dropped with it
        builders.set(request.job, new PackedIndexBuilder(request.language));
        break;
      case 'add': {
        const builder = builders.get(request.job);
        if (builder !== undefined) for (const chunk of request.chunks) builder.add(chunk);
        if (request.ack !== undefined) send({ type: 'added', job: request.job, ack: request.ack });
        break;
      }
      case 'attach': {
        const { job, port: from } = request;
        attached.set(job, from);
        from.on('message', (batch: IndexBatchMessage) => {
          try {
            const builder = builders.get(job);
            if (builder !== undefined) for (const chunk of batch.chunks) builder.add(toPacked(chunk));
            send({ type: 'added', job, ack: batch.seq });
          } catch (error) {
            builders.delete(job);
            detach(job);
            send({ type: 'failed', job, message: error instanceof Error ? error.message : String(error) });
          }
        });
        break;
      }
      case 'finish': {
        detach(request.job);
        const builder = builders.get(request.job);
        builders.delete(request.job);
        if (builder === undefined) break;
        const data = builder.finish();
        send({ type: 'built', job: request.job, data }, packedBuffers(data));
        break;
      }
      case 'cancel':
        detach(request.job);
        builders.delete(request.job);
        break;
    }
  } catch (error) {
    detach(request.job);
    builders.delete(request.job);
    send({ type: 'failed', job: request.job, message: error instanceof Error ? error.message : String(error) });
  }
});

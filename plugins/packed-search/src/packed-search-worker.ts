/**
 * The build worker: turns batches of chunks into a packed index and transfers its buffers back. Started
 * by {@link WorkerIndexBuilder} from the file next to the module that starts it (dist/, or dist/bin/ in the
 * CLI bundle, where it is an entry point of its own).
 */
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { PackedIndexBuilder, packedBuffers } from './packed-index.js';
import type { BuildRequest, BuildResponse } from './protocol.js';

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
      case 'finish': {
        const builder = builders.get(request.job);
        builders.delete(request.job);
        if (builder === undefined) break;
        const data = builder.finish();
        send({ type: 'built', job: request.job, data }, packedBuffers(data));
        break;
      }
      case 'cancel':
        builders.delete(request.job);
        break;
    }
  } catch (error) {
    builders.delete(request.job);
    send({ type: 'failed', job: request.job, message: error instanceof Error ? error.message : String(error) });
  }
});

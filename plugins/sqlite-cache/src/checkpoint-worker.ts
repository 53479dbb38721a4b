/**
 * The checkpoint worker of a {@link SqliteCacheStore}: its own connection to `cache.db`, on which it copies the
 * write-ahead log into the database when asked (`PRAGMA wal_checkpoint(PASSIVE)`). SQLite's automatic checkpoint
 * runs inside the write that crosses 1,000 log pages, on the thread writing, and its `fsync` took 15-25 ms of the
 * server's main thread every ~4 MB written; here it takes none.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

/** What the store sends to start the worker. */
export interface CheckpointWorkerData {
  file: string;
  busyTimeoutMs: number;
}

/** The worker's answer to each `'checkpoint'` message. */
export type CheckpointReply = { ok: true; log: number; checkpointed: number } | { ok: false; error: string };

const { file, busyTimeoutMs } = workerData as CheckpointWorkerData;
const db = new Database(file, { timeout: busyTimeoutMs });
// a checkpoint copies log frames to the file: it needs no page cache of its own
db.pragma('cache_size = 16');

parentPort?.on('message', (message: unknown) => {
  if (message !== 'checkpoint') return;
  let reply: CheckpointReply;
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
    reply = { ok: true, log: result?.log ?? 0, checkpointed: result?.checkpointed ?? 0 };
  } catch (error) {
    reply = { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(reply);
});

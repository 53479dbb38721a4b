import type { MessagePort } from 'node:worker_threads';
import type { IndexableChunk } from '@pro-context/kernel';
import type { PackedChunk, PackedIndexData } from './packed-index.js';

/** Main thread → build worker. Chunks arrive in batches, so neither thread copies a whole library at once. */
export type BuildRequest =
  | { type: 'start'; job: number; language: 'english' }
  /** `ack`: answer `added` with it once the batch is in (a streamed build's backpressure). */
  | { type: 'add'; job: number; chunks: PackedChunk[]; ack?: number }
  /**
   * The job's batches come from now on through `port` as `IndexBatchMessage`s (`{ seq, chunks }`, posted by
   * another thread, a chunking worker); each is answered `added` with its `seq` as `ack`, to the main thread.
   */
  | { type: 'attach'; job: number; port: MessagePort }
  | { type: 'finish'; job: number }
  | { type: 'cancel'; job: number };

/** Build worker → main thread. */
export type BuildResponse =
  | { type: 'built'; job: number; data: PackedIndexData }
  | { type: 'added'; job: number; ack: number }
  | { type: 'failed'; job: number; message: string };

/**
 * The chunk's own heading (what distinguishes it from the other sections of its page) and the headings
 * between it and the page title (what it shares with its siblings), as `orama-search` splits them.
 */
export function toPacked(chunk: IndexableChunk): PackedChunk {
  const path = chunk.headings[0] === chunk.title ? chunk.headings.slice(1) : [...chunk.headings];
  const section = path.length > 0 ? (path[path.length - 1] as string) : '';
  return { id: chunk.id, title: chunk.title, section, headings: path.slice(0, -1).join('\n'), body: chunk.body };
}

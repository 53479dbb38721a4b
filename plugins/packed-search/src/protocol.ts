import type { PackedChunk, PackedIndexData } from './packed-index.js';

/** Main thread → build worker. Chunks arrive in batches, so neither thread copies a whole library at once. */
export type BuildRequest =
  | { type: 'start'; job: number; language: 'english' }
  /** `ack`: answer `added` with it once the batch is in (a streamed build's backpressure). */
  | { type: 'add'; job: number; chunks: PackedChunk[]; ack?: number }
  | { type: 'finish'; job: number }
  | { type: 'cancel'; job: number };

/** Build worker → main thread. */
export type BuildResponse =
  | { type: 'built'; job: number; data: PackedIndexData }
  | { type: 'added'; job: number; ack: number }
  | { type: 'failed'; job: number; message: string };

import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';

/** The V8 flag {@link applyHeapGrowth} sets. */
const FLAG = '--heap-growing-percent';
const MB = 1024 * 1024;
/** Above this much heap in use the growth goes to {@link LARGE_HEAP_PERCENT}; back below {@link SMALL_HEAP_MB}. */
const LARGE_HEAP_MB = 256;
const SMALL_HEAP_MB = 192;
/**
 * Growth while the heap is large (a big library being prepared): every full collection marks the whole live heap,
 * so collecting at +30 % of 500 MB cost ~25 s more CPU on the 68 MB benchmark corpus than V8's own policy; at
 * +100 % the heap still stays at most about twice its live size.
 */
const LARGE_HEAP_PERCENT = 100;
/** How often the heap in use is looked at, ms. */
const CHECK_MS = 500;

/** What {@link applyHeapGrowth} did. */
export type HeapGrowthResult =
  | { applied: true; percent: number /** Stops watching the heap (the last setting stays). */; stop(): void }
  | { applied: false; reason: 'disabled' | 'set on the command line' };

/**
 * Bounds how far V8 lets the heap grow past what survived the last full collection, for a long-running server:
 * the next full collection starts once the heap is `percent` % above it (V8's `--heap-growing-percent`, a
 * process-wide setting, so the worker threads follow it too). Without it, on a machine with a few GB of memory V8
 * lets the heap reach up to four times its live size before collecting: the 100-library benchmark run held
 * ~80 MB of live objects in a 200-250 MB heap, and the server's RSS reached 480 MB; at 30 % it stayed near
 * 330 MB for the same CPU time. While more than 256 MB of heap is in use (a large library being prepared), the
 * growth is 100 % instead (until it is back under 192 MB): collecting a large heap often costs more CPU than the
 * memory it saves. `0` leaves V8's own policy; a `--heap-growing-percent` given to node on its command line is
 * left alone. The heap is looked at every half second (an unreferenced timer).
 */
export function applyHeapGrowth(percent: number, execArgv: readonly string[] = process.execArgv): HeapGrowthResult {
  if (!(percent > 0)) return { applied: false, reason: 'disabled' };
  if (execArgv.some((arg) => arg === FLAG || arg.startsWith(`${FLAG}=`) || arg.startsWith('--heap_growing_percent')))
    return { applied: false, reason: 'set on the command line' };
  const small = Math.round(percent);
  const large = Math.max(small, LARGE_HEAP_PERCENT);
  let current = small;
  setFlagsFromString(`${FLAG}=${small}`);
  const timer = setInterval(() => {
    const used = getHeapStatistics().used_heap_size;
    const wanted = used > LARGE_HEAP_MB * MB ? large : used < SMALL_HEAP_MB * MB ? small : current;
    if (wanted === current) return;
    current = wanted;
    setFlagsFromString(`${FLAG}=${wanted}`);
  }, CHECK_MS);
  timer.unref();
  return { applied: true, percent: small, stop: () => clearInterval(timer) };
}

/** The V8 flags of the young generation's size: given to node, {@link holdYoungGeneration} leaves them be. */
const YOUNG_FLAGS = /^--(max|min)[-_]semi[-_]space[-_]size|^--semi[-_]space[-_]growth[-_]factor/;
/** V8's own growth factor of the young generation (each growth doubles it). */
const YOUNG_GROWTH = 2;
/** The hold in force ({@link holdYoungGeneration}). */
let youngHold: { release(): void } | undefined;

/** What {@link holdYoungGeneration} did. */
export type YoungGenerationHold =
  | { held: true /** Lets V8 grow the young generation again, as its own policy has it. */; release(): void }
  | { held: false; reason: 'set on the command line' };

/**
 * Holds the main thread's young generation (V8's new space, where objects are born) at its initial size, 1-2 MB.
 * V8 doubles it, up to 32 MB on a 64-bit machine, whenever many objects survive a scavenge (loading the program
 * alone takes it to 16 MB, a library streaming in to 32 MB), and a grown new space keeps its size for the life of
 * the process. `--max-semi-space-size` would bound it but is read only when node starts; V8's growth factor can be
 * set at any time, so it is set to 1 (no growth). V8 puts a factor under 2 back to 2 whenever an isolate is created
 * (a worker thread starts): it is set again after each worker start and each collection. The factor is a
 * process-wide setting: worker threads keep their young generation at its initial size too (their bound is their
 * own `resourceLimits.maxYoungGenerationSizeMb`). Measured: the 100-library benchmark run's peak RSS 430-447 →
 * 388 MB and the nine corpora's 220-227 → 180-183 MB, for the same CPU time (111.2 vs 113.8 s over the run; the
 * stdio latencies within the noise of A/B runs). A young-generation flag given to node (on its command line or in
 * `NODE_OPTIONS`) is left alone. The command holds it before it loads the program; `server.holdYoungGeneration:
 * false` releases it.
 */
export function holdYoungGeneration(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions: string = process.env.NODE_OPTIONS ?? '',
): YoungGenerationHold {
  if ([...execArgv, ...nodeOptions.split(/\s+/)].some((arg) => YOUNG_FLAGS.test(arg)))
    return { held: false, reason: 'set on the command line' };
  youngHold?.release();
  const hold = () => setFlagsFromString('--semi-space-growth-factor=1');
  // delivered after the collections, on the event loop
  const observer = new PerformanceObserver(hold);
  observer.observe({ entryTypes: ['gc'] });
  // a worker's isolate starts on its own thread soon after the event
  const onWorker = () => {
    for (const ms of [5, 50, 250]) setTimeout(hold, ms).unref();
  };
  process.on('worker', onWorker);
  hold();
  const result = {
    held: true as const,
    release: () => {
      observer.disconnect();
      process.off('worker', onWorker);
      setFlagsFromString(`--semi-space-growth-factor=${YOUNG_GROWTH}`);
      if (youngHold === result) youngHold = undefined;
    },
  };
  youngHold = result;
  return result;
}

/** Releases the hold of {@link holdYoungGeneration}, if any. */
export function releaseYoungGeneration(): void {
  youngHold?.release();
}

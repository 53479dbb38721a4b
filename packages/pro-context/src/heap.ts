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

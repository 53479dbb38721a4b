import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString } from 'node:v8';

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

/** The V8 flag {@link capYoungGeneration} sets. */
const GROWTH_FLAG = '--semi-space-growth-factor';

/** What {@link capYoungGeneration} did. */
export type YoungGenerationResult =
  | { applied: true /** The semi-space size the main thread's young generation is held at, MB. */; semiSpaceMB: number }
  | { applied: false; reason: 'disabled' | 'set on the command line' };

/**
 * Holds the main thread's young generation at its size once it reaches `semiSpaceMB` per semi-space (V8 lets it
 * grow to 16 MB, 32 MB for the two: resident for good once reached). The main thread of a server allocates little
 * per request (the chunking and index building run in worker threads, whose young generation their own resource
 * limits size), so a smaller nursery costs a few more scavenges of a few live objects each. V8 has no switch for
 * the size once the heap exists, but it reads its growth factor at each growth: from the moment the semi-space is
 * `semiSpaceMB` (or at once when it is already larger: it never shrinks back) the factor is 1. The worker threads
 * keep their sizes (theirs are set when they start). `0` leaves V8's own policy; a `--max-semi-space-size`,
 * `--semi-space-growth-factor` or `--min-semi-space-size` given to node on its command line is left alone.
 */
export function capYoungGeneration(
  semiSpaceMB: number,
  execArgv: readonly string[] = process.execArgv,
): YoungGenerationResult {
  if (!(semiSpaceMB > 0)) return { applied: false, reason: 'disabled' };
  if (execArgv.some((arg) => /^--(max|min)[-_]semi[-_]space[-_]size|^--semi[-_]space[-_]growth[-_]factor/.test(arg)))
    return { applied: false, reason: 'set on the command line' };
  const semi = () => (getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0) / 2 / MB;
  if (semi() >= semiSpaceMB) {
    setFlagsFromString(`${GROWTH_FLAG}=1`);
    return { applied: true, semiSpaceMB: semi() };
  }
  // after each scavenge (a growth happens in one), until the size is reached
  const observer = new PerformanceObserver((list) => {
    if (!list.getEntries().some((e) => e.entryType === 'gc') || semi() < semiSpaceMB) return;
    setFlagsFromString(`${GROWTH_FLAG}=1`);
    observer.disconnect();
  });
  observer.observe({ entryTypes: ['gc'] });
  return { applied: true, semiSpaceMB };
}

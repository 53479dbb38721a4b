import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const heapModule = fileURLToPath(new URL('../dist/heap.js', import.meta.url));

/**
 * A process that holds its young generation (as the command does before it loads the program) or not, allocates
 * ~600 MB in small objects (a tenth of them kept for a while, as a library streaming in would), starts a worker
 * thread half-way (V8 resets the growth factor when an isolate starts), and prints the largest young generation
 * it saw, MB.
 */
const script = (hold: boolean) => `
import { getHeapSpaceStatistics } from 'node:v8';
import { Worker } from 'node:worker_threads';
import { holdYoungGeneration } from ${JSON.stringify(heapModule)};
const hold = ${hold} ? holdYoungGeneration() : { held: false };
const young = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 2 ** 20;
let largest = young();
let kept = [];
for (let round = 0; round < 300; round++) {
  let batch = [];
  for (let i = 0; i < 20000; i++) batch.push({ i, text: 'x'.repeat(i % 64) });
  if (round % 10 === 0) kept.push(batch);
  if (kept.length > 8) kept = [];
  if (round === 150) new Worker('setTimeout(() => {}, 50)', { eval: true }).unref();
  largest = Math.max(largest, young());
  await new Promise((resolve) => setImmediate(resolve));
}
console.log(JSON.stringify({ held: hold.held, largest }));
`;

const largestYoung = async (hold: boolean, nodeFlags: string[] = []) => {
  const { stdout } = await run(process.execPath, [...nodeFlags, '--input-type=module', '-e', script(hold)], {
    timeout: 60_000,
  });
  return JSON.parse(stdout) as { held: boolean; largest: number };
};

describe.skipIf(!existsSync(heapModule))("the young generation's hold (server.holdYoungGeneration)", () => {
  it('keeps the young generation near its initial size through a burst of allocation and a worker start', async () => {
    const held = await largestYoung(true);
    expect(held.held).toBe(true);
    // 1-2 MB at the start; a doubling or two may slip in between a worker's start and the hold set again (two
    // did, to 8 MB, on a machine running two test suites at once), still half of V8's own 16-32 MB below
    expect(held.largest).toBeLessThanOrEqual(8);
    // the same work under V8's own policy grows it to 16-32 MB: the bound is the hold's doing
    const free = await largestYoung(false);
    expect(free.largest).toBeGreaterThanOrEqual(16);
  }, 120_000);

  it('leaves a --max-semi-space-size given to node alone', async () => {
    const given = await largestYoung(true, ['--max-semi-space-size=8']);
    expect(given.held).toBe(false);
    expect(given.largest).toBeGreaterThan(4);
  }, 60_000);
});

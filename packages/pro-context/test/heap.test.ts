import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { capYoungGeneration } from '../src/heap.js';

const run = promisify(execFile);
const heapModule = fileURLToPath(new URL('../dist/heap.js', import.meta.url));

/**
 * A process that caps its young generation at 4 MB a semi-space, allocates (a server's main thread would), then
 * starts a worker whose resource limits give it 16 MB: prints both semi-space sizes, MB. (V8 flags are per process:
 * checked in a child, never in the test runner.)
 */
const script = `
import { getHeapSpaceStatistics } from 'node:v8';
import { Worker, isMainThread, parentPort } from 'node:worker_threads';
const semi = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 2 / 2 ** 20;
const churn = (n) => { const keep = []; for (let i = 0; i < n; i++) { const o = { a: i, b: 'x' + i }; if (i % 20 === 0) keep.push(o); } return keep.length; };
if (isMainThread) {
  const { capYoungGeneration } = await import(process.env.HEAP_MODULE);
  if (process.env.CAP) capYoungGeneration(Number(process.env.CAP), []);
  for (let r = 0; r < 40; r++) { churn(2e5); await new Promise((done) => setImmediate(done)); }
  const worker = new Worker(new URL(import.meta.url), { resourceLimits: { maxYoungGenerationSizeMb: 48 } });
  worker.on('message', (workerSemi) => console.log(JSON.stringify({ main: semi(), worker: workerSemi })));
} else {
  churn(4e6);
  parentPort.postMessage(semi());
}
`;

const dir = mkdtempSync(join(tmpdir(), 'pro-context-heap-'));
const scriptFile = join(dir, 'young.mjs');
writeFileSync(scriptFile, script);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function sizes(cap?: number): Promise<{ main: number; worker: number }> {
  const { stdout } = await run(process.execPath, [scriptFile], {
    env: { ...process.env, HEAP_MODULE: heapModule, ...(cap ? { CAP: String(cap) } : {}) },
  });
  return JSON.parse(stdout.trim());
}

describe('capYoungGeneration (the server main thread young generation)', () => {
  it("holds the main thread's semi-space near the cap while a worker keeps the size its limits give", async () => {
    const free = await sizes();
    const capped = await sizes(4);
    // V8's own growth: 16 MB a semi-space (32 MB resident for the two) on a busy main thread
    expect(free.main).toBe(16);
    // the cap takes at the scavenge after it is reached (at most one growth later)
    expect(capped.main).toBeLessThanOrEqual(8);
    expect(capped.worker).toBe(free.worker);
    expect(capped.worker).toBeGreaterThan(capped.main);
  });

  it('is off at 0 and leaves a young generation size given to node on its command line', () => {
    expect(capYoungGeneration(0, [])).toEqual({ applied: false, reason: 'disabled' });
    expect(capYoungGeneration(8, ['--max-semi-space-size=2'])).toEqual({
      applied: false,
      reason: 'set on the command line',
    });
    expect(capYoungGeneration(8, ['--semi_space_growth_factor=3'])).toEqual({
      applied: false,
      reason: 'set on the command line',
    });
  });
});

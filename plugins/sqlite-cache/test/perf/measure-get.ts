// Latency of get() from the memory tier and from SQLite. Not a test: run by hand and read the numbers.
//   node --conditions=source --import ./test/fixtures/register-ts.mjs test/perf/measure-get.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteCacheStore } from '../../src/store.js';

const dir = mkdtempSync(join(tmpdir(), 'pro-context-sqlite-cache-perf-'));
const N = 2000;
const values: Record<string, unknown> = {
  'small JSON (~150 B)': { id: 'fastapi', version: '0.115.0', source: 'llms-txt', fetchedAt: '2026-01-01T00:00:00Z' },
  'TOC JSON (~55 KB)': {
    entries: Array.from({ length: 400 }, (_, i) => ({
      title: `Entry ${i}`,
      url: `https://docs.example.com/page/${i}`,
      section: `Section ${i % 10}`,
      description: `Some description text for entry ${i}`,
    })),
  },
  'page string (~20 KB)': '# Page\n\nSome markdown text with `code` and [links](https://x.test).\n'.repeat(300),
  'snapshot bytes (1 MB)': Buffer.alloc(1024 * 1024, 7),
};

function percentiles(samples: number[]): string {
  samples.sort((a, b) => a - b);
  const at = (p: number) => samples[Math.min(samples.length - 1, Math.floor(p * samples.length))] ?? 0;
  return `p50 ${(at(0.5) * 1000).toFixed(1)} µs, p95 ${(at(0.95) * 1000).toFixed(1)} µs, p99 ${(at(0.99) * 1000).toFixed(1)} µs`;
}

async function time(fn: (i: number) => Promise<unknown>, n: number): Promise<number[]> {
  for (let i = 0; i < Math.min(200, n); i++) await fn(i); // warm up
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await fn(i);
    samples.push(performance.now() - start);
  }
  return samples;
}

try {
  const writer = new SqliteCacheStore({ directory: dir, cleanupIntervalMinutes: 0 });
  for (const [label, value] of Object.entries(values)) {
    const keys = label.startsWith('snapshot') ? 50 : N;
    for (let i = 0; i < keys; i++) await writer.set('perf', `${label}#${i}`, value);
  }
  const setSamples = await time((i) => writer.set('perf-set', `k${i}`, values['small JSON (~150 B)']), N);
  process.stderr.write(`set small JSON: ${percentiles(setSamples)}\n`);
  await writer.close();

  // Memory tier: the same key again and again.
  const warm = new SqliteCacheStore({ directory: dir, cleanupIntervalMinutes: 0 });
  for (const label of Object.keys(values)) {
    const samples = await time(() => warm.get('perf', `${label}#0`), N);
    process.stderr.write(`memory hit, ${label}: ${percentiles(samples)}\n`);
  }
  await warm.close();

  // SQLite: a one-entry memory tier and a different key each time, so every read goes to the file.
  const cold = new SqliteCacheStore({ directory: dir, cleanupIntervalMinutes: 0, maxMemoryEntries: 1 });
  for (const label of Object.keys(values)) {
    const keys = label.startsWith('snapshot') ? 50 : N;
    const samples = await time(() => cold.get('perf', `${label}#${Math.floor(Math.random() * keys)}`), N);
    process.stderr.write(`SQLite hit, ${label}: ${percentiles(samples)}\n`);
  }
  const missSamples = await time((i) => cold.get('perf', `missing-${i}`), N);
  process.stderr.write(`miss: ${percentiles(missSamples)}\n`);
  await cold.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}

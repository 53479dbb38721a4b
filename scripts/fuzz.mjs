#!/usr/bin/env node
// `pnpm fuzz`: the property-based tests of the parsers that read fetched content (packages/robustness/test/fuzz),
// with FUZZ_RUNS cases per property (default 10,000; CI's normal run does 100 per property, 500 in all). FUZZ_SEED replays a failure.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const env = { ...process.env, FUZZ_RUNS: process.env.FUZZ_RUNS ?? '10000' };
const result = spawnSync('vitest', ['run', '--project', '@pro-context/robustness', 'test/fuzz'], {
  cwd: root,
  env,
  stdio: 'inherit',
  shell: process.platform === 'win32',
});
process.exit(result.status ?? 1);

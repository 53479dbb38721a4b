import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeSearchBackendContract } from '@pro-context/testing';
import { afterAll } from 'vitest';
import { SqliteSearchBackend } from '../src/backend.js';

// One database file for the suite: its "fresh" backend is a new process's view of the same file.
const directory = mkdtempSync(join(tmpdir(), 'sqlite-search-contract-'));
const backends: SqliteSearchBackend[] = [];
afterAll(() => {
  for (const backend of backends) backend.close();
  rmSync(directory, { recursive: true, force: true });
});

describeSearchBackendContract('sqlite-search', {
  create: () => {
    const backend = new SqliteSearchBackend({ directory });
    backends.push(backend);
    return backend;
  },
});

import { describeSearchBackendContract } from '@pro-context/testing';
import { afterAll } from 'vitest';
import { PackedSearchBackend } from '../src/backend.js';

const created: PackedSearchBackend[] = [];
afterAll(async () => {
  for (const backend of created) await backend.close();
});

describeSearchBackendContract('packed-search (worker)', {
  create: () => {
    const backend = new PackedSearchBackend();
    created.push(backend);
    return backend;
  },
});
describeSearchBackendContract('packed-search (main thread)', {
  create: () => new PackedSearchBackend({ worker: false }),
});

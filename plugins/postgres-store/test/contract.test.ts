import { describeCacheStoreContract } from '@pro-context/testing';
import { describe } from 'vitest';
import { PostgresCacheStore, parsePostgresStoreOptions } from '../src/index.js';
import { openDatabase, skipReason } from './helpers.js';

const options = parsePostgresStoreOptions({});

if (skipReason) describe.skip(`postgres-store contract (skipped: ${skipReason})`, () => undefined);
else describeCacheStoreContract('postgres-store', { create: () => new PostgresCacheStore(openDatabase(), options) });

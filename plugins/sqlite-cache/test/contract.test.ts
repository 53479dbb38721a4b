import { describeCacheStoreContract } from '@pro-context/testing';
import { openStore } from './helpers.js';

describeCacheStoreContract('sqlite-cache (file)', { create: () => openStore() });
describeCacheStoreContract('sqlite-cache (:memory:)', { create: () => openStore({ directory: ':memory:' }) });

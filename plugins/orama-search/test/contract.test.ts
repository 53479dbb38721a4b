import { describeSearchBackendContract } from '@pro-context/testing';
import { OramaSearchBackend } from '../src/backend.js';

describeSearchBackendContract('orama-search', { create: () => new OramaSearchBackend() });

// Public surface of the fake web (re-exported by the package entry).
export { corpusSites, findCorpusRoot } from './corpus-sites.js';
export { freePort } from './free-port.js';
export { startFakeWeb } from './server.js';
export type {
  FakeSiteDefinition,
  FakeSiteFile,
  FakeSiteNav,
  FakeWeb,
  FakeWebOptions,
  FakeWebRequest,
  FaultSpec,
  FaultTarget,
} from './types.js';

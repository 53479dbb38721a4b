export {
  fakeFastapi,
  fakeNpmPackages,
  fakePydantic,
  fakePypiProjects,
  fakeReact,
  fakeRequest,
  fakeTanstackReactQuery,
  fakeTypingExtensions,
  fakeZod,
} from './fixtures.js';
export type { FakeNpmOptions, FakeNpmPackage, FakeNpmVersion } from './npm.js';
export { NPM_ABBREVIATED_MEDIA_TYPE, startFakeNpm } from './npm.js';
export type { FakePypiProject, FakePypiRelease } from './pypi.js';
export { startFakePypi } from './pypi.js';
export type { FakeRegistry, FakeRegistryFault, FakeRegistryRequest } from './server.js';

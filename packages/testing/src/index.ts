/**
 * @pro-context/testing: what a plugin author needs to test against pro-context — a test kernel, fakes for
 * every contract, contract suites, and a loopback fake web that serves documentation sites.
 *
 * Every export here is public API; named exports only.
 */

export { conformanceFixtures, conformanceFixturesPlugin } from './conformance/fixtures.js';
export type { CacheStoreContractOptions } from './contracts/cache-store.js';
export { describeCacheStoreContract } from './contracts/cache-store.js';
export type { RegistryResolverContractOptions } from './contracts/registry-resolver.js';
export { describeRegistryResolverContract } from './contracts/registry-resolver.js';
export type { SearchBackendContractOptions } from './contracts/search-backend.js';
export { contractCorpus, describeSearchBackendContract } from './contracts/search-backend.js';
export type { SourceAdapterContractOptions } from './contracts/source-adapter.js';
export { describeSourceAdapterContract } from './contracts/source-adapter.js';
export { catalogErrorOf } from './errors.js';
export type {
  FakeGithub,
  FakeGithubContent,
  FakeGithubFault,
  FakeGithubRepo,
  FakeGithubRequest,
  FakeGithubTag,
} from './fake-github.js';
export { corpusRepos, startFakeGithub } from './fake-github.js';
export type { FakeProxy } from './fake-proxy.js';
export { startFakeProxy } from './fake-proxy.js';
export type {
  FakeNpmOptions,
  FakeNpmPackage,
  FakeNpmVersion,
  FakePypiProject,
  FakePypiRelease,
  FakeRegistry,
  FakeRegistryFault,
  FakeRegistryRequest,
} from './fake-registries/index.js';
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
  NPM_ABBREVIATED_MEDIA_TYPE,
  startFakeNpm,
  startFakePypi,
} from './fake-registries/index.js';
export type {
  FakeContext7,
  FakeContext7CodeSnippet,
  FakeContext7Fault,
  FakeContext7InfoSnippet,
  FakeContext7Library,
  FakeContext7Options,
  FakeContext7Request,
} from './fake-remote/context7.js';
export { fakeContext7Libraries, startFakeContext7 } from './fake-remote/context7.js';
// an OpenAI-compatible embeddings server (OpenAI, Ollama, vLLM, LM Studio) for the openai-embeddings plugin
export type { FakeEmbeddings, FakeEmbeddingsOptions } from './fake-remote/embeddings.js';
export { openAiErrorBody, startFakeEmbeddings } from './fake-remote/embeddings.js';
// fakes of the remote search APIs (Gemini grounding, Exa) for the grounding and exa plugins
export type {
  FakeApi,
  FakeApiFault,
  FakeApiRequest,
  FakeExa,
  FakeExaOptions,
  FakeExaPage,
  FakeGemini,
  FakeGeminiAnswer,
  FakeGeminiOptions,
  FakeGeminiSource,
} from './fake-search/index.js';
export {
  defaultFakeGeminiAnswer,
  exaErrorBody,
  fakeExaPages,
  googleErrorBody,
  startFakeExa,
  startFakeGemini,
} from './fake-search/index.js';
export type {
  FakeSiteDefinition,
  FakeSiteFile,
  FakeSiteNav,
  FakeWeb,
  FakeWebOptions,
  FakeWebRequest,
  FaultSpec,
  FaultTarget,
} from './fake-web/index.js';
export { corpusSites, findCorpusRoot, freePort, startFakeWeb } from './fake-web/index.js';
export { MemoryCacheStore } from './fakes/memory-cache-store.js';
export { StaticRegistryResolver } from './fakes/static-registry-resolver.js';
export type { StaticLibraryDocs } from './fakes/static-source-adapter.js';
export { StaticSourceAdapter } from './fakes/static-source-adapter.js';
export { TermSearchBackend } from './fakes/term-search-backend.js';
export type { FaultInjector, UnreachableUpstreams, UpstreamFault, UpstreamFaultKind } from './fault-injector.js';
export {
  loopbackOnlyLookup,
  startFaultInjector,
  unreachableUpstreams,
  upstreamFaultKinds,
} from './fault-injector.js';
export type { LoopbackSite } from './loopback-site.js';
export { startLoopbackSite } from './loopback-site.js';
export type { TestKernelOptions } from './test-kernel.js';
export { createTestKernel } from './test-kernel.js';

export type { FakeExa, FakeExaOptions, FakeExaPage } from './exa.js';
export { exaErrorBody, fakeExaPages, startFakeExa } from './exa.js';
export type { FakeGemini, FakeGeminiAnswer, FakeGeminiOptions, FakeGeminiSource } from './gemini.js';
export { defaultFakeGeminiAnswer, googleErrorBody, startFakeGemini } from './gemini.js';
export type { FakeApi, FakeApiFault, FakeApiRequest } from './server.js';

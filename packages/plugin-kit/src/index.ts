// Every export here is public API; named exports only.
export type { CachedResult, CachedResultOptions } from './cached-result.js';
export { cachedResult, cacheKeyOf } from './cached-result.js';
export { closestName, schemaKeysAt, withKeyGuess } from './did-you-mean.js';
export { docsFallbackSuppressed, withoutDocsFallback } from './docs-fallback.js';
export { errorText } from './error-text.js';
export type { LibrarySettingsReport } from './library-settings.js';
export { applyLibrarySettings, settingsDeclarations } from './library-settings.js';
export type { MessageCatalog, MessageDefinition } from './messages.js';
export { defineMessages, withEnableHint } from './messages.js';
export { expandHome } from './paths.js';
export type { RetryPolicy } from './post-with-retries.js';
export { postWithRetries } from './post-with-retries.js';
export type { DetectedDependency, ProjectDependencies } from './project-dependencies.js';
export { dependencyDescriptor, projectDependenciesToken } from './project-dependencies.js';
export type { RegistryFailureSubject, VersionNotFoundDetails } from './registry-failure.js';
export { registryFailure, registryStatusError, versionNotFoundDetails } from './registry-failure.js';
export type {
  NoAnswerErrors,
  RemoteConnection,
  RemoteToolDeps,
  RemoteToolOptions,
  RemoteToolOptionsSpec,
  RemoteToolPluginSpec,
  RemoteToolSettings,
  RemoteToolValidatedOptions,
} from './remote-tool.js';
export {
  defineRemoteToolPlugin,
  maskingKey,
  missingKeyMessage,
  postRemote,
  RemoteTools,
  remoteEndpoint,
  remoteToolCacheMinutes,
  remoteToolErrorText,
  remoteToolOptionsShape,
  requireKey,
  withoutBlankKey,
  withoutKey,
} from './remote-tool.js';
export { parseRetryAfterMs } from './retry-after.js';
export type { RetrySyncOptions } from './retry-sync.js';
export { retrySync } from './retry-sync.js';
export { Slicer } from './slicer.js';
export type { TtlMemoOptions } from './ttl-memo.js';
export { TtlMemo } from './ttl-memo.js';
export type { UpstreamFailure } from './upstream-failure.js';
export {
  describeUpstreamFailure,
  isUnreachableFailure,
  upstreamFailureOf,
  upstreamFailureOfStatus,
} from './upstream-failure.js';

/**
 * @pro-context/kernel: the contracts third parties build against — plugins and their definitions, configuration
 * sections, the error catalog, log spans, the HTTP client's interface (the client is `@pro-context/http`) and the
 * started kernel's shape. `createKernel`, which wires plugins into a kernel, is `@pro-context/runtime`.
 *
 * Every export here is public API; named exports only. Add exports deliberately.
 */
import 'reflect-metadata';

import * as z from 'zod';

export { inject, injectAll, injectable } from 'tsyringe';
export type { ConfigSection } from './config/sections.js';
export { defineConfigSection } from './config/sections.js';
export type { ConfigIssue, ConfigSource, EnvironmentVariable, KernelConfig, ResolvedConfig } from './config/types.js';
export type { ConfigValidator, ValidatedConfig } from './config/validate.js';
export { configInvalid, flattenZodIssues } from './config/validate.js';
export { getPath, lineOf } from './config/values.js';
export type { AnswerRevisions } from './contracts/answer-revisions.js';
export type {
  CacheEntry,
  CacheGetOptions,
  CacheSetOptions,
  CacheStats,
  CacheStore,
  CacheTierReads,
  CacheValue,
  CompactResult,
} from './contracts/cache-store.js';
export { cacheStoreToken } from './contracts/cache-store.js';
export type { DocsFallback, FallbackDocs, FallbackLibrary } from './contracts/docs-fallback.js';
export { docsFallbackToken } from './contracts/docs-fallback.js';
export type {
  DocPage,
  DocsResult,
  FetchContext,
  Freshness,
  LibraryDescriptor,
  PageResult,
  TocEntry,
  TocResult,
} from './contracts/library.js';
export type { LibraryLookupHints, LibraryProvider } from './contracts/library-provider.js';
export { libraryProviderToken } from './contracts/library-provider.js';
export type {
  Logger,
  LoggerFactory,
  LogLevel,
  LogRecord,
  LogSink,
  LogSinkHandle,
  LogSinkOptions,
  Span,
  SpanEvent,
} from './contracts/logger.js';
export { createNullLogger, logLevels } from './contracts/logger.js';
export type {
  PackageMetadata,
  PackageVersion,
  RegistryResolver,
  RegistrySearchHit,
  ResolvedVersion,
} from './contracts/registry-resolver.js';
export { registryResolverToken } from './contracts/registry-resolver.js';
export type {
  IndexableChunk,
  IndexBatchMessage,
  IndexBuild,
  IndexChannel,
  IndexKey,
  SearchBackend,
  SearchHit,
  SearchOptions,
  SearchResults,
} from './contracts/search-backend.js';
export { searchBackendToken } from './contracts/search-backend.js';
export type { Redaction } from './contracts/secrets.js';
export {
  isSecretKey,
  maskSecretValues,
  REDACTED,
  redaction,
  registerSecrets,
  secretsGeneration,
  setRedaction,
} from './contracts/secrets.js';
export { kernelTokens } from './contracts/services.js';
export type { DocVersions, LibrarySettingsDeclaration, SourceAdapter } from './contracts/source-adapter.js';
export { sourceAdapterToken } from './contracts/source-adapter.js';
export type { Token, TokenCardinality } from './contracts/token.js';
export { createToken, tokenCardinality, tokenId } from './contracts/token.js';
export type {
  CallerInfo,
  PromptDefinition,
  ResourceContents,
  ResourceDefinition,
  ResourceListing,
  ResourceTemplateDefinition,
  ToolAnnotations,
  ToolContext,
  ToolDefinition,
  ToolPlugin,
  ToolResult,
  ToolResultReuse,
} from './contracts/tool-plugin.js';
export { defineTool, toolPluginToken } from './contracts/tool-plugin.js';
export type { ErrorCode, ErrorDefinition, ErrorTable, KernelErrorCode } from './errors/catalog.js';
export { errorCatalog } from './errors/catalog.js';
export type { ErrorFactory, ErrorPayload, ProContextErrorOptions } from './errors/pro-context-error.js';
export {
  defineErrors,
  isProContextError,
  kernelErrors,
  ProContextError,
  registerErrors,
  toProContextError,
} from './errors/pro-context-error.js';
export type {
  HttpClient,
  HttpClientFactory,
  HttpClientOptions,
  HttpRequestOptions,
  HttpResponse,
  HttpStreamResponse,
} from './http/types.js';
export type { KernelBuilder, KernelHttpOptions, KernelOptions, PluginInfo, StartedKernel } from './kernel.js';
export { definePlugin } from './plugins/define.js';
export type {
  AnyPlugin,
  Constructor,
  PluginDefinition,
  PluginRegistrationContext,
  PluginStartContext,
  Resolver,
} from './plugins/types.js';
export type { UrlAllowlist } from './util/allowlist.js';
export type { EventBus, KernelEvents } from './util/events.js';
export { CHARS_PER_TOKEN, charsForTokens, estimateTokens } from './util/tokens.js';
export { KERNEL_VERSION } from './version.js';
/** zod, re-exported so plugins share the kernel's one copy (schemas of options, config sections, tools). */
export { z };

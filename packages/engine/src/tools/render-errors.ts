import { type ErrorPayload, ProContextError } from '@pro-context/kernel';
import { defineMessages } from '@pro-context/plugin-kit';

const RETRY_AFTER = 'Try again after {seconds} seconds.';
const CLEAR_LATER =
  'Clear once the indexing has finished (a process that stopped while indexing holds it for a minute at most).';

/**
 * The sentences of the engine's errors, under the kernel's codes: what an agent reads when a call fails, worded
 * here, in the tool layer, and raised by name where the engine finds the failure (`engineMessages.create`).
 */
export const engineMessages = defineMessages({
  // read-page
  NOT_A_URL: {
    code: 'INVALID_INPUT',
    message: "'{raw}' is not a valid URL.",
    suggestion: 'Pass an absolute http(s) URL from a TOC, a search result or relatedPages.',
  },
  NOT_HTTP: { code: 'URL_NOT_ALLOWED', message: 'read-page only fetches http and https URLs, not {protocol}.' },
  ADDRESS_NOT_ALLOWED: {
    code: 'URL_NOT_ALLOWED',
    message: '{host} is not in the read-page allowlist.',
    suggestion:
      "Use the documentation's own URL (from resolve-library, a TOC or relatedPages). Loopback and private addresses are fetched only with security.allowPrivateNetwork: true; link-local addresses and cloud metadata never.",
  },
  REDIRECT_NOT_ALLOWED: {
    code: 'URL_NOT_ALLOWED',
    message: '{from} redirects to {to}, and {host} is not in the read-page allowlist.',
  },
  PAGE_MISSING: { code: 'PAGE_NOT_FOUND', message: '{url} does not exist (404).' },
  NO_DOCUMENTATION: { code: 'INVALID_CONTENT', message: '{url} has no markdown or HTML documentation.' },
  /** A 429 or 5xx is SOURCE_UNAVAILABLE, another 4xx PAGE_NOT_FOUND: the `_RETRY` forms say when to try again. */
  PAGE_STATUS_UNAVAILABLE: { code: 'SOURCE_UNAVAILABLE', message: '{host} answered {status} for {url}.' },
  PAGE_STATUS_UNAVAILABLE_RETRY: {
    code: 'SOURCE_UNAVAILABLE',
    message: '{host} answered {status} for {url}.',
    suggestion: RETRY_AFTER,
  },
  PAGE_STATUS_NOT_FOUND: { code: 'PAGE_NOT_FOUND', message: '{host} answered {status} for {url}.' },
  PAGE_STATUS_NOT_FOUND_RETRY: {
    code: 'PAGE_NOT_FOUND',
    message: '{host} answered {status} for {url}.',
    suggestion: RETRY_AFTER,
  },
  BINARY_PAGE: { code: 'INVALID_CONTENT', message: '{url} is binary content ({type}), not documentation.' },
  NOT_DOCUMENTATION_TYPE: { code: 'INVALID_CONTENT', message: '{url} is {type}, not documentation.' },
  NO_READABLE_CONTENT: { code: 'INVALID_CONTENT', message: '{url} has no readable content.' },
  OFFSET_PAST_END: {
    code: 'INVALID_INPUT',
    message: 'offset {offset} is past the end of {url}, which is {length} characters long (about {tokens} tokens).',
    suggestion:
      'Pass an offset below {length} (the nextOffset of an earlier read-page answer), or 0 to read from the start.',
  },
  NOT_A_CURSOR: {
    code: 'INVALID_INPUT',
    message: "'{cursor}' is not a cursor list-libraries gave.",
    suggestion: 'Pass the nextCursor of the previous list-libraries answer, or no cursor for the first page.',
  },
  CURSOR_PAST_END: {
    code: 'INVALID_INPUT',
    message: "'{cursor}' points past the end of the list: {total} libraries match.",
    suggestion:
      'Call list-libraries without a cursor for the first page (the list changes as libraries are resolved and cached), with the same filters as the call that gave the cursor.',
  },
  // libraries
  /** `{inLanguage}`: ` in <language>`, or nothing; `{unasked}`: ` It could not be looked up: <why>.`, or nothing. */
  NO_LIBRARY_MATCH: {
    code: 'LIBRARY_NOT_FOUND',
    message: "No library matches '{query}'{inLanguage}.{unasked}",
    suggestion:
      "Check the spelling, or call resolve-library with another name or a few words of what it does (list-libraries with a query, e.g. query: 'http client', lists candidates).",
  },
  /** The suggestion of {@link NO_LIBRARY_MATCH} when the name matches a library of another language. */
  OTHER_LANGUAGE: {
    code: 'LIBRARY_NOT_FOUND',
    message: "No library matches '{query}'{inLanguage}.{unasked}",
    suggestion: "Did you mean '{libraryId}' ({language})?",
  },
  UNKNOWN_LIBRARY: {
    code: 'LIBRARY_NOT_FOUND',
    message: "No library '{libraryId}' is known.",
    suggestion:
      "Call resolve-library with the library's name to find its ID (list-libraries with a query, e.g. query: 'http client', lists candidates).",
  },
  // indexing
  DOCS_GONE: {
    code: 'INDEXING_IN_PROGRESS',
    message:
      'The {libraryId} {version} documentation is no longer complete in the cache: the next call indexes it again.',
  },
  NO_CONTENT: {
    code: 'INVALID_CONTENT',
    message: '{adapter} found no documentation content for {library}.',
    suggestion:
      'Check the documentation settings of {libraryId} ({settings}): {adapter} read no page with content from them.',
  },
  /** `{where}`: ` by another server sharing the cache (process <pid>)`, or nothing. */
  LIBRARY_BEING_INDEXED: {
    code: 'INDEXING_IN_PROGRESS',
    message: '{libraryId} is being indexed right now{where}.',
    suggestion: CLEAR_LATER,
  },
  ONE_BEING_INDEXED: {
    code: 'INDEXING_IN_PROGRESS',
    message: '{builds} is being indexed right now.',
    suggestion: CLEAR_LATER,
  },
  SEVERAL_BEING_INDEXED: {
    code: 'INDEXING_IN_PROGRESS',
    message: '{builds} are being indexed right now.',
    suggestion: CLEAR_LATER,
  },
  // deadlines
  TIMED_OUT: {
    code: 'SOURCE_UNAVAILABLE',
    message: '{what}: no page arrived for {seconds} s, the source timed out.',
    suggestion:
      'The fetch goes on in the background while the server runs: call again in a few seconds, or raise engine.interactiveTimeoutMs for a slow source.',
    recoverable: true,
  },
  // sources
  /** `{note}`: what a provider knows of where the documentation is not (` <docsNote>`), or nothing. */
  SOURCE_NOT_INSTALLED: {
    code: 'SOURCE_UNAVAILABLE',
    message: 'No documentation source can serve {name}.{note}',
    suggestion: "The source '{source}' configured for {libraryId} is not installed.",
    recoverable: false,
  },
  /** `{what}`: `the folder (localPath) '<path>'` or `the repository '<url>'`. */
  NO_SOURCE_READS: {
    code: 'SOURCE_UNAVAILABLE',
    message: 'No documentation source can serve {name}.{note}',
    suggestion:
      '{libraryId} is configured with {what}, but no installed source reads it: enable the plugin that does, or add a docsUrl or sources.llmsTxt.llmsTxtUrl.',
    recoverable: false,
  },
  NO_SOURCE_CONFIGURED: {
    code: 'SOURCE_UNAVAILABLE',
    message: 'No documentation source can serve {name}.{note}',
    suggestion: 'Give {libraryId} a docsUrl, sources.llmsTxt.llmsTxtUrl or repository in the configuration.',
    recoverable: false,
  },
  /** `{what}`: `fetch the documentation`, `read the table of contents`…; `{why}`: each source's failure. */
  ALL_SOURCES_FAILED: { code: 'SOURCE_UNAVAILABLE', message: 'Could not {what} for {name}. {why}' },
  // versions
  NOT_A_VERSION: {
    code: 'INVALID_INPUT',
    message: "'{spec}' is not a version of {name}.",
    suggestion: "Give a version ({example}), a range (^2, >=2,<3, 2.x) or 'latest'{known}.",
  },
  /** `{placeholder}` is the literal `{version}` of a versioned docs URL. */
  UNDOCUMENTED_VERSION: {
    code: 'VERSION_NOT_FOUND',
    message:
      "{name} {version} was released, but its documentation is not available: {name}'s documentation URL is not version-specific, and the documentation there describes the latest stable version, {latest}.",
    suggestion:
      "Call again with version '{latest}' (or without a version) to read the {latest} documentation, which may not match {version}; or configure a sources.llmsTxt.versionedDocsUrl containing {placeholder} for {libraryId}.",
  },
  /** `{message}`: the registry's VERSION_NOT_FOUND; `{known}`: `Known versions: …. ` or nothing; `{check}`: ` to check '<requested>'` or nothing. */
  UNREFRESHED_VERSIONS: {
    code: 'VERSION_NOT_FOUND',
    message:
      '{message}: the {registry} registry could not be asked ({reason}), so the list of versions could not be refreshed.',
    suggestion:
      '{known}Ask again without a version for the current documentation, or once the {registry} registry can be reached{check}.',
  },
  NO_MATCHING_VERSION: {
    code: 'VERSION_NOT_FOUND',
    message: "{name} has no version matching '{spec}' in {registry}.",
    suggestion: 'Available versions: {versions}',
  },
  NO_KNOWN_VERSION: { code: 'VERSION_NOT_FOUND', message: "{library} has no known version '{requested}'." },
  NO_VERSION: {
    code: 'VERSION_NOT_FOUND',
    message: "{library} has no version '{requested}'.",
    suggestion: 'Available versions: {versions}',
  },
});

/**
 * A refusal recorded with a page (`URL_NOT_ALLOWED`, `PAGE_NOT_FOUND`…), raised again as it was worded the first
 * time, marked `cached`.
 */
export function recordedRefusal(refused: Pick<ErrorPayload, 'code' | 'message' | 'details'>): ProContextError {
  return new ProContextError(refused.code, refused.message, { details: { ...refused.details, cached: true } });
}

/** `error` with a sentence added to its message (what a provider knows of the library); the rest kept, `error` the cause. */
export function withNote(error: ProContextError, note: string): ProContextError {
  return new ProContextError(error.code, `${error.message} ${note}`, {
    recoverable: error.recoverable,
    ...(error.suggestion ? { suggestion: error.suggestion } : {}),
    ...(error.retryAfter ? { retryAfter: error.retryAfter } : {}),
    ...(error.details ? { details: error.details } : {}),
    cause: error,
  });
}

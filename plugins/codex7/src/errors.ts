import { defineErrors } from '@pro-context/kernel';
import { defineMessages } from '@pro-context/plugin-kit';

/** Codex7's error codes; the first two are the seed's exact messages (seed 002, "Validation"). */
export const codex7Errors = defineErrors({
  CODEX7_NOT_LOCAL: {
    recoverable: true,
    message: "This library is not locally indexed. Use 'get-context7-docs' instead.",
    suggestion: 'Call get-context7-docs with the same libraryId and one topic string.',
  },
  CODEX7_IS_LOCAL: {
    recoverable: true,
    message: "This is a local library. Use 'get-library-docs' for enhanced features.",
    suggestion: 'Call get-library-docs with the same libraryId; choose topics from resolve-library-id.',
  },
  CODEX7_UNKNOWN_TOPIC: {
    recoverable: true,
    message: "'{topic}' is not a topic of {library}. Available: {available}.",
    suggestion: "Choose topics from the 'topics' of resolve-library-id (a category or one of its entries).",
  },
  CODEX7_UNKNOWN_DOCUMENT: {
    recoverable: true,
    message: "'{path}' is not a document of {library}.",
    suggestion: "Choose a path from the 'documents' of resolve-library-id.",
  },
  CODEX7_PATH_WITH_FILTERS: {
    recoverable: true,
    message: 'path reads one whole document; it cannot be combined with {others}.',
    suggestion: 'Call get-library-docs either with path alone, or with topics and/or customQuery.',
  },
  CODEX7_BAD_LIBRARY_ID: {
    recoverable: true,
    message: "'{libraryId}' is not a Context7 library ID (/org/project, optionally /org/project/version).",
    suggestion: "Pass the 'id' resolve-library-id returned, unchanged.",
  },
  CODEX7_NO_PASSTHROUGH: {
    recoverable: false,
    message: '{service} cannot answer get-context7-docs: it takes no library ID as given.',
    suggestion: 'Enable the context7 plugin (or codex7, which brings its client) as the documentation fallback.',
  },
});

/** The sentences codex7 answers under the kernel's codes (its message catalog). */
export const codex7Messages = defineMessages({
  NONE_ANYWHERE: {
    code: 'SOURCE_UNAVAILABLE',
    message: 'No documentation of {name} could be fetched ({reason}), and Context7 has none either.',
  },
  NO_MATCH: { code: 'LIBRARY_NOT_FOUND', message: "No library matches '{name}', locally or on Context7." },
  UNFETCHED: {
    code: 'SOURCE_UNAVAILABLE',
    message: 'The documentation of {name} could not be fetched: {reason}. {hint}',
    suggestion: '{hint} Or try again later.',
  },
});

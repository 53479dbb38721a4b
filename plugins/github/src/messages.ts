import { defineMessages } from '@pro-context/plugin-kit';

const RATE_LIMITED_MESSAGE = 'The GitHub API rate limit is exhausted ({limit} requests an hour{resets}).';

/** The github plugin's sentences under the kernel's codes (its message catalog). */
export const githubMessages = defineMessages({
  API_URL_ENV_INVALID: {
    code: 'CONFIG_INVALID',
    message: 'PRO_CONTEXT_GITHUB_API_URL is not an http(s) URL: "{value}".',
    suggestion:
      'Set PRO_CONTEXT_GITHUB_API_URL to the API root, such as {defaultUrl} or https://HOST/api/v3, or unset it.',
  },
  NOT_A_REPOSITORY_FILE: { code: 'PAGE_NOT_FOUND', message: '{url} is not a file of a GitHub repository.' },
  NO_FILE: { code: 'PAGE_NOT_FOUND', message: '{repo} has no file {path} at {ref}.' },
  NO_REPOSITORY: {
    code: 'SOURCE_UNAVAILABLE',
    message: "Library '{id}' names no GitHub repository.",
    suggestion:
      'Give {id} a repository (owner/repo or a GitHub URL) or sources.github.repo, or let another source serve it.',
    recoverable: false,
  },
  NO_READABLE_PAGE: {
    code: 'INVALID_CONTENT',
    message: 'The docs folder {docsPath} of {repo} at {ref} has no readable page.',
  },
  /** `{resets}`: `, resets at <time>` when the reset time is known, else nothing. */
  RATE_LIMITED: {
    code: 'RATE_LIMITED',
    message: RATE_LIMITED_MESSAGE,
    suggestion: 'Try again after {seconds} seconds; cached documentation keeps answering meanwhile.',
  },
  RATE_LIMITED_WITHOUT_TOKEN: {
    code: 'RATE_LIMITED',
    message: RATE_LIMITED_MESSAGE,
    suggestion:
      'Try again after {seconds} seconds, or set sources.github.token (PRO_CONTEXT_GITHUB_TOKEN) for 5000 requests an hour; cached documentation keeps answering meanwhile.',
  },
  NOT_FOUND: {
    code: 'SOURCE_UNAVAILABLE',
    message: 'GitHub has no {what} (HTTP 404).',
    suggestion: "Check the repository (sources.github.repo or repository) and the version's tag.",
    recoverable: false,
  },
  NOT_FOUND_WITHOUT_TOKEN: {
    code: 'SOURCE_UNAVAILABLE',
    message: 'GitHub has no {what} (HTTP 404).',
    suggestion:
      "Check the repository (sources.github.repo or repository) and the version's tag; a private repository needs sources.github.token.",
    recoverable: false,
  },
  REFUSED: {
    code: 'SOURCE_UNAVAILABLE',
    message: 'GitHub refused to serve {what} (HTTP {status}).',
    suggestion: 'Check sources.github.token (PRO_CONTEXT_GITHUB_TOKEN): it may be expired or lack access.',
    recoverable: false,
  },
  HTTP_STATUS: { code: 'SOURCE_UNAVAILABLE', message: 'GitHub answered HTTP {status} for {what}.' },
});

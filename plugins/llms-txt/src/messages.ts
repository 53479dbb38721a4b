import { defineMessages } from '@pro-context/plugin-kit';

/** `{where}`: the settings that point at the files (`docsUrl of <library>`). */
const CHECK_WHERE =
  'Check {where} in the configuration, or set sources.llmsTxt.llmsTxtUrl / llmsFullTxtUrl if the site publishes these files elsewhere.';
const RETRY_LATER = 'details.skipped says why each page failed; if the site was failing, try again later.';

/** The llms-txt plugin's sentences under the kernel's codes (its message catalog). */
export const llmsTxtMessages = defineMessages({
  FULL_TXT_OVER_MB: {
    code: 'INVALID_CONTENT',
    message: '{url} is larger than {mb} MB, the limit of an llms-full.txt (sources.llmsTxt.maxFullTxtMB).',
    suggestion:
      'Raise sources.llmsTxt.maxFullTxtMB in the configuration (MB), or point the library at an llms.txt that lists its pages (sources.llmsTxt.llmsTxtUrl).',
  },
  FULL_TXT_OVER_TOKENS: {
    code: 'INVALID_CONTENT',
    message: '{url} is larger than {mb} MB, the limit of an llms-full.txt (sources.llmsTxt.maxFullTxtTokens).',
    suggestion:
      'Set sources.llmsTxt.preferFullTxt to true to index it whole (within sources.llmsTxt.maxFullTxtMB), or raise sources.llmsTxt.maxFullTxtTokens.',
  },
  EMPTY_SECTIONS: { code: 'INVALID_CONTENT', message: '{url} lists sections but none has any content.' },
  NO_PAGE_READ: {
    code: 'SOURCE_UNAVAILABLE',
    message: 'None of the pages listed in {url} could be read.',
    suggestion: RETRY_LATER,
  },
  NO_SITE: {
    code: 'SOURCE_UNAVAILABLE',
    message: "Library '{id}' names no documentation site for llms.txt.",
    suggestion: 'Give the library a docsUrl or sources.llmsTxt.llmsTxtUrl, or let another source serve it.',
    recoverable: false,
  },
  NOT_LLMS_TXT: { code: 'INVALID_CONTENT', message: '{url} is not an llms.txt file: {why}.' },
  MALFORMED: { code: 'INVALID_CONTENT', message: 'Malformed llms.txt at {url}: {why}.' },
  NO_LLMS_TXT_NOR_FULL: {
    code: 'SOURCE_UNAVAILABLE',
    message: 'No llms.txt at {url} (HTTP {status}), nor llms-full.txt at {fullUrl} (HTTP {fullStatus}).',
    suggestion: CHECK_WHERE,
    recoverable: false,
  },
  NO_LLMS_TXT_FULL_NOT_TEXT: {
    code: 'SOURCE_UNAVAILABLE',
    message: 'No llms.txt at {url} (HTTP {status}), and {fullUrl} is not an llms-full.txt file: {why}.',
    suggestion: CHECK_WHERE,
    recoverable: false,
  },
  NO_LLMS_TXT_FULL_TOO_LARGE: {
    code: 'SOURCE_UNAVAILABLE',
    message: 'No llms.txt at {url} (HTTP {status}), and {fullUrl} is too large.',
    suggestion: CHECK_WHERE,
    recoverable: false,
  },
  NO_LLMS_TXT_FULL_EMPTY: {
    code: 'SOURCE_UNAVAILABLE',
    message: 'No llms.txt at {url} (HTTP {status}), and {fullUrl} has no pages.',
    suggestion: CHECK_WHERE,
    recoverable: false,
  },
  /** `{what}`: `llms.txt` or `llms-full.txt`. */
  NO_FILE: {
    code: 'SOURCE_UNAVAILABLE',
    message: 'No {what} at {url} (HTTP {status}).',
    suggestion: CHECK_WHERE,
    recoverable: false,
  },
  PAGE_TIMED_OUT: {
    code: 'SOURCE_UNAVAILABLE',
    message: '{url} did not arrive within {seconds} s (sources.llmsTxt.pageTimeoutSeconds).',
    suggestion: 'The page is left out; raise sources.llmsTxt.pageTimeoutSeconds for a slow site.',
    recoverable: true,
  },
  NOT_TEXT_PAGE: { code: 'INVALID_CONTENT', message: '{url} is not a text page ({kind}).' },
  NO_PAGE_AT: { code: 'PAGE_NOT_FOUND', message: 'No page at {url}.' },
  NO_PAGE: { code: 'PAGE_NOT_FOUND', message: 'No page at {url} (HTTP {status}).' },
  NO_SECTION: {
    code: 'PAGE_NOT_FOUND',
    message: '{file} has no section {hash}.',
    suggestion: 'The file changed since its table of contents was read; resolve the library again for a fresh TOC.',
  },
  RATE_LIMITING: { code: 'RATE_LIMITED', message: '{host} is rate limiting requests for {url}.' },
  HTTP_STATUS: { code: 'SOURCE_UNAVAILABLE', message: '{url} answered HTTP {status}.' },
  HTTP_STATUS_RETRY: {
    code: 'SOURCE_UNAVAILABLE',
    message: '{url} answered HTTP {status}.',
    suggestion: 'Try again after {seconds} seconds.',
  },
});

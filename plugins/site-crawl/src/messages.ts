import { defineMessages } from '@pro-context/plugin-kit';

const NOTHING_READ = 'No documentation page could be read under {prefix}{first}.';

/** The site-crawl plugin's sentences under the kernel's codes (its message catalog). */
export const siteCrawlMessages = defineMessages({
  NOT_A_DOCUMENTATION_PAGE: { code: 'INVALID_CONTENT', message: '{url} is not a documentation page: {why}' },
  NO_SITE: {
    code: 'SOURCE_UNAVAILABLE',
    message: "Library '{id}' names no documentation site to crawl.",
    suggestion: 'Give {id} a docsUrl (or sources.site.url) in the configuration.',
    recoverable: false,
  },
  /** `{first}`: ` (<url>: <reason>)` of the first page skipped, when there was one. */
  NOTHING_READ: {
    code: 'SOURCE_UNAVAILABLE',
    message: NOTHING_READ,
    suggestion: 'details.skipped says why each page failed; if the site was failing, try again later.',
  },
  NOTHING_FOUND: {
    code: 'SOURCE_UNAVAILABLE',
    message: NOTHING_READ,
    suggestion: 'Check the docsUrl (or sources.site.url) of the library in the configuration.',
  },
  NO_PAGE: { code: 'PAGE_NOT_FOUND', message: 'No page at {url} (HTTP {status}).' },
  RATE_LIMITING: { code: 'RATE_LIMITED', message: '{host} is rate limiting requests for {url}.' },
  HTTP_STATUS: { code: 'SOURCE_UNAVAILABLE', message: '{url} answered HTTP {status}.' },
});

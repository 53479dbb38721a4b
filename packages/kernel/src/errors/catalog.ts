/**
 * The error catalog (seed 001 §11) plus the kernel's own plugin and configuration errors.
 * Every error pro-context reports carries one of these codes.
 */
export const errorCatalog = {
  LIBRARY_NOT_FOUND: {
    recoverable: true,
    suggestion: 'Check the library name, or call list-libraries to see what is available.',
  },
  VERSION_NOT_FOUND: { recoverable: true, suggestion: 'Call resolve-library to see the available versions.' },
  TOPIC_NOT_FOUND: {
    recoverable: true,
    suggestion: 'Try search-docs for broader results, or browse the TOC with read-page.',
  },
  PAGE_NOT_FOUND: {
    recoverable: true,
    suggestion: 'Check the URL or use resolve-library to refresh the TOC.',
  },
  URL_NOT_ALLOWED: {
    recoverable: false,
    suggestion: 'Resolve the library first, or add the domain to your config.',
  },
  SOURCE_UNAVAILABLE: { recoverable: true, suggestion: 'Try again later.' },
  REGISTRY_TIMEOUT: { recoverable: true, suggestion: 'Try again or specify the library ID directly.' },
  RATE_LIMITED: { recoverable: true, suggestion: 'Try again after {retryAfter} seconds.' },
  INDEXING_IN_PROGRESS: { recoverable: true, suggestion: 'Try again in {retryAfter} seconds.' },
  AUTH_REQUIRED: { recoverable: false, suggestion: 'Provide API key via Authorization header.' },
  AUTH_INVALID: { recoverable: false, suggestion: 'Check your API key.' },
  INVALID_CONTENT: { recoverable: false, suggestion: 'URL does not appear to contain documentation.' },
  INVALID_INPUT: { recoverable: true, suggestion: 'Fix the named argument and call the tool again.' },
  INTERNAL_ERROR: { recoverable: true, suggestion: 'This has been logged. Try again.' },
  // the kernel's own errors: raised at start-up, before anything is served
  CONFIG_INVALID: { recoverable: false, suggestion: 'Fix the named key in the configuration and start again.' },
  PLUGIN_INVALID: { recoverable: false, suggestion: 'Fix the plugin definition.' },
  PLUGIN_DUPLICATE_ID: { recoverable: false, suggestion: 'Install each plugin once; remove the duplicate.' },
  PLUGIN_KERNEL_MISMATCH: {
    recoverable: false,
    suggestion: 'Install a plugin release built for this kernel, or a kernel in the range the plugin needs.',
  },
  PLUGIN_DEPENDENCY_MISSING: { recoverable: false, suggestion: 'Add the missing plugin with kernel.use(…).' },
  PLUGIN_OPTIONS_INVALID: { recoverable: false, suggestion: "Fix the named option in the plugin's options." },
  CONTRACT_CONFLICT: {
    recoverable: false,
    suggestion: 'Keep one of the two plugins; this contract takes a single provider.',
  },
  KERNEL_STATE: { recoverable: false, suggestion: 'Register plugins before start(), and start a kernel once.' },
} as const satisfies Record<string, { recoverable: boolean; suggestion: string }>;

/** Every error code pro-context reports. */
export type ErrorCode = keyof typeof errorCatalog;

/**
 * One error code: whether the caller may retry, what to do next, and (optionally) the message as a template
 * whose `{placeholders}` are filled from the values given when it is raised (see {@link defineErrors}).
 */
export interface ErrorDefinition {
  readonly recoverable: boolean;
  /** May use `{retryAfter}` and the message's placeholders. */
  readonly suggestion: string;
  /** The message, e.g. `"Plugin '{plugin}' is registered twice."`. */
  readonly message?: string;
}

/** Error codes and their definitions, as a plugin declares them (`errors` of its definition). */
export type ErrorTable = Readonly<Record<string, ErrorDefinition>>;

/**
 * The error catalog (seed 001 §11) plus the kernel's own plugin and configuration errors. Plugins add
 * their own codes (`errors` of a plugin definition); every error pro-context reports carries a registered code.
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
    message: "Nothing in the {library} {version} documentation matches '{topic}'.",
  },
  PAGE_NOT_FOUND: {
    recoverable: true,
    suggestion: 'Check the URL or use resolve-library to refresh the TOC.',
  },
  URL_NOT_ALLOWED: {
    recoverable: false,
    suggestion: 'Resolve the library first, or add the domain to your config.',
    message: '{host} is not in the read-page allowlist.',
  },
  SOURCE_UNAVAILABLE: { recoverable: true, suggestion: 'Try again later.' },
  REGISTRY_TIMEOUT: {
    recoverable: true,
    suggestion: 'Try again or specify the library ID directly.',
    message: '{registry} did not answer {deadline}.',
  },
  REGISTRY_UNREACHABLE: {
    recoverable: true,
    message: '{registry} could not be reached: {reason}.',
    suggestion:
      "Check the network (a firewall, proxy or DNS sinkhole), or point registries.<id>.url at a mirror you can reach; configure the library's docs (libraries in the config) to work without the registry.",
  },
  REGISTRY_ERROR: {
    recoverable: true,
    suggestion: 'The registry answered, but not usefully: try again later, or check registries.<id>.url.',
  },
  RATE_LIMITED: { recoverable: true, suggestion: 'Try again after {retryAfter} seconds.' },
  INDEXING_IN_PROGRESS: {
    recoverable: true,
    suggestion: 'Try again in {retryAfter} seconds.',
    message: 'The {library} {version} documentation is being fetched and indexed for the first time.',
  },
  AUTH_REQUIRED: { recoverable: false, suggestion: 'Provide API key via Authorization header.' },
  AUTH_INVALID: { recoverable: false, suggestion: 'Check your API key.' },
  INVALID_CONTENT: { recoverable: false, suggestion: 'URL does not appear to contain documentation.' },
  PAGE_TOO_LARGE: {
    recoverable: false,
    suggestion:
      'The page is over a size limit of pro-context (the setting is named in the message): read another page of the library, or raise the setting if the page is trusted.',
  },
  PAGE_TOO_COMPLEX: {
    recoverable: false,
    suggestion:
      'The page is over a structure or time limit of pro-context (the setting is named in the message): read another page of the library, or raise the setting if the page is trusted.',
  },
  INVALID_INPUT: { recoverable: true, suggestion: 'Fix the named argument and call the tool again.' },
  INTERNAL_ERROR: { recoverable: true, suggestion: 'This has been logged. Try again.' },
  // the kernel's own errors: raised at start-up, before anything is served
  CONFIG_INVALID: { recoverable: false, suggestion: 'Fix the named key in the configuration and start again.' },
  PLUGIN_INVALID: { recoverable: false, suggestion: 'Fix the plugin definition.' },
  PLUGIN_DEPENDENCY_MISSING: {
    recoverable: false,
    suggestion: 'Add the missing plugin with kernel.use(…).',
    message: "The dependency '{dependency}' of plugin '{plugin}' is not registered.",
  },
  PLUGIN_OPTIONS_INVALID: { recoverable: false, suggestion: "Fix the named option in the plugin's options." },
  CONTRACT_CONFLICT: {
    recoverable: false,
    suggestion: 'Keep one of the two plugins; this contract takes a single provider.',
  },
  KERNEL_STATE: { recoverable: false, suggestion: 'Register plugins before start(), and start a kernel once.' },
} as const satisfies ErrorTable;

/** The kernel's own error codes. */
export type KernelErrorCode = keyof typeof errorCatalog;
/** An error code: one of the kernel's, or one a plugin registered. */
export type ErrorCode = KernelErrorCode | (string & {});

/** Fills `{name}` placeholders from `values`; unknown ones stay as written. */
export function fillTemplate(template: string, values: Readonly<Record<string, unknown>>): string {
  return template.replace(/\{([A-Za-z][A-Za-z0-9]*)\}/g, (whole, name: string) =>
    values[name] === undefined ? whole : String(values[name]),
  );
}

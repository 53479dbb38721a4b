import { createToken, z } from '@pro-context/kernel';
import { pypiMessages } from './messages.js';

/** The environment variable that sets the index's root URL when the `url` option is not given. */
export const PYPI_URL_ENV = 'PRO_CONTEXT_PYPI_URL';

/** The public index, used when neither the `url` option nor {@link PYPI_URL_ENV} is set. */
export const DEFAULT_PYPI_URL = 'https://pypi.org';

/**
 * Options of the pypi plugin (config section `registries.pypi`). A strict object: a misspelt key is an
 * error, not a silent no-op.
 */
export const pypiPluginOptionsSchema = z.strictObject({
  enabled: z.boolean().default(true).describe('Resolve Python package versions and metadata with PyPI.'),
  url: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe(
      `Root of the package index serving the PyPI JSON API ({url}/pypi/{name}/json). Default: ${PYPI_URL_ENV}, else ${DEFAULT_PYPI_URL}.`,
    ),
  timeoutMs: z
    .number()
    .int()
    .min(500)
    .max(60_000)
    .default(5000)
    .describe(
      'Deadline of one registry request, retries included, ms. Short, because resolve-library waits on it: a registry behind a firewall that drops packets costs this long once, then the curated data and the cache answer.',
    ),
  reuseSeconds: z
    .number()
    .int()
    .min(0)
    .max(3600)
    .default(60)
    .describe(
      "Seconds a project's metadata is reused inside the plugin, so resolve-library's lookup and version resolution make one request. The engine keeps the long-lived version cache; 0 turns reuse off.",
    ),
});

/** Options of the pypi plugin as a user writes them (every key optional). */
export type PypiPluginOptionsInput = z.input<typeof pypiPluginOptionsSchema>;

/** Options of the pypi plugin after validation, defaults and the environment: `url` is always set. */
export type PypiPluginOptions = Omit<z.output<typeof pypiPluginOptionsSchema>, 'url'> & { url: string };

/** The resolved options, bound by the plugin for {@link PypiRegistryResolver}'s constructor. */
export const pypiOptionsToken = createToken<PypiPluginOptions>('pypi.options');

/**
 * The index URL: the `url` option, else {@link PYPI_URL_ENV}, else {@link DEFAULT_PYPI_URL}. A bad URL in the
 * environment is refused at start-up, naming the variable.
 */
export function pypiUrlOf(url: string | undefined, env: Record<string, string | undefined> = process.env): string {
  if (url) return url;
  const fromEnv = env[PYPI_URL_ENV]?.trim();
  if (!fromEnv) return DEFAULT_PYPI_URL;
  if (!z.url({ protocol: /^https?$/ }).safeParse(fromEnv).success) {
    throw pypiMessages.create(
      'URL_ENV_INVALID',
      { value: fromEnv.slice(0, 200), defaultUrl: DEFAULT_PYPI_URL },
      { details: { variable: PYPI_URL_ENV } },
    );
  }
  return fromEnv;
}

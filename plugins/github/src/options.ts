import { createToken, z } from '@pro-context/kernel';
import { githubMessages } from './messages.js';
import { trimTrailingSlashes } from './scan.js';

/** The environment variable that sets `sources.github.apiUrl` (GitHub Enterprise: `https://ghe.example.com/api/v3`). */
export const GITHUB_API_URL_ENV = 'PRO_CONTEXT_GITHUB_API_URL';
/** The environment variable that sets `sources.github.token` (a secret: never logged). */
export const GITHUB_TOKEN_ENV = 'PRO_CONTEXT_GITHUB_TOKEN';
/** GitHub's REST API, used when neither `apiUrl` nor {@link GITHUB_API_URL_ENV} is set. */
export const DEFAULT_API_URL = 'https://api.github.com';
/** GitHub's raw file host, used with the default API. */
export const DEFAULT_RAW_URL = 'https://raw.githubusercontent.com';
/** GitHub's web host (blob URLs). */
export const DEFAULT_WEB_URL = 'https://github.com';

const httpUrl = () => z.url({ protocol: /^https?$/ });

/**
 * Options of the github plugin (config section `sources.github`). A strict object: a misspelt key is an error,
 * not a silent no-op.
 */
export const githubPluginOptionsSchema = z.strictObject({
  enabled: z
    .boolean()
    .default(true)
    .describe('Read documentation from GitHub repositories (the docs folder, else the README).'),
  token: z
    .string()
    .min(1)
    .optional()
    .describe(
      `GitHub token (sent as Authorization: Bearer; raises the rate limit from 60 to 5000 requests an hour and reaches private repositories). Default: ${GITHUB_TOKEN_ENV}. Never logged.`,
    ),
  apiUrl: httpUrl()
    .optional()
    .describe(
      `Root of the GitHub REST API (GitHub Enterprise: https://HOST/api/v3). Default: ${GITHUB_API_URL_ENV}, else ${DEFAULT_API_URL}.`,
    ),
  rawUrl: httpUrl()
    .optional()
    .describe(
      `Root of raw file URLs ({rawUrl}/{owner}/{repo}/{ref}/{path}). Default: ${DEFAULT_RAW_URL} with the public API, else {origin of apiUrl}/raw (GitHub Enterprise).`,
    ),
  webUrl: httpUrl()
    .optional()
    .describe(
      `Root of the web pages whose blob URLs read-page hands to this source ({webUrl}/{owner}/{repo}/blob/{ref}/{path}). Default: ${DEFAULT_WEB_URL} with the public API, else the origin of apiUrl.`,
    ),
  rawFileLimit: z
    .number()
    .int()
    .min(0)
    .max(1000)
    .default(8)
    .describe(
      'A docs folder of at most this many files is read file by file from the raw host; a larger one with one tarball download.',
    ),
  maxFiles: z
    .number()
    .int()
    .positive()
    .max(20_000)
    .default(1000)
    .describe('Most documentation files read for one version.'),
  maxTarballBytes: z
    .number()
    .int()
    .positive()
    .default(100 * 1024 * 1024)
    .describe(
      'Largest repository tarball downloaded (bytes). A repository whose files add up to more is read file by file instead (up to maxFiles).',
    ),
  concurrency: z.number().int().min(1).max(32).default(8).describe('Raw files fetched at the same time.'),
  reuseSeconds: z
    .number()
    .int()
    .min(0)
    .max(86_400)
    .default(600)
    .describe(
      'Seconds repository metadata, tags and a version’s files are reused, so resolve-library and the first get-docs cost one download. 0 turns reuse off.',
    ),
});

/** Options of the github plugin as a user writes them (every key optional). */
export type GithubPluginOptionsInput = z.input<typeof githubPluginOptionsSchema>;

/** Options of the github plugin after validation, defaults and the environment: every URL set. */
export type GithubPluginOptions = Omit<z.output<typeof githubPluginOptionsSchema>, 'apiUrl' | 'rawUrl' | 'webUrl'> & {
  apiUrl: string;
  rawUrl: string;
  webUrl: string;
};

/** The resolved options, bound by the plugin for {@link GithubSourceAdapter}'s constructor. */
export const githubOptionsToken = createToken<GithubPluginOptions>('github.options');

const trim = (url: string) => trimTrailingSlashes(url);

/**
 * The options with every URL resolved: `apiUrl` from the option, else {@link GITHUB_API_URL_ENV}, else the
 * public API; `rawUrl` and `webUrl` from their options, else the public hosts with the public API, else the
 * origin of a custom API (GitHub Enterprise serves `/raw/` and blob pages on its own host).
 */
export function resolveGithubOptions(
  options: z.output<typeof githubPluginOptionsSchema>,
  env: Record<string, string | undefined> = process.env,
): GithubPluginOptions {
  let apiUrl = options.apiUrl;
  if (!apiUrl) {
    const fromEnv = env[GITHUB_API_URL_ENV]?.trim();
    if (fromEnv && !httpUrl().safeParse(fromEnv).success) {
      throw githubMessages.create(
        'API_URL_ENV_INVALID',
        { value: fromEnv.slice(0, 200), defaultUrl: DEFAULT_API_URL },
        { details: { variable: GITHUB_API_URL_ENV } },
      );
    }
    apiUrl = fromEnv || DEFAULT_API_URL;
  }
  const publicApi = trim(apiUrl) === DEFAULT_API_URL;
  const origin = new URL(apiUrl).origin;
  return {
    ...options,
    apiUrl: trim(apiUrl),
    rawUrl: trim(options.rawUrl ?? (publicApi ? DEFAULT_RAW_URL : `${origin}/raw`)),
    webUrl: trim(options.webUrl ?? (publicApi ? DEFAULT_WEB_URL : origin)),
  };
}

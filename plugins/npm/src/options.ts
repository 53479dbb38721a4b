import { homedir } from 'node:os';
import { createToken, z } from '@pro-context/kernel';

/** The environment variable that overrides the registry found in the npm configuration. */
export const NPM_URL_ENV = 'PRO_CONTEXT_NPM_URL';

/**
 * Options of the npm plugin (config section `registries.npm`). A strict object: a misspelt key is an error,
 * not a silent no-op.
 */
export const npmPluginOptionsSchema = z.strictObject({
  enabled: z.boolean().default(true).describe('Resolve JavaScript package versions and metadata with an npm registry.'),
  url: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe(
      `Registry URL as npm's registry setting spells it (packuments at {url}/{name}). Default: ${NPM_URL_ENV}, else the registry of your npm configuration (npm_config_registry, the project's .npmrc, ~/.npmrc, then npm config get registry).`,
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
      "Seconds a package's metadata is reused inside the plugin, so resolve-library's lookup and version resolution make one request. The engine keeps the long-lived version cache; 0 turns reuse off.",
    ),
  npmConfigTimeoutMs: z
    .number()
    .int()
    .min(100)
    .max(60_000)
    .default(5000)
    .describe('Deadline of `npm config get registry`, run once when no setting names the registry.'),
});

/** Options of the npm plugin as a user writes them (every key optional). */
export type NpmPluginOptionsInput = z.input<typeof npmPluginOptionsSchema>;

/** Options of the npm plugin after validation and defaults. */
export type NpmPluginOptions = z.output<typeof npmPluginOptionsSchema>;

/** The validated options, bound by the plugin for {@link NpmRegistryResolver}'s constructor. */
export const npmOptionsToken = createToken<NpmPluginOptions>('npm.options');

/** Where the npm configuration is read from: the process's environment, directory and home, by default. */
export interface NpmEnvironment {
  env: Record<string, string | undefined>;
  /** Where the project's `.npmrc` is looked for (npm's rule: the nearest folder with a package.json). */
  cwd: string;
  /** Where `~/.npmrc` is (unless `npm_config_userconfig` names another file). */
  home: string;
  /** Runs `npm config get registry` and returns its output; default spawns npm. */
  npmConfigGetRegistry?: (timeoutMs: number) => Promise<string>;
}

/** The environment the resolver reads its registry from; the plugin binds the process's own. */
export const npmEnvironmentToken = createToken<NpmEnvironment>('npm.environment');

/** The process's environment (a copy, taken now), working directory and home directory. */
export function processNpmEnvironment(): NpmEnvironment {
  return { env: { ...process.env }, cwd: process.cwd(), home: homedir() };
}

import { definePlugin, sourceAdapterToken, type z } from '@pro-context/kernel';
import { GithubSourceAdapter } from './adapter.js';
import {
  GITHUB_API_URL_ENV,
  GITHUB_TOKEN_ENV,
  type GithubPluginOptionsInput,
  githubOptionsToken,
  githubPluginOptionsSchema,
  resolveGithubOptions,
} from './options.js';
import { githubLibrarySettings } from './settings.js';

type ValidatedOptions = z.output<typeof githubPluginOptionsSchema>;

/**
 * The github plugin: binds {@link GithubSourceAdapter} as a source adapter (priority 20: after llms.txt, before
 * a site crawl and local sources). Options come from the `sources.github` config section
 * (`PRO_CONTEXT_GITHUB_TOKEN` sets `token`, `PRO_CONTEXT_GITHUB_API_URL` sets `apiUrl`) or
 * `kernel.use(githubPlugin, options)`. The configured API and raw hosts join the read-page allowlist.
 */
export const githubPlugin = definePlugin<ValidatedOptions, GithubPluginOptionsInput>({
  id: 'github',
  version: '0.1.0',
  description: 'Documentation from GitHub repositories: the docs folder or the README, at the tag of each version',
  kernel: '^0.1.0',
  configKey: 'sources.github',
  optionsSchema: githubPluginOptionsSchema,
  librarySettings: githubLibrarySettings,
  environment: [
    { variable: GITHUB_TOKEN_ENV, key: 'sources.github.token', secret: true },
    { variable: GITHUB_API_URL_ENV, key: 'sources.github.apiUrl' },
  ],
  allowlist: [
    { entry: 'github.com', reason: 'default' },
    { entry: 'raw.githubusercontent.com', reason: 'default' },
  ],
  register(context, options) {
    if (!options.enabled) return;
    context.bindValue(githubOptionsToken, resolveGithubOptions(options));
    context.bindClass(sourceAdapterToken, GithubSourceAdapter);
  },
  start(context, options) {
    if (!options.enabled) return;
    const resolved = resolveGithubOptions(options);
    for (const url of [resolved.rawUrl, resolved.webUrl]) {
      if (!context.allowlist.isAllowed(url)) context.allowlist.allow(new URL(url).hostname, 'sources.github');
    }
  },
});

export default githubPlugin;

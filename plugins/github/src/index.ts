/**
 * @pro-context/plugin-github: a SourceAdapter reading documentation from GitHub repositories (the docs folder
 * or the README, at the git tag of each version), plus the pure helpers it is built on.
 *
 * Every export here is public API.
 */
export { GithubSourceAdapter } from './adapter.js';
export type { RateLimit } from './client.js';
export type { GithubPluginOptions, GithubPluginOptionsInput } from './options.js';
export {
  DEFAULT_API_URL,
  DEFAULT_RAW_URL,
  DEFAULT_WEB_URL,
  GITHUB_API_URL_ENV,
  GITHUB_TOKEN_ENV,
  githubOptionsToken,
  githubPluginOptionsSchema,
  resolveGithubOptions,
} from './options.js';
export { default, githubPlugin } from './plugin.js';
export type { RepoRef } from './repo.js';
export { parseRepository, tagFor, versionsOfTags } from './repo.js';
export { rstToMarkdown } from './rst.js';
export type { GithubLibrarySettings } from './settings.js';
export { githubLibrarySettings, githubLibrarySettingsSchema, githubSettingsOf } from './settings.js';

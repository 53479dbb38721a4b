/**
 * @pro-context/plugin-pypi: a RegistryResolver for PyPI (and indexes serving the same JSON API), plus the
 * PEP 503 / PEP 440 helpers it is built on.
 *
 * Every export here is public API.
 */
export type { PypiProjectJson, PypiReleaseFile } from './metadata.js';
export { pypiMetadata } from './metadata.js';
export type { PypiPluginOptions, PypiPluginOptionsInput } from './options.js';
export { DEFAULT_PYPI_URL, PYPI_URL_ENV, pypiOptionsToken, pypiPluginOptionsSchema, pypiUrlOf } from './options.js';
export { default, pypiPlugin } from './plugin.js';
export { PypiRegistryResolver } from './resolver.js';
export { nearestVersions, normalizePypiName, pep440Spec, selectVersion } from './versions.js';

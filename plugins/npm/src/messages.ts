import { defineMessages } from '@pro-context/plugin-kit';

/** The npm plugin's sentences under the kernel's codes (its message catalog). */
export const npmMessages = defineMessages({
  NO_PACKAGE: {
    code: 'LIBRARY_NOT_FOUND',
    message: "The npm registry has no package named '{name}'.",
    suggestion: 'Check the package name as it is spelt on npm (npm install <name>), scope included.',
  },
  NO_MATCHING_VERSION: {
    code: 'VERSION_NOT_FOUND',
    message: "{name} has no version matching '{spec}' on npm.",
    suggestion: 'Available versions: {versions}',
  },
  NO_VERSION: {
    code: 'VERSION_NOT_FOUND',
    message: '{name} has no version on npm.',
    suggestion: 'Available versions: {versions}',
  },
  NOT_JSON: {
    code: 'REGISTRY_ERROR',
    message: 'The npm registry ({host}) answered something that is not JSON for {url}.',
    suggestion: 'Check the npm registry in registries.npm.url, PRO_CONTEXT_NPM_URL or your npm configuration.',
  },
  NOT_A_PACKUMENT: {
    code: 'REGISTRY_ERROR',
    message: 'The npm registry ({host}) answered JSON that is not a package document for {url}: {why}.',
    suggestion: 'Check the npm registry in registries.npm.url, PRO_CONTEXT_NPM_URL or your npm configuration.',
  },
  URL_ENV_INVALID: {
    code: 'CONFIG_INVALID',
    message: 'PRO_CONTEXT_NPM_URL is not an http(s) URL: "{value}".',
    suggestion: "Set PRO_CONTEXT_NPM_URL to a registry URL as npm's registry setting spells it, or unset it.",
  },
  NO_REGISTRY: {
    code: 'REGISTRY_UNREACHABLE',
    message: 'Could not find the npm registry to ask: {why}',
    suggestion:
      'Set registries.npm.url or PRO_CONTEXT_NPM_URL to your registry URL, or make `npm config get registry` work.',
  },
});

import { defineMessages } from '@pro-context/plugin-kit';

/** The pypi plugin's sentences under the kernel's codes (its message catalog). */
export const pypiMessages = defineMessages({
  NO_PROJECT: {
    code: 'LIBRARY_NOT_FOUND',
    message: "PyPI has no project named '{name}'.",
    suggestion: 'Check the package name as it is spelt on PyPI (pip install <name>).',
  },
  NO_MATCHING_RELEASE: {
    code: 'VERSION_NOT_FOUND',
    message: "{name} has no release matching '{spec}' on PyPI.",
    suggestion: 'Available versions: {versions}',
  },
  NO_RELEASE: {
    code: 'VERSION_NOT_FOUND',
    message: '{name} has no installable release on PyPI.',
    suggestion: 'Available versions: {versions}',
  },
  NOT_JSON: {
    code: 'REGISTRY_ERROR',
    message: 'PyPI ({host}) answered something that is not JSON for {url}.',
    suggestion: 'Check that registries.pypi.url ({index}) is a package index with the PyPI JSON API.',
  },
  NOT_A_PROJECT: {
    code: 'REGISTRY_ERROR',
    message: 'PyPI ({host}) answered JSON that is not a PyPI project for {url}: {why}.',
    suggestion: 'Check that registries.pypi.url ({index}) is a package index with the PyPI JSON API.',
  },
  URL_ENV_INVALID: {
    code: 'CONFIG_INVALID',
    message: 'PRO_CONTEXT_PYPI_URL is not an http(s) URL: "{value}".',
    suggestion: "Set PRO_CONTEXT_PYPI_URL to the index's root URL, such as {defaultUrl}, or unset it.",
  },
});

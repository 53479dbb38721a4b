import type { PromptDefinition } from '@pro-context/kernel';

/**
 * Renders the seed's template syntax: `{name}` substitutions and `{#if name}…{/if}` blocks that vanish
 * when the argument is empty. Only the template's own whitespace is tidied (the blank lines a vanished
 * block leaves); argument text goes in exactly as given, since a code snippet's blank lines are its code.
 */
export function renderTemplate(template: string, args: Record<string, string | undefined>): string {
  return template
    .replace(/\{#if (\w+)\}([\s\S]*?)\{\/if\}/g, (_m, name: string, body: string) => (args[name]?.trim() ? body : ''))
    .replace(/\n{3,}/g, '\n\n')
    .trim()
    .replace(/\{(\w+)\}/g, (m, name: string) => args[name] ?? m);
}

const fence = '```';

/** The three prompts of seed 001 §7. */
export const enginePrompts: PromptDefinition[] = [
  {
    name: 'migrate-code',
    title: 'Migrate code between versions',
    description: 'Generate a migration plan for upgrading library code between versions.',
    arguments: {
      libraryId: { description: 'Library to migrate', required: true },
      fromVersion: { description: 'Current version', required: true },
      toVersion: { description: 'Target version', required: true },
      codeSnippet: { description: 'Code to migrate', required: false },
    },
    render: (args) =>
      renderTemplate(
        `You are helping migrate code from {libraryId} version {fromVersion} to {toVersion}.

Steps:
1. Use resolve-library to get the documentation index for {libraryId}
2. Look for changelog, migration guide, or "what's new" pages in the TOC
3. Use read-page to fetch the relevant migration/changelog pages
4. If specific APIs in the code snippet need investigation, use get-docs or search-docs

{#if codeSnippet}
Migrate the following code:
${fence}
{codeSnippet}
${fence}
{/if}

Provide:
1. A list of breaking changes between {fromVersion} and {toVersion} that affect this code
2. The migrated code with explanations for each change
3. Any new features in {toVersion} that could improve this code`,
        args,
      ),
  },
  {
    name: 'debug-with-docs',
    title: 'Debug with documentation',
    description: 'Debug an issue using current library documentation.',
    arguments: {
      libraryId: { description: 'Library where the issue occurs', required: true },
      errorMessage: { description: 'Error message or description', required: true },
      codeSnippet: { description: 'Code that produces the error', required: false },
    },
    render: (args) =>
      renderTemplate(
        `You are debugging an issue with {libraryId}.

Error: {errorMessage}

{#if codeSnippet}
Code:
${fence}
{codeSnippet}
${fence}
{/if}

Steps:
1. Use search-docs to find documentation related to this error message or the APIs involved
2. Use read-page on the most relevant search results to understand correct usage
3. If needed, use resolve-library to browse the TOC for related topics

Based on the documentation, identify:
1. The root cause of the error
2. The correct API usage (with documentation source)
3. A fixed version of the code`,
        args,
      ),
  },
  {
    name: 'explain-api',
    title: 'Explain an API',
    description: 'Explain a library API with current documentation and examples.',
    arguments: {
      libraryId: { description: 'Library containing the API', required: true },
      apiName: { description: 'API to explain (class, function, module)', required: true },
      version: { description: 'Specific version', required: false },
    },
    render: (args) =>
      renderTemplate(
        `Explain the {apiName} API from {libraryId}{#if version} (version {version}){/if}.

Steps:
1. Use get-docs to fetch documentation for {apiName}
2. If the result has low confidence or is incomplete, use the relatedPages or resolve-library TOC to find more specific pages
3. Use read-page on relevant pages to get complete API documentation
4. If needed, use search-docs to find related APIs or usage patterns

Provide:
1. What {apiName} does and when to use it
2. Complete parameter/argument documentation
3. Return value documentation
4. At least 2 practical examples from the documentation
5. Common pitfalls or gotchas`,
        args,
      ),
  },
];

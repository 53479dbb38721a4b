import { createToken, defineConfigSection, defineErrors, z } from '@pro-context/kernel';
import { defineMessages } from '@pro-context/plugin-kit';

/**
 * Options of the local-docs plugin (config section `sources.localDocs`). A strict object: a misspelt key is an
 * error, not a silent no-op.
 */
export const localDocsPluginOptionsSchema = z.strictObject({
  enabled: z.boolean().default(true).describe('Serve local folders, local llms.txt files and installed packages.'),
  installedPackages: z
    .boolean()
    .default(true)
    .describe(
      "Serve the docs of the project's dependencies as installed (node_modules/<pkg>: README, docs/, .d.ts; the Python virtual environment's METADATA), at the installed version, offline. Needs project detection (project.autoDetect).",
    ),
  maxFiles: z
    .number()
    .int()
    .positive()
    .max(20_000)
    .default(2000)
    .describe(
      "Most markdown files read from one folder (the rest are left out; resolve-library's notes say how many).",
    ),
  maxFileBytes: z
    .number()
    .int()
    .positive()
    .default(2_000_000)
    .describe('Largest file read, in bytes (a larger one is skipped).'),
});

/** Options of the local-docs plugin after validation and defaults. */
export type LocalDocsPluginOptions = z.output<typeof localDocsPluginOptionsSchema>;

/** Options of the local-docs plugin as a user writes them (every key optional). */
export type LocalDocsPluginOptionsInput = z.input<typeof localDocsPluginOptionsSchema>;

/** The validated options, bound by the plugin. */
export const localDocsOptionsToken = createToken<LocalDocsPluginOptions>('local-docs.options');

const libraryIdPattern = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,199}$/;

/** One custom source (seed 001 §8.4): a library whose docs are an llms.txt URL, a local file or folder, or a repository. */
export const customSourceSchema = z
  .strictObject({
    name: z
      .string()
      .min(1)
      .max(200)
      .describe('Name of the source; the library name unless `libraryName` says otherwise.'),
    libraryId: z
      .string()
      .regex(libraryIdPattern, 'Library ids use letters, digits and -_./ (at most 200 characters)')
      .optional()
      .describe('Canonical id agents pass to get-docs (default: the name, lower-cased).'),
    libraryName: z.string().min(1).max(200).optional().describe('Human-readable library name (default: name).'),
    type: z
      .enum(['url', 'file', 'github'])
      .describe('"url": an llms.txt URL; "file": a local llms.txt, markdown file or folder; "github": a repository.'),
    url: z
      .url({ protocol: /^https?$/ })
      .optional()
      .describe('type url: the llms.txt URL.'),
    path: z
      .string()
      .min(1)
      .optional()
      .describe('type file: an llms.txt, a markdown file or a folder of markdown (relative to the config file).'),
    repo: z.string().min(1).optional().describe('type github: owner/repo or a repository URL.'),
    docsPath: z.string().min(1).optional().describe('type github: the docs folder inside the repository.'),
    description: z.string().max(500).optional().describe('One-sentence description.'),
    language: z.string().min(1).max(40).optional().describe('Programming language, e.g. python or javascript.'),
    aliases: z.array(z.string().min(1).max(200)).optional().describe('Other names agents may use.'),
    ttlHours: z.number().positive().optional().describe('Cache time-to-live, hours.'),
  })
  .superRefine((source, ctx) => {
    const needed = { url: 'url', file: 'path', github: 'repo' } as const;
    const key = needed[source.type];
    if (!source[key])
      ctx.addIssue({ code: 'custom', path: [key], message: `A source of type ${source.type} needs ${key}` });
  });

/** One custom source as validated. */
export type CustomSource = z.output<typeof customSourceSchema>;

/** `sources.custom`: user-configured documentation sources (seed 001 §8.4). */
export const customSourcesSection = defineConfigSection(
  'sources.custom',
  z
    .array(customSourceSchema)
    .default([])
    .describe('Custom documentation sources: llms.txt URLs, local files and folders, repositories.'),
);

/** The plugin's sentences under the kernel's codes (its message catalog). */
export const localDocsMessages = defineMessages({
  NO_FILES: {
    code: 'INVALID_CONTENT',
    message: 'No documentation files were found for {name} in {root}.',
    suggestion: 'Put markdown files (.md, .mdx) in the folder, or point the path at an llms.txt or a markdown file.',
  },
  NOT_A_FILE_OF: {
    code: 'PAGE_NOT_FOUND',
    message: '{url} is not a documentation file of {key}.',
    suggestion: 'Use a URL from the table of contents (resolve-library).',
  },
  NO_LOCAL_DOCS: {
    code: 'SOURCE_UNAVAILABLE',
    message: '{name} has no local documentation: no localPath, and it is not installed in the project.',
    suggestion: 'Give {id} a localPath, or install it in the project (project.workingDirectory).',
    recoverable: false,
  },
  OTHER_VERSION_INSTALLED: {
    code: 'SOURCE_UNAVAILABLE',
    message:
      '{name} {installed} is installed in the project, not {version}: its installed documentation does not describe {version}.',
    recoverable: false,
  },
  NOT_INSTALLED: { code: 'PAGE_NOT_FOUND', message: '{name} is not installed in the project (any more).' },
  NOT_CONFIGURED: { code: 'PAGE_NOT_FOUND', message: 'No local documentation is configured for {libraryId}.' },
  GONE: {
    code: 'PAGE_NOT_FOUND',
    message: '{rel} does not exist in {root}.',
    suggestion: 'Call resolve-library again: the table of contents lists the files that exist now.',
  },
  NOT_LOCAL_URL: { code: 'PAGE_NOT_FOUND', message: '{url} is not a local documentation page.' },
  BAD_ESCAPE: { code: 'PAGE_NOT_FOUND', message: '{url} is not a local documentation page (bad escape).' },
});

/** The plugin's error codes. */
export const localDocsErrors = defineErrors({
  LOCAL_PATH_REFUSED: {
    recoverable: false,
    message: '{path} is outside {root}: local documentation is only read inside its configured folder.',
    suggestion: 'Use a path inside the folder (no "..", no symbolic link leading out of it), or configure that folder.',
  },
  LOCAL_PATH_MISSING: {
    recoverable: false,
    message: '{path} does not exist or cannot be read ({reason}).',
    suggestion: 'Check the localPath or sources.custom path in the configuration.',
  },
});

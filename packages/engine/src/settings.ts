import { defineConfigSection, z } from '@pro-context/kernel';

const libraryIdPattern = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,199}$/;

/** Fields shared by a configured library and a per-library override (seed 001 §12.1). */
const libraryFields = {
  name: z.string().min(1).max(200).describe('Human-readable name.'),
  description: z.string().max(500).optional().describe('One-sentence description.'),
  language: z.string().min(1).max(40).optional().describe('Programming language, e.g. python or javascript.'),
  packageName: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('Package name in its registry (PyPI, npm), if it differs.'),
  aliases: z.array(z.string().min(1).max(200)).optional().describe('Other names agents may use.'),
  categories: z.array(z.string().min(1).max(40)).optional().describe('Categories for list-libraries filtering.'),
  docsUrl: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe('Base URL of the documentation site ({docsUrl}/llms.txt is tried).'),
  llmsTxtUrl: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe('Deprecated: write sources.llmsTxt.llmsTxtUrl. Explicit llms.txt URL.'),
  llmsFullTxtUrl: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe('Deprecated: write sources.llmsTxt.llmsFullTxtUrl. Explicit llms-full.txt URL.'),
  versionedDocsUrl: z
    .string()
    .includes('{version}')
    .optional()
    .describe('Deprecated: write sources.llmsTxt.versionedDocsUrl. Docs URL with a {version} placeholder.'),
  sources: z
    .record(z.string().min(1), z.record(z.string(), z.unknown()))
    .optional()
    .describe(
      'Per-source settings, one mapping per source plugin (llmsTxt: { llmsTxtUrl, llmsFullTxtUrl, versionedDocsUrl }), each checked by its plugin.',
    ),
  packages: z
    .record(
      z.string().regex(/^[a-z][a-z0-9-]*$/, 'Ecosystem names are lower-case, e.g. pypi or npm'),
      z.string().min(1).max(214),
    )
    .optional()
    .describe('Package name per registry ecosystem, e.g. { pypi: pydantic } or { npm: zod }.'),
  repository: z.string().min(1).optional().describe('Source repository, owner/repo or a URL.'),
  docsPath: z.string().min(1).optional().describe('Folder of the docs inside the repository (default docs).'),
  localPath: z.string().min(1).optional().describe('Local folder holding the documentation.'),
  source: z.string().min(1).optional().describe('Force one source adapter by id, e.g. github.'),
  ttlHours: z.number().positive().optional().describe('Cache time-to-live of this library, hours.'),
  defaultVersion: z.string().min(1).max(50).optional().describe('Version served when no registry knows the library.'),
  versions: z
    .array(z.string().min(1).max(50))
    .optional()
    .describe('Known versions, newest first, when no registry knows it.'),
};

/** One library configured by hand (`libraries:` list). */
export const libraryConfigSchema = z
  .strictObject({
    id: z
      .string()
      .regex(libraryIdPattern, 'Library ids use letters, digits and -_./ (at most 200 characters)')
      .optional()
      .describe('Canonical id agents pass to get-docs (default: the name, lower-cased).'),
    ...libraryFields,
  })
  .refine(
    (lib) =>
      lib.docsUrl ||
      lib.versionedDocsUrl ||
      lib.llmsTxtUrl ||
      lib.llmsFullTxtUrl ||
      lib.repository ||
      lib.localPath ||
      lib.source ||
      Object.keys(lib.sources ?? {}).length > 0,
    {
      message:
        'A library needs one of docsUrl, versionedDocsUrl, llmsTxtUrl, llmsFullTxtUrl, repository, localPath, source or sources',
    },
  );

/** `project`: auto-detection and per-library overrides (seed 001 §12.1). */
export const projectConfigSchema = z.strictObject({
  autoDetect: z.boolean().default(true).describe('Scan the working directory for project files.'),
  workingDirectory: z
    .string()
    .default('.')
    .describe(
      'Where detection starts: the project is the nearest folder from here up with a project file (a lockfile, package.json, pyproject.toml, .git); the file system root and the home folder are never scanned.',
    ),
  root: z
    .string()
    .min(1)
    .optional()
    .describe('The project folder, scanned as is, without walking up (env PRO_CONTEXT_PROJECT, --project).'),
  pythonEnv: z
    .string()
    .min(1)
    .optional()
    .describe('Python virtual environment of the project (default: .venv or venv in the working directory).'),
  libraryOverrides: z
    .record(z.string(), z.strictObject({ ...libraryFields, name: libraryFields.name.optional() }))
    .default({})
    .describe('Per-library settings (docsUrl, source, ttlHours…) that override what is detected or known.'),
});

/** One library as configured (`libraries:` list). */
export type LibraryConfig = z.output<typeof libraryConfigSchema>;
/** The `project` section. */
export type ProjectConfig = z.output<typeof projectConfigSchema>;

/** `libraries`: the libraries configured by hand (declared by the engine plugin). */
export const librariesConfigSection = defineConfigSection(
  'libraries',
  z.array(libraryConfigSchema).default([]).describe('Libraries configured by hand.'),
);

/** `project`: auto-detection and per-library overrides (declared by the engine plugin). */
export const projectConfigSection = defineConfigSection('project', projectConfigSchema.prefault({}));

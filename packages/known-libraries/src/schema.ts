import { z } from 'zod';

/** The languages (package ecosystems) of the registry: `python` is PyPI, `javascript` is npm (TypeScript included). */
export const languages = ['python', 'javascript'] as const;
export const languageSchema = z
  .enum(languages)
  .describe('python = a PyPI package; javascript = an npm package (TypeScript too).');
export type Language = z.infer<typeof languageSchema>;

/** The package registry of each language. */
export const registryOf = { python: 'pypi', javascript: 'npm' } as const satisfies Record<Language, string>;

/**
 * The fixed category vocabulary. An entry has one or more; `list-libraries` filters on them. Add a word here
 * (and to the README's table) before using it in the data.
 */
export const categories = [
  'ai', // AI applications in general: models, inference, embeddings
  'llm', // large-language-model clients and frameworks
  'agents', // agent frameworks and SDKs
  'ml', // machine learning and deep learning
  'vector-db', // vector databases and similarity search
  'data', // data frames, pipelines, data engineering
  'scientific', // numerical and scientific computing
  'visualization', // charts and plots
  'database', // database clients and drivers
  'orm', // object-relational / object-document mappers
  'web', // web frameworks
  'server', // HTTP/ASGI/WSGI servers and model servers
  'api', // API clients and API-building toolkits
  'http', // HTTP clients and HTTP-level tooling
  'graphql', // GraphQL clients and servers
  'realtime', // WebSockets, realtime sync
  'async', // async runtimes and concurrency
  'frontend', // browser-side frameworks and libraries
  'ui', // component libraries and UI toolkits
  'css', // styling
  'animation', // animation
  '3d', // 3D graphics
  'state', // state management and data fetching caches
  'forms', // form handling
  'routing', // routers
  'validation', // schema validation
  'serialization', // (de)serialization formats
  'typing', // type checkers and typing helpers
  'testing', // test frameworks, mocking, fixtures
  'linting', // linters
  'formatting', // formatters
  'build', // bundlers, compilers, build systems
  'packaging', // package and project managers
  'tooling', // other developer tooling
  'docs', // documentation generators
  'cli', // command-line interfaces and terminal UIs
  'config', // settings and environment handling
  'logging', // logging
  'observability', // tracing, monitoring, error tracking
  'cloud', // cloud SDKs and platforms
  'edge', // edge runtimes and serverless
  'devops', // infrastructure and operations
  'queue', // task queues, workflows, schedulers
  'messaging', // messaging and communication APIs
  'email', // email sending
  'payments', // payments
  'auth', // authentication and authorization
  'security', // cryptography and security
  'scraping', // HTML parsing and crawling
  'automation', // browser and workflow automation
  'templating', // template engines
  'images', // image processing
  'date-time', // dates and times
  'search', // search engines and retrieval
  'i18n', // internationalization
  'mobile', // mobile apps
  'desktop', // desktop apps
  'runtime', // runtimes and script runners
  'utilities', // general-purpose utilities
] as const;
export const categorySchema = z.enum(categories);
export type Category = z.infer<typeof categorySchema>;

/** Registry ids: letters, digits and `-_.`, starting with a letter or digit (a subset of the kernel's library ids). */
export const idPattern = /^[a-z0-9][a-z0-9._-]{0,199}$/;
/** A PyPI or npm package name as published (npm: optionally `@scope/`). */
export const packageNamePattern = /^(@[a-z0-9][a-z0-9._-]*\/)?[A-Za-z0-9][A-Za-z0-9._-]*$/;
/** A GitHub repository, `owner/repo`. */
export const repositoryPattern = /^[A-Za-z0-9][A-Za-z0-9-]*\/[A-Za-z0-9._-]+$/;

const httpsUrl = z
  .url({ protocol: /^https$/ })
  .startsWith('https://')
  .describe('An absolute https URL.');

/** An llms.txt-style file and whether its existence was checked. */
export const llmsFileSchema = z
  .strictObject({
    url: httpsUrl,
    checked: z
      .boolean()
      .describe(
        'true when the URL was seen in public material recorded in `evidence`; false for a well-known pattern that nobody checked.',
      ),
    evidence: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Where the URL was seen (required when checked): a corpus file, a directory, a survey, the site itself.',
      ),
  })
  .refine((f) => !f.checked || f.evidence, { message: 'A checked URL names its evidence', path: ['evidence'] });
export type LlmsFile = z.infer<typeof llmsFileSchema>;

/**
 * How a release version becomes the `{version}` of a versioned-docs URL: `exact` (`2.10.3`), `major.minor`
 * (`2.10`), `major` (`2`), `majorminor` (`20` for 2.0, as docs.sqlalchemy.org/en/20/).
 */
export const versionFormats = ['exact', 'major.minor', 'major', 'majorminor'] as const;
export const versionFormatSchema = z.enum(versionFormats);
export type VersionFormat = z.infer<typeof versionFormatSchema>;

export const versionedDocsSchema = z.strictObject({
  url: z
    .string()
    .regex(/^https:\/\/[^\s]*\{version\}/, 'An https URL containing {version}')
    .refine((u) => URL.canParse(u.replaceAll('{version}', '1')), 'A valid URL once {version} is filled in')
    .describe('The docs URL of one version, with a {version} placeholder.'),
  version: versionFormatSchema.describe('How a release version is written into {version}.'),
});
export type VersionedDocs = z.infer<typeof versionedDocsSchema>;

/** One library of the registry. */
export const knownLibrarySchema = z.strictObject({
  id: z
    .string()
    .regex(idPattern)
    .describe('Canonical id: the primary package name, normalized (see the README for the rule).'),
  name: z.string().min(1).max(100).describe('Human-readable name.'),
  description: z.string().min(10).max(300).describe('One sentence.'),
  language: languageSchema,
  packages: z
    .array(z.string().regex(packageNamePattern))
    .min(1)
    .describe("Package names in the language's registry (PyPI or npm); the first is the primary one."),
  aliases: z.array(z.string().min(1).max(100)).default([]).describe('Other names people type for it.'),
  categories: z.array(categorySchema).min(1).describe('Categories from the fixed vocabulary.'),
  docsUrl: httpsUrl.describe('Home of the current documentation.'),
  llmsTxt: llmsFileSchema.optional().describe('The llms.txt the project publishes, when it has one.'),
  llmsFullTxt: llmsFileSchema
    .optional()
    .describe('The llms-full.txt (or equivalent single-file docs), when published.'),
  versionedDocs: versionedDocsSchema.optional().describe('Per-version documentation, where the site keeps it.'),
  repository: z.string().regex(repositoryPattern).optional().describe('Source repository on GitHub, owner/repo.'),
  docsRepository: z
    .string()
    .regex(repositoryPattern)
    .optional()
    .describe('Repository holding the docs when it is not the source repository, owner/repo.'),
  docsPath: z
    .string()
    .regex(/^[^/\s][^\s]*[^/\s]$|^[^/\s]$/)
    .optional()
    .describe('Folder of the docs inside docsRepository (or repository), without leading or trailing slash.'),
});
export type KnownLibrary = z.infer<typeof knownLibrarySchema>;
export type KnownLibraryInput = z.input<typeof knownLibrarySchema>;

/** The data file: `data/libraries.json`. */
export const registryFileSchema = z.strictObject({
  $schema: z.string().optional(),
  libraries: z.array(knownLibrarySchema),
});
export type RegistryFile = z.infer<typeof registryFileSchema>;

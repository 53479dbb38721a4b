import { z } from '@pro-context/kernel';

/** Library ids (seed 001 §10.2): alphanumerics and `-_./`, at most 200 characters. */
export const libraryIdSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._/-]*$/, 'Use the libraryId from resolve-library (letters, digits and -_./)')
  .describe('Canonical library ID from resolve-library');

const versionSchema = z.string().min(1).max(50).describe('Default: the installed version, else latest stable');
const languageSchema = z.enum(['python', 'javascript']).describe('Language (JavaScript includes TypeScript).');

const tocEntrySchema = z.object({
  title: z.string().describe('Page title'),
  url: z.string().describe('For read-page'),
  description: z.string().optional(),
  section: z.string().optional(),
});

/** resolve-library (seed 001 §5.1). */
export const resolveLibraryInput = z.object({
  query: z.string().min(1).max(500).describe("Library name or query ('fastapi', 'pydantic v2')"),
  language: languageSchema.optional(),
  libraryId: libraryIdSchema.optional().describe('A libraryId you already have (skips matching)'),
});

export const resolveLibraryOutput = z.object({
  libraryId: z.string(),
  name: z.string(),
  description: z.string(),
  language: z.string(),
  defaultVersion: z.string().describe('Served when no version is asked (installed, else latest stable)'),
  availableVersions: z.array(z.string()).describe('Most recent first, at most 10'),
  sources: z.array(z.string()),
  toc: z.array(tocEntrySchema).describe('Documentation pages'),
  tocTruncated: z.boolean().describe('More entries in the resource library://{libraryId}/toc'),
  alternatives: z
    .array(z.object({ id: z.string(), name: z.string(), description: z.string() }))
    .describe('Other libraries that matched'),
  requestedVersion: z.string().optional().describe("The version the query asked for ('pydantic v1')"),
  notes: z.array(z.string()).optional().describe('Read these: why docs are missing, a version that does not exist'),
  tocError: z
    .object({ code: z.string(), message: z.string(), timedOut: z.boolean() })
    .optional()
    .describe('Why the TOC is empty (a failure, not an empty library)'),
});

/** get-docs (seed 001 §5.2). */
export const getDocsInput = z.object({
  libraryId: libraryIdSchema,
  topic: z.string().max(500).describe("Topic ('dependency injection'); empty for an overview"),
  version: versionSchema.optional(),
  maxTokens: z.number().int().min(500).max(10000).default(5000).describe('Answer size in tokens'),
});

export const getDocsOutput = z.object({
  content: z.string().describe('Markdown'),
  source: z.string().describe('URL'),
  version: z.string(),
  lastUpdated: z.iso.datetime(),
  confidence: z.number().min(0).max(1),
  cached: z.boolean(),
  stale: z.boolean().describe('The documentation may be outdated'),
  relatedPages: z
    .array(z.object({ title: z.string(), url: z.string(), description: z.string() }))
    .describe('Pages to read-page if the content is not enough'),
  moreSections: z.number().int().min(0).describe('Matching sections left out (raise maxTokens or search-docs)'),
  notes: z
    .array(z.string())
    .optional()
    .describe('Pages of this library left out over a per-page limit (the page, the limit, the setting)'),
});

/** search-docs (seed 001 §5.3). */
export const searchDocsInput = z.object({
  libraryId: libraryIdSchema,
  query: z.string().min(1).max(500),
  version: versionSchema.optional(),
  maxResults: z.number().int().min(1).max(20).default(5),
});

export const searchDocsOutput = z.object({
  results: z.array(
    z.object({
      title: z.string(),
      snippet: z.string(),
      relevance: z.number().min(0).max(1),
      url: z.string().describe('For read-page'),
      section: z.string(),
      kind: z
        .enum(['guide', 'reference', 'troubleshooting', 'migration', 'release-notes', 'changelog', 'blog'])
        .describe('History kinds (release notes, changelog, blog) may describe an older version'),
    }),
  ),
  totalMatches: z.number(),
  version: z.string(),
});

/** read-page (seed 001 §5.4), with the offset of seed 001 Q1. */
export const readPageInput = z.object({
  url: z.string().min(1).max(2000).describe('A URL from a TOC, a search result or relatedPages'),
  maxTokens: z.number().int().min(500).max(50000).default(10000).describe('Answer size in tokens'),
  offset: z.number().int().min(0).default(0).describe('nextOffset of a cut page, to continue'),
});

export const readPageOutput = z.object({
  content: z.string().describe('Markdown'),
  title: z.string(),
  url: z.string(),
  contentLength: z.number().describe("The page's length in tokens"),
  truncated: z.boolean(),
  cached: z.boolean(),
  offset: z.number(),
  nextOffset: z.number().optional().describe('Pass as offset to continue'),
});

/** list-libraries (seed 001 §5.5). */
export const listLibrariesInput = z.object({
  query: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe("Words that must all appear in a library's id, name, description or categories ('http client')."),
  language: languageSchema.optional().describe('Filter by programming language.'),
  category: z.string().min(1).max(40).optional().describe("Filter by category ('ai', 'web', 'data', 'testing')."),
  cursor: z.string().min(1).max(100).optional().describe('nextCursor of the previous answer: the next page.'),
});

export const listLibrariesOutput = z.object({
  libraries: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      description: z.string(),
      language: z.string(),
      defaultVersion: z.string(),
      categories: z.array(z.string()),
      sources: z.array(z.string()),
      projectDetected: z.boolean().describe('In this project (defaultVersion is the installed one)'),
      detectedFrom: z.string().optional().describe("The project file ('uv.lock')"),
      cached: z.boolean().optional(),
    }),
  ),
  total: z.number().describe('Libraries matching (this page lists some)'),
  nextCursor: z.string().optional().describe('Pass as cursor for the next page'),
});

/** The tools' input and output schemas, by name (the package's `schemas` export). */
export const schemas = {
  libraryIdSchema,
  resolveLibraryInput,
  resolveLibraryOutput,
  getDocsInput,
  getDocsOutput,
  searchDocsInput,
  searchDocsOutput,
  readPageInput,
  readPageOutput,
  listLibrariesInput,
  listLibrariesOutput,
} as const;

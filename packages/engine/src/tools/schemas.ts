import { z } from '@pro-context/kernel';

/** Library ids (seed 001 §10.2): alphanumerics and `-_./`, at most 200 characters. */
export const libraryIdSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._/-]*$/, 'Use the libraryId from resolve-library (letters, digits and -_./)')
  .describe('Canonical library ID from resolve-library');

const versionSchema = z.string().min(1).max(50).describe('Library version. Defaults to latest stable if omitted.');
const languageSchema = z
  .enum(['python', 'javascript'])
  .describe('Programming language filter. Python and JavaScript/TypeScript libraries are supported.');

const tocEntrySchema = z.object({
  title: z.string().describe('Page title'),
  url: z.string().describe('Page URL (can be passed to read-page)'),
  description: z.string().optional().describe('One-sentence description of the page'),
  section: z.string().optional().describe("Section grouping (e.g., 'Getting Started', 'API Reference')"),
});

/** resolve-library (seed 001 §5.1). */
export const resolveLibraryInput = z.object({
  query: z
    .string()
    .min(1)
    .max(500)
    .describe("Library name or natural language query (e.g., 'langchain', 'python fastapi', 'pydantic v2')"),
  language: languageSchema.optional(),
  libraryId: libraryIdSchema
    .optional()
    .describe('A libraryId you already have: skips fuzzy matching and goes straight to versions and the TOC.'),
});

export const resolveLibraryOutput = z.object({
  libraryId: z.string().describe("Canonical library identifier (e.g., 'langchain-ai/langchain')"),
  name: z.string().describe('Human-readable library name'),
  description: z.string().describe('Brief library description'),
  language: z.string().describe('Programming language'),
  defaultVersion: z.string().describe('Latest stable version'),
  availableVersions: z.array(z.string()).describe('Recent available versions (most recent first, max 10)'),
  sources: z
    .array(z.string())
    .describe("Available documentation sources (e.g., ['llms-txt', 'github']), the one used first"),
  toc: z
    .array(tocEntrySchema)
    .describe(
      'Table of contents — documentation pages available for this library. Use read-page to fetch any of these URLs.',
    ),
  tocTruncated: z
    .boolean()
    .describe('True when the TOC has more entries than shown; read library://{libraryId}/toc for all.'),
  alternatives: z
    .array(z.object({ id: z.string(), name: z.string(), description: z.string() }))
    .describe('Other libraries that also matched the query'),
  requestedVersion: z
    .string()
    .optional()
    .describe("The version the query asked for (e.g. 'pydantic v1'), when it exists and has its own documentation"),
  notes: z
    .array(z.string())
    .optional()
    .describe('What the agent should know: no documentation indexed and why, a hinted version that does not exist'),
  tocError: z
    .object({
      code: z.string().describe('Error code, e.g. SOURCE_UNAVAILABLE'),
      message: z.string(),
      timedOut: z.boolean().describe('True when the source did not answer within the tool deadline'),
    })
    .optional()
    .describe('Why the table of contents is empty: the documentation source failed or timed out (not a success)'),
});

/** get-docs (seed 001 §5.2). */
export const getDocsInput = z.object({
  libraryId: libraryIdSchema,
  topic: z
    .string()
    .max(500)
    .describe(
      "Documentation topic (e.g., 'chat models', 'streaming', 'dependency injection'); empty for the library's overview",
    ),
  version: versionSchema.optional(),
  maxTokens: z
    .number()
    .int()
    .min(500)
    .max(10000)
    .default(5000)
    .describe('Maximum tokens to return. Default: 5000. Range: 500-10000.'),
});

export const getDocsOutput = z.object({
  content: z.string().describe('Documentation content in markdown format'),
  source: z.string().describe('URL where documentation was fetched from'),
  version: z.string().describe('Exact version of documentation returned'),
  lastUpdated: z.iso.datetime().describe('When this documentation was last fetched/verified'),
  confidence: z.number().min(0).max(1).describe('Relevance confidence score (1.0 = exact match, 0.0 = no match)'),
  cached: z.boolean().describe('Whether this result was served from cache'),
  stale: z.boolean().describe('Whether the cached content may be outdated'),
  relatedPages: z
    .array(z.object({ title: z.string(), url: z.string(), description: z.string() }))
    .describe(
      'Other documentation pages that may be relevant. Use read-page to fetch them if the above content is insufficient.',
    ),
  moreSections: z
    .number()
    .int()
    .min(0)
    .describe(
      'Sections that matched nearly as well as those given but were left out (less relevant, or past maxTokens): get them with relatedPages, a larger maxTokens or search-docs',
    ),
  notes: z
    .array(z.string())
    .optional()
    .describe(
      "What the agent should know about this library's index: pages left out over a per-page limit (the page, the limit and the setting that raises it)",
    ),
});

/** search-docs (seed 001 §5.3). */
export const searchDocsInput = z.object({
  libraryId: libraryIdSchema.describe('Canonical library ID'),
  query: z.string().min(1).max(500).describe("Search query (e.g., 'retry logic', 'error handling middleware')"),
  version: versionSchema.optional().describe('Library version. Defaults to latest stable.'),
  maxResults: z
    .number()
    .int()
    .min(1)
    .max(20)
    .default(5)
    .describe('Maximum number of results. Default: 5. Range: 1-20.'),
});

export const searchDocsOutput = z.object({
  results: z.array(
    z.object({
      title: z.string().describe('Section/page title'),
      snippet: z.string().describe('Relevant text excerpt (~100 tokens)'),
      relevance: z.number().min(0).max(1).describe('BM25 relevance score (normalized)'),
      url: z.string().describe('Page URL — use read-page to fetch full content'),
      section: z.string().describe('Documentation section path'),
      kind: z
        .enum(['guide', 'reference', 'troubleshooting', 'migration', 'release-notes', 'changelog', 'blog'])
        .describe(
          "The page's kind: a guide, a reference page, troubleshooting, a migration guide, or the library's history (release notes, changelog, blog post: may describe an older version)",
        ),
    }),
  ),
  totalMatches: z.number().describe('Total matches found (may exceed maxResults)'),
  version: z.string().describe('Exact version searched'),
});

/** read-page (seed 001 §5.4), with the offset of seed 001 Q1. */
export const readPageInput = z.object({
  url: z
    .string()
    .min(1)
    .max(2000)
    .describe(
      "Documentation page URL to fetch. Must be from a resolved library's TOC, a search result, or a relatedPages entry.",
    ),
  maxTokens: z
    .number()
    .int()
    .min(500)
    .max(50000)
    .default(10000)
    .describe(
      'Maximum tokens to return. Default: 10000. If the page exceeds this limit, content is truncated with a note indicating more content is available.',
    ),
  offset: z
    .number()
    .int()
    .min(0)
    .default(0)
    .describe('Character offset to start reading from: the nextOffset of a truncated read-page result.'),
});

export const readPageOutput = z.object({
  content: z.string().describe('Page content in markdown format'),
  title: z.string().describe('Page title'),
  url: z.string().describe('Canonical URL of the fetched page'),
  contentLength: z.number().describe('Total content length in estimated tokens'),
  truncated: z.boolean().describe('Whether the content was truncated due to maxTokens'),
  cached: z.boolean().describe('Whether this page was served from cache'),
  offset: z.number().describe('Character offset this content starts at'),
  nextOffset: z.number().optional().describe('Offset to pass to read-page to continue, when truncated'),
});

/** list-libraries (seed 001 §5.5). */
export const listLibrariesInput = z.object({
  language: languageSchema.optional().describe('Filter by programming language.'),
  category: z.string().min(1).max(40).optional().describe("Filter by category (e.g., 'ai', 'web', 'data', 'testing')"),
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
      projectDetected: z.boolean().describe('Whether this library was detected in the current project'),
      detectedFrom: z
        .string()
        .optional()
        .describe("The project file it was detected in (e.g. 'uv.lock'); defaultVersion is then the installed version"),
    }),
  ),
  total: z.number(),
});

import * as z from 'zod';
import { logLevels } from '../logging/logger.js';

/** `server`: how the hosts listen. */
export const serverConfigSchema = z.strictObject({
  transport: z
    .enum(['stdio', 'http'])
    .default('stdio')
    .describe('"stdio" for one agent, "http" for a shared team server.'),
  port: z.number().int().min(1).max(65535).default(3100).describe('HTTP port (http transport only).'),
  host: z.string().min(1).default('127.0.0.1').describe('HTTP bind address (http transport only).'),
});

/** `logging`: JSON lines (or pretty lines) on stderr. */
export const loggingConfigSchema = z.strictObject({
  level: z.enum(logLevels).default('info').describe('Lowest level written: debug, info, warn or error.'),
  format: z
    .enum(['json', 'pretty'])
    .default('json')
    .describe('"json": one object per line. "pretty": short human lines.'),
});

/** `security`: network guard and `read-page` allowlist. */
export const securityConfigSchema = z.strictObject({
  allowPrivateNetwork: z
    .boolean()
    .default(false)
    .describe('Allow requests to loopback and private addresses (tests, intranet documentation). Default false.'),
  urlAllowlist: z
    .array(z.string().min(1))
    .default([])
    .describe('Extra hosts (docs.example.com), wildcard suffixes (*.example.com) or URL prefixes read-page may fetch.'),
  cors: z
    .strictObject({
      origins: z.array(z.string()).default(['*']).describe('Allowed CORS origins (HTTP mode).'),
    })
    .prefault({})
    .describe('CORS (HTTP mode only).'),
});

/** `http`: the guarded HTTP client's limits. */
export const httpConfigSchema = z.strictObject({
  timeoutMs: z.number().int().positive().default(30_000).describe('Overall deadline per request, ms.'),
  connectTimeoutMs: z.number().int().positive().default(10_000).describe('Connect timeout, ms.'),
  headersTimeoutMs: z.number().int().positive().default(15_000).describe('Time to first response headers, ms.'),
  bodyTimeoutMs: z.number().int().positive().default(30_000).describe('Maximum idle time while reading a body, ms.'),
  retries: z.number().int().min(0).max(10).default(2).describe('Retries on network errors, 5xx and 429.'),
  retryDelaysMs: z
    .array(z.number().int().min(0))
    .min(1)
    .default([1000, 3000])
    .describe('Backoff before each retry, ms (the last value repeats).'),
  maxBodyBytes: z
    .number()
    .int()
    .positive()
    .default(10 * 1024 * 1024)
    .describe('Largest response body accepted, bytes.'),
  maxRedirects: z.number().int().min(0).max(20).default(5).describe('Most redirects followed per request.'),
  userAgent: z.string().optional().describe('User-Agent header sent upstream.'),
  proxy: z
    .union([z.string().url(), z.literal(false)])
    .optional()
    .describe('Proxy URL; default from HTTPS_PROXY / HTTP_PROXY (NO_PROXY honoured). false disables.'),
});

/** `rateLimit`: per-key token buckets (HTTP mode). */
export const rateLimitConfigSchema = z.strictObject({
  maxRequestsPerMinute: z.number().int().positive().default(60).describe('Refill rate per API key.'),
  burstSize: z.number().int().positive().default(10).describe('Bucket capacity per API key.'),
});

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
  workingDirectory: z.string().default('.').describe('Directory to scan (defaults to the current directory).'),
  libraryOverrides: z
    .record(z.string(), z.strictObject({ ...libraryFields, name: libraryFields.name.optional() }))
    .default({})
    .describe('Per-library settings (docsUrl, source, ttlHours…) that override what is detected or known.'),
});

/** The kernel's own configuration sections. Plugins add theirs at their `configKey`. */
export const kernelConfigShape = {
  server: serverConfigSchema.prefault({}),
  logging: loggingConfigSchema.prefault({}),
  security: securityConfigSchema.prefault({}),
  http: httpConfigSchema.prefault({}),
  rateLimit: rateLimitConfigSchema.prefault({}),
  project: projectConfigSchema.prefault({}),
  libraries: z.array(libraryConfigSchema).default([]).describe('Libraries configured by hand.'),
};

/** The kernel's sections of a validated configuration. */
export interface KernelConfig {
  server: z.output<typeof serverConfigSchema>;
  logging: z.output<typeof loggingConfigSchema>;
  security: z.output<typeof securityConfigSchema>;
  http: z.output<typeof httpConfigSchema>;
  rateLimit: z.output<typeof rateLimitConfigSchema>;
  project: z.output<typeof projectConfigSchema>;
  libraries: z.output<typeof libraryConfigSchema>[];
}

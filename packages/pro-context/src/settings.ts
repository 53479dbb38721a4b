import { createRequire } from 'node:module';
import { defineConfigSection, definePlugin, z } from '@pro-context/kernel';
import { PLUGINS_ENV, pluginsConfigSection } from './remote-plugins.js';

/** `server`: how the hosts listen. */
export const serverConfigSchema = z.strictObject({
  transport: z
    .enum(['stdio', 'http'])
    .default('stdio')
    .describe('"stdio" for one agent, "http" for a shared team server.'),
  port: z.number().int().min(1).max(65535).default(3100).describe('HTTP port (http transport only).'),
  host: z.string().min(1).default('127.0.0.1').describe('HTTP bind address (http transport only).'),
  stateless: z
    .boolean()
    .default(false)
    .describe('HTTP: one MCP server per POST, no sessions (no notifications outside a request).'),
  auth: z
    .enum(['apiKey', 'none'])
    .default('apiKey')
    .describe('HTTP: "apiKey" (Bearer keys made with pro-context-admin) or "none" (loopback binds only).'),
  allowedHosts: z
    .array(z.string().min(1))
    .default([])
    .describe('HTTP: host names clients use (Host header check against DNS rebinding); loopback names always pass.'),
  maxSessions: z.number().int().positive().default(100).describe('HTTP: most open MCP sessions.'),
  maxSessionsPerKey: z
    .number()
    .int()
    .positive()
    .default(10)
    .describe(
      'HTTP: most open MCP sessions of one API key (its initialize beyond gets 429), so one key cannot take every slot.',
    ),
  headersTimeoutSeconds: z
    .number()
    .positive()
    .default(10)
    .describe(
      "HTTP: a client's request headers must arrive within this time, or the connection gets 408 and is closed.",
    ),
  requestTimeoutSeconds: z
    .number()
    .positive()
    .default(30)
    .describe('HTTP: a whole request (headers and body) must arrive within this time (408 beyond).'),
  keepAliveTimeoutSeconds: z
    .number()
    .positive()
    .default(5)
    .describe('HTTP: an idle keep-alive connection is closed after this time.'),
  sessionIdleMinutes: z.number().positive().default(30).describe('HTTP: a session idle this long is closed.'),
  maxRequestBodyKB: z.number().int().positive().default(1024).describe('HTTP: largest request body, KB (413 beyond).'),
  metrics: z
    .strictObject({
      enabled: z.boolean().default(true).describe('Serve GET /metrics (Prometheus text).'),
      auth: z
        .enum(['apiKey', 'none'])
        .default('apiKey')
        .describe('"apiKey": /metrics needs a key like /mcp; "none": open (use on a private network).'),
      port: z
        .number()
        .int()
        .min(0)
        .max(65535)
        .optional()
        .describe('Serve /metrics on this port of server.host instead, without a key (and not on the MCP port).'),
    })
    .prefault({})
    .describe('HTTP: Prometheus metrics.'),
  answerMemo: z
    .strictObject({
      enabled: z
        .boolean()
        .default(true)
        .describe('Answer a repeated get-docs (same arguments, same docs in memory) from its serialized answer.'),
      maxEntries: z.number().int().positive().default(1000).describe('Answers kept at most.'),
      maxMB: z.number().positive().default(16).describe('Memory the kept answers may take, MB.'),
    })
    .prefault({})
    .describe('HTTP: the answer memo (every hit still checks the key, the rate limit and counts usage).'),
  heapGrowthPercent: z
    .number()
    .int()
    .min(0)
    .max(1000)
    .default(30)
    .describe(
      "How far the JavaScript heap may grow past its live size before V8 collects it, % (V8's --heap-growing-percent for the serving process; 0 = V8's own policy, up to 4x on a large machine).",
    ),
  holdYoungGeneration: z
    .boolean()
    .default(true)
    .describe(
      "Keep the serving thread's young generation (V8's new space) at its initial 1-2 MB instead of V8's up to 32 MB, kept for the life of the process (~40 MB less RSS, the same CPU time measured; a --max-semi-space-size given to node wins).",
    ),
});

/** `rateLimit`: per-key token buckets (HTTP mode). */
export const rateLimitConfigSchema = z.strictObject({
  maxRequestsPerMinute: z.number().int().positive().default(60).describe('Refill rate per API key.'),
  burstSize: z.number().int().positive().default(10).describe('Bucket capacity per API key.'),
});

/** `security.cors`: allowed origins (HTTP mode). */
export const corsConfigSchema = z
  .strictObject({
    origins: z.array(z.string()).default(['*']).describe('Allowed CORS origins (HTTP mode).'),
  })
  .prefault({})
  .describe('CORS (HTTP mode only).');

/** `server`: which host serves MCP (stdio or the HTTP team server) and how the HTTP host listens. */
export const serverConfigSection = defineConfigSection('server', serverConfigSchema.prefault({}));
/** `rateLimit`: the HTTP host's default per-key token bucket (`pro-context-admin keys limit` overrides it per key). */
export const rateLimitConfigSection = defineConfigSection('rateLimit', rateLimitConfigSchema.prefault({}));
/** `security.cors`: the HTTP host's CORS origins (an `Origin` outside them gets 403). */
export const corsConfigSection = defineConfigSection('security.cors', corsConfigSchema);

/**
 * Sections of first-party plugins (seed 001 §12.1 and the plugins this project ships or plans): set while
 * their plugin is not installed, they are a warning, not an error.
 */
export const firstPartySections = [
  'server',
  'project',
  'cache',
  'sources',
  'sources.llmsTxt',
  'sources.github',
  'sources.custom',
  'sources.localDocs',
  'rateLimit',
  'logging',
  'security',
  'http',
  'libraries',
  'search',
  'registries',
  'context7',
  'grounding',
  'exa',
  'embeddings',
  'auth',
  'embed',
  'metrics',
];

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

/**
 * The preset's own settings, as a plugin that binds nothing: the hosts' sections (`server`, `rateLimit`,
 * `security.cors`), their environment variables, the first-party sections, and the `read-page` host of PyPI (the
 * GitHub plugin declares its own hosts and variables).
 */
export const proContextPlugin = definePlugin({
  id: 'pro-context',
  version,
  description: 'The pro-context preset: host settings and first-party defaults.',
  kernel: '^0.1.0',
  configSections: [serverConfigSection, rateLimitConfigSection, corsConfigSection, pluginsConfigSection],
  environment: [
    { variable: 'PRO_CONTEXT_TRANSPORT', key: 'server.transport' },
    // seed 004's name for the port; PRO_CONTEXT_PORT, applied after it, wins when both are set
    { variable: 'MCP_PORT', key: 'server.port', type: 'number' },
    { variable: 'PRO_CONTEXT_PORT', key: 'server.port', type: 'number' },
    { variable: 'PRO_CONTEXT_STATELESS', key: 'server.stateless', type: 'boolean' },
    { variable: 'PRO_CONTEXT_METRICS_AUTH', key: 'server.metrics.auth' },
    { variable: 'PRO_CONTEXT_HOST', key: 'server.host' },
    { variable: PLUGINS_ENV, key: 'plugins' },
  ],
  reservedSections: firstPartySections,
  allowlist: [{ entry: 'pypi.org', reason: 'default' }],
  register() {},
});

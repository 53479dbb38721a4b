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

/** `server`: which host serves MCP (stdio only in this build), and where the HTTP host will listen. */
export const serverConfigSection = defineConfigSection('server', serverConfigSchema.prefault({}));
/** `rateLimit`: reserved for the HTTP host (accepted, not used yet). */
export const rateLimitConfigSection = defineConfigSection('rateLimit', rateLimitConfigSchema.prefault({}));
/** `security.cors`: reserved for the HTTP host (accepted, not used yet). */
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
  'auth',
  'embed',
  'metrics',
];

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

/**
 * The preset's own settings, as a plugin that binds nothing: the hosts' sections (`server`; `rateLimit` and
 * `security.cors` until the HTTP host exists and declares them), their environment variables, the first-party
 * sections, and the `read-page` host of PyPI (the GitHub plugin declares its own hosts and variables).
 */
export const proContextPlugin = definePlugin({
  id: 'pro-context',
  version,
  description: 'The pro-context preset: host settings and first-party defaults.',
  kernel: '^0.1.0',
  configSections: [serverConfigSection, rateLimitConfigSection, corsConfigSection, pluginsConfigSection],
  environment: [
    { variable: 'PRO_CONTEXT_TRANSPORT', key: 'server.transport' },
    { variable: 'PRO_CONTEXT_PORT', key: 'server.port', type: 'number' },
    { variable: 'PRO_CONTEXT_HOST', key: 'server.host' },
    { variable: PLUGINS_ENV, key: 'plugins' },
  ],
  reservedSections: firstPartySections,
  allowlist: [{ entry: 'pypi.org', reason: 'default' }],
  register() {},
});

import net from 'node:net';
import { type KernelConfig, logLevels, z } from '@pro-context/kernel';

/** `logging`: read by the logger factory given to `createKernel` (`@pro-context/logging`: JSON or pretty lines on stderr). */
export const loggingConfigSchema = z.strictObject({
  level: z.enum(logLevels).default('info').describe('Lowest level written: debug, info, warn or error.'),
  format: z
    .enum(['json', 'pretty'])
    .default('json')
    .describe('"json": one object per line. "pretty": short human lines.'),
});

/** A host name, a `*.` suffix of names, an IP address or a CIDR range (`@pro-context/http` matches them). */
function isPrivateNetworkEntry(entry: string): boolean {
  const text = entry.trim().toLowerCase();
  const [network = '', prefix, extra] = text.split('/');
  if (extra === undefined && net.isIP(network.replace(/^\[|\]$/g, ''))) {
    if (prefix === undefined) return true;
    const bits = Number(prefix);
    return /^\d+$/.test(prefix) && bits <= (net.isIP(network) === 4 ? 32 : 128);
  }
  return text.length <= 253 && /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(text);
}

const privateNetworkEntry = z
  .string()
  .min(1)
  .refine(
    isPrivateNetworkEntry,
    'Expected a host name (docs.corp.example), *.suffix, IP address or CIDR range (10.1.0.0/16)',
  );

/** `security`: network guard and `read-page` allowlist. */
export const securityConfigSchema = z.strictObject({
  allowPrivateNetwork: z
    .union([z.boolean(), z.array(privateNetworkEntry).max(200)])
    .default(false)
    .describe(
      'Loopback and private addresses requests may reach: a list of host names (docs.corp.example), name suffixes (*.corp.example), addresses or ranges (10.1.0.0/16), or true for all of them (tests). Default false. Link-local addresses (cloud metadata) never.',
    ),
  urlAllowlist: z
    .array(z.string().min(1))
    .default([])
    .describe('Extra hosts (docs.example.com), wildcard suffixes (*.example.com) or URL prefixes read-page may fetch.'),
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

/**
 * The kernel's own configuration sections. Plugins add theirs (`configKey`, `configSections`). Each parses to the
 * kernel's type of its section (`KernelConfig`: a compile error here when the two part).
 */
export const kernelConfigShape = {
  logging: loggingConfigSchema.prefault({}),
  security: securityConfigSchema.prefault({}),
  http: httpConfigSchema.prefault({}),
} satisfies { [K in keyof KernelConfig]: z.ZodType<KernelConfig[K], unknown> };

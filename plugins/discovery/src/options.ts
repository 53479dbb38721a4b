import { createToken, z } from '@pro-context/kernel';

/**
 * Options of the discovery plugin (config section `discovery`). A strict object: a misspelt key is an error,
 * not a silent no-op.
 */
export const discoveryPluginOptionsSchema = z.strictObject({
  enabled: z
    .boolean()
    .default(true)
    .describe('Discover the documentation of packages no library list names, from their PyPI or npm metadata.'),
  ttlHours: z
    .number()
    .min(0)
    .max(24 * 30)
    .default(24)
    .describe(
      'How long what was discovered about a package (its llms.txt, or that it has none) is reused before asking again, hours.',
    ),
  missTtlHours: z
    .number()
    .min(0)
    .max(24 * 30)
    .default(1)
    .describe(
      'How long a name no registry knows, or a discovery whose probes failed for a passing reason (a timeout, a 5xx), is remembered, hours.',
    ),
  probeTimeoutMs: z
    .number()
    .int()
    .min(100)
    .max(60_000)
    .default(5000)
    .describe('Deadline of each probe for an llms.txt or llms-full.txt, ms (no retries).'),
  probeBytes: z
    .number()
    .int()
    .min(1024)
    .max(10 * 1024 * 1024)
    .default(64 * 1024)
    .describe(
      'Bytes of a probed file read to tell whether it is an llms.txt (asked with a Range header; a server that ignores it may send up to 2 MiB).',
    ),
});

/** Options as a user writes them (every key optional). */
export type DiscoveryPluginOptionsInput = z.input<typeof discoveryPluginOptionsSchema>;

/** Options after validation and defaults. */
export type DiscoveryPluginOptions = z.output<typeof discoveryPluginOptionsSchema>;

/** The validated options, bound by the plugin. */
export const discoveryOptionsToken = createToken<DiscoveryPluginOptions>('discovery.options');

import { definePlugin, type LibraryDescriptor, type LibraryProvider, libraryProviderToken, z } from '@pro-context/kernel';
import { toDescriptorFields } from './descriptor.js';
import type { KnownLibrary } from './schema.js';

/** Options of {@link knownLibrariesPlugin} (config section `registry`). */
export const knownLibrariesOptionsSchema = z.strictObject({
  enabled: z
    .boolean()
    .default(true)
    .describe('Serve the built-in list of well-known libraries (false: only the libraries configured).'),
});

/** Options of the plugin as a user writes them. */
export type KnownLibrariesOptionsInput = z.input<typeof knownLibrariesOptionsSchema>;
/** Options of the plugin after validation and defaults. */
export type KnownLibrariesOptions = z.output<typeof knownLibrariesOptionsSchema>;

/**
 * The curated registry as a library provider (priority 100): config (0) overrides its entries field by
 * field, and it overrides discovery and detection (200+). Lists every entry up front; looks up nothing.
 */
export class KnownLibrariesProvider implements LibraryProvider {
  readonly id = 'known-libraries';
  readonly priority = 100;
  private readonly descriptors: readonly LibraryDescriptor[];

  constructor(entries: readonly KnownLibrary[]) {
    this.descriptors = Object.freeze(entries.map(toDescriptorFields));
  }

  libraries(): readonly LibraryDescriptor[] {
    return this.descriptors;
  }
}

/**
 * The known-libraries plugin: binds a {@link KnownLibrariesProvider} over the shipped entries (or `entries`
 * given to {@link createKnownLibrariesPlugin}). `registry.enabled: false` turns the list off.
 */
export function createKnownLibrariesPlugin(entries: () => readonly KnownLibrary[]) {
  return definePlugin<KnownLibrariesOptions, KnownLibrariesOptionsInput>({
    id: 'known-libraries',
    version: '0.1.0',
    description: 'The curated registry of well-known Python and JavaScript libraries, as a library provider',
    kernel: '^0.1.0',
    configKey: 'registry',
    optionsSchema: knownLibrariesOptionsSchema,
    register(context, options) {
      if (!options.enabled) return;
      context.bindFactory(libraryProviderToken, () => new KnownLibrariesProvider(entries()));
    },
  });
}

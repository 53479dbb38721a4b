import { readFileSync } from 'node:fs';
import {
  definePlugin,
  type LibraryDescriptor,
  type LibraryProvider,
  libraryProviderToken,
  z,
} from '@pro-context/kernel';
import { toDescriptorFields } from './descriptor.js';
import { type KnownLibrary, registryFileSchema } from './schema.js';

/**
 * Where the data file is, from `src/` and from `dist/` alike (a bundle that inlines this module ships a copy
 * at `../data/libraries.json` from its own folder, as pro-context's does).
 */
export const librariesDataUrl = new URL('../data/libraries.json', import.meta.url);

/**
 * The shipped entries, read on each call (the plugin calls it once, when the engine's catalog is first used). With `validate`,
 * checked against the zod schema (about 40 ms for the whole file); the plugin skips that: the shipped file is
 * validated by this package's tests, and every start of the server would pay for it.
 */
export function loadKnownLibraries(options: { validate?: boolean } = {}): readonly KnownLibrary[] {
  const json: unknown = JSON.parse(readFileSync(librariesDataUrl, 'utf8'));
  if (options.validate) return registryFileSchema.parse(json).libraries;
  // the schema's one default, applied by hand
  return (json as { libraries: KnownLibrary[] }).libraries.map((l) => ({ ...l, aliases: l.aliases ?? [] }));
}

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
  private descriptors: readonly LibraryDescriptor[] | undefined;
  private readonly entries: () => readonly KnownLibrary[];

  /** `entries`: the list, or a function that reads it, called the first time the libraries are asked for. */
  constructor(entries: readonly KnownLibrary[] | (() => readonly KnownLibrary[])) {
    this.entries = typeof entries === 'function' ? entries : () => entries;
  }

  libraries(): readonly LibraryDescriptor[] {
    this.descriptors ??= Object.freeze(this.entries().map(toDescriptorFields));
    return this.descriptors;
  }
}

/**
 * A known-libraries plugin over `entries` (read when the engine's catalog is first used, only when the plugin is
 * enabled):
 * binds a {@link KnownLibrariesProvider} over the shipped entries (or `entries`
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
      // the data file is read when the engine's catalog first asks for the libraries (its first use), not at start
      context.bindFactory(libraryProviderToken, () => new KnownLibrariesProvider(entries));
    },
  });
}

/**
 * The curated registry as a library provider: `kernel.use(knownLibrariesPlugin)` (config section `registry`;
 * `registry.enabled: false` turns it off). The data file is read on the catalog's first use (the first tool call,
 * or the engine's background phase once the first answers are out), not on import nor at start.
 */
export const knownLibrariesPlugin = createKnownLibrariesPlugin(() => loadKnownLibraries());

export default knownLibrariesPlugin;

import type { Freshness, LibraryDescriptor, Logger } from '@pro-context/kernel';
import type { SourceChain } from '../versions/sources.js';
import { versionKey } from './keys.js';

/** A local check faster than this is made on every load. */
const LOCAL_CHECK_QUICK_MS = 20;
/** A slower one is not repeated for this many times as long as it took. */
const LOCAL_CHECK_SPACING = 10;

/**
 * Whether content a local adapter (`SourceAdapter.local`: files on disk, a cheap freshness check) produced has
 * changed since: asked on every load, so an edited file is answered at once. Other adapters: `false` (their
 * content is checked when the TTL expires).
 */
export class LocalFreshness {
  /** Local freshness checks under way, and those whose "fresh" is still good. */
  private readonly checks = new Map<string, { pending: Promise<boolean> | undefined; freshUntil: number }>();

  constructor(
    private readonly sources: SourceChain,
    private readonly logger: Logger,
  ) {}

  async changed(
    library: LibraryDescriptor,
    version: string,
    record: { adapterId: string; freshness: Freshness },
  ): Promise<boolean> {
    const adapter = this.sources.for(library).find((a) => a.id === record.adapterId);
    if (!adapter?.local) return false;
    const key = `${versionKey(library.id, version)}\0${adapter.id}\0${JSON.stringify(record.freshness)}`;
    const known = this.checks.get(key);
    if (known && (known.pending || known.freshUntil > performance.now())) return known.pending ?? false;
    const started = performance.now();
    const pending = adapter
      .checkFreshness(library, version, record.freshness)
      .then((verdict) => verdict === 'changed')
      .catch((error: unknown) => {
        this.logger.debug('local freshness check failed', { libraryId: library.id, error: String(error) });
        return false;
      });
    const entry = { pending: pending as Promise<boolean> | undefined, freshUntil: 0 };
    this.checks.set(key, entry);
    const changed = await pending;
    entry.pending = undefined;
    const took = performance.now() - started;
    // calls at the same time share one check; a check that takes a while (thousands of files to stat) is not
    // repeated for ten times as long, so that it costs at most a tenth of the time (a quick one is made every call)
    if (changed || took < LOCAL_CHECK_QUICK_MS) this.checks.delete(key);
    else entry.freshUntil = performance.now() + LOCAL_CHECK_SPACING * took;
    if (this.checks.size > 256) this.checks.delete(this.checks.keys().next().value as string);
    return changed;
  }
}

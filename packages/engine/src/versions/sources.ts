import {
  type FetchContext,
  isProContextError,
  type LibraryDescriptor,
  type Logger,
  type ProContextError,
  type SourceAdapter,
} from '@pro-context/kernel';
import { isUnreachableFailure, upstreamFailureOf } from '@pro-context/plugin-kit';
import { engineMessages, withNote } from '../tools/render-errors.js';

/** What the engine remembers about each adapter, for `pro-context://health`. */
export interface AdapterStatus {
  status: 'available' | 'failing' | 'unused';
  lastSuccess?: string;
  lastError?: string;
  lastErrorAt?: string;
  /** When the current run of failures began (cleared by a success): how long the source has been down. */
  failingSince?: string;
}

/** Whether an adapter's result is a condensed summary of documentation published in full elsewhere. */
function isCondensed(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as { condensed?: unknown }).condensed === true;
}

/**
 * The adapter chain (seed 001 §8.1): adapters that can handle a library, in priority order; the first
 * that succeeds wins, failures fall through, and when every one fails the error lists why each did.
 */
export class SourceChain {
  readonly status = new Map<string, AdapterStatus>();

  constructor(
    private readonly adapters: readonly SourceAdapter[],
    private readonly logger?: Logger,
  ) {
    for (const adapter of adapters) this.status.set(adapter.id, { status: 'unused' });
  }

  /**
   * Adapters able to serve this library, best first (a library's `source` forces one); when `documenting` names
   * the adapters that document the version asked (`ServedVersion.documenting`), only those.
   */
  for(library: LibraryDescriptor, documenting?: readonly string[]): SourceAdapter[] {
    return [...this.adapters]
      .filter((a) => (library.source ? a.id === library.source : true) && a.canHandle(library))
      .filter((a) => !documenting || documenting.includes(a.id))
      .sort((a, b) => a.priority - b.priority);
  }

  /** What an adapter reports for `pro-context://health` (its `health()`), if anything; a failing report is left out. */
  adapterHealth(adapterId: string): Record<string, unknown> | undefined {
    const adapter = this.adapters.find((a) => a.id === adapterId);
    try {
      return adapter?.health?.();
    } catch {
      return undefined;
    }
  }

  /** The adapter that owns a URL (for read-page), if any. */
  owner(url: URL): SourceAdapter | undefined {
    return [...this.adapters].sort((a, b) => a.priority - b.priority).find((a) => a.ownsUrl?.(url));
  }

  /**
   * Whether an error means the origin could not be reached (what makes an adapter 'failing'): a recoverable
   * SOURCE_UNAVAILABLE, or any failure the HTTP client classifies as the origin's (refused by policy, as behind a
   * DNS sinkhole; DNS; refused; reset; TLS; timeout; rate limited).
   */
  static unreachable(error: unknown): boolean {
    if (!isProContextError(error)) return true;
    if (error.code === 'SOURCE_UNAVAILABLE' && error.recoverable) return true;
    const failure = upstreamFailureOf(error);
    return (
      isUnreachableFailure(failure) || failure === 'timeout' || failure === 'rate-limited' || failure === 'http-5xx'
    );
  }

  /** Records a success or failure of an adapter. */
  record(adapterId: string, error?: unknown): void {
    const now = new Date().toISOString();
    const current = this.status.get(adapterId) ?? { status: 'unused' };
    if (error === undefined) {
      const { failingSince: _over, ...rest } = current;
      this.status.set(adapterId, { ...rest, status: 'available', lastSuccess: now });
      return;
    }
    this.status.set(adapterId, {
      ...current,
      status: 'failing',
      lastError: error instanceof Error ? error.message : String(error),
      lastErrorAt: now,
      failingSince: current.status === 'failing' && current.failingSince ? current.failingSince : now,
    });
  }

  /**
   * Runs `fn` on each adapter in turn until one succeeds. A result marked `condensed` (a summary of
   * documentation published in full elsewhere, such as an llms.txt written as a short manual) is kept aside
   * while later adapters are tried: the first full result wins, and the condensed one is returned only when
   * every later adapter fails.
   */
  async first<T>(
    library: LibraryDescriptor,
    what: string,
    fn: (adapter: SourceAdapter, context?: FetchContext) => Promise<T>,
    context?: FetchContext,
    documenting?: readonly string[],
  ): Promise<{ value: T; adapter: SourceAdapter; passedOver?: string[] }> {
    const adapters = this.for(library, documenting);
    if (adapters.length === 0) throw noSource(library);
    const failures: string[] = [];
    const errors: unknown[] = [];
    let lastError: unknown;
    let condensed: { value: T; adapter: SourceAdapter; passedOver?: string[] } | undefined;
    /** The result, with why the sources before its own did not serve (a fallback the user should hear of). */
    const served = (value: T, adapter: SourceAdapter) => {
      if (failures.length === 0) return { value, adapter };
      // one human line (the CLI prints the message alone): whose sources failed, the first cause, who served
      const more = failures.length > 1 ? ` and ${failures.length - 1} more` : '';
      this.logger?.warn(
        `${library.name}: documentation source failed (${String(failures[0]).replace(/\.$/, '')}${more}); ${adapter.id} served instead`,
        {
          libraryId: library.id,
          what,
          servedBy: adapter.id,
          failures,
        },
      );
      return { value, adapter, passedOver: [...failures] };
    };
    for (const adapter of adapters) {
      context?.signal?.throwIfAborted();
      try {
        const value = await fn(adapter, context);
        this.record(adapter.id);
        if (isCondensed(value)) {
          condensed ??= served(value, adapter);
          continue;
        }
        return served(value, adapter);
      } catch (error) {
        // only an origin that cannot be reached makes an adapter 'failing'; bad content is the library's problem
        if (SourceChain.unreachable(error)) this.record(adapter.id, error);
        lastError = error;
        errors.push(error);
        failures.push(`${adapter.id}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    if (condensed) return condensed;
    throw allFailed(library, what, adapters.length, failures, errors, lastError);
  }
}

/** SOURCE_UNAVAILABLE for a library no installed source can serve, with what to configure. */
function noSource(library: LibraryDescriptor): ProContextError {
  // a provider that found the library may know where its documentation is not (docs discovery)
  const note = library.docsNote ? ` ${library.docsNote}` : '';
  const values = { name: library.name, note, libraryId: library.id };
  if (library.source) return engineMessages.create('SOURCE_NOT_INSTALLED', { ...values, source: library.source });
  if (library.localPath || library.repository) {
    // it has one: what is missing is a source adapter that reads it
    const what = library.localPath
      ? `the folder (localPath) '${library.localPath}'`
      : `the repository '${library.repository}'`;
    return engineMessages.create('NO_SOURCE_READS', { ...values, what });
  }
  return engineMessages.create('NO_SOURCE_CONFIGURED', values);
}

/** The error of a chain whose every adapter failed: the only one's own, else SOURCE_UNAVAILABLE listing why each did. */
function allFailed(
  library: LibraryDescriptor,
  what: string,
  tried: number,
  failures: readonly string[],
  errors: readonly unknown[],
  lastError: unknown,
): ProContextError | unknown {
  if (tried === 1 && isProContextError(lastError)) {
    // a provider's note on where the documentation is not (docs discovery) still belongs to the answer
    if (!library.docsNote || lastError.message.includes(library.docsNote)) return lastError;
    return withNote(lastError, library.docsNote);
  }
  const why = `${failures.join(' | ')}${library.docsNote ? ` ${library.docsNote}` : ''}`;
  // every source said no for good (not found, not documentation): trying again later would not help, and the
  // first source's advice (the library's own settings, usually) is what to do
  const final = errors.every((e) => isProContextError(e) && !e.recoverable);
  const first = errors[0];
  return engineMessages.create(
    'ALL_SOURCES_FAILED',
    { what, name: library.name, why },
    {
      details: { failures },
      ...(final ? { recoverable: false } : {}),
      ...(final && isProContextError(first) && first.suggestion ? { suggestion: first.suggestion } : {}),
      ...(isProContextError(lastError) && lastError.retryAfter ? { retryAfter: lastError.retryAfter } : {}),
    },
  );
}

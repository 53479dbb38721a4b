import type { IncomingMessage } from 'node:http';
import type { AnswerRevisions, Logger, ToolResultReuse } from '@pro-context/kernel';
import type { HostMetrics } from './metrics.js';
import type { UsageRecorder } from './usage.js';

/** One serialized tool result, and until when it may be served again (`ToolResult.reuse`). */
export interface MemoEntry {
  tool: string;
  /** The JSON-RPC `result` (a `CallToolResult`), serialized. */
  result: Buffer;
  /** `AnswerRevisions.current()` when the answer was made: served only while it is still the current one. */
  revision: number;
  /** Epoch ms: served only before. */
  until: number;
}

/** What a directly answered `tools/call` learns while it runs: its memo key, and the tool's `reuse`, if it gave one. */
export interface MemoSlot {
  key: string;
  tool: string;
  reuse?: ToolResultReuse;
}

/**
 * Serialized answers of tools that said they may be served again (`ToolResult.reuse`: get-docs from docs the
 * engine has), by tool name and arguments as sent. A hit is answered without the MCP server, the tool runner,
 * the tool or serialization. An entry is served only while the kernel's `AnswerRevisions` is still at the
 * revision the answer was made at and the clock is before its `until`: a bump (docs refreshed or re-indexed, a
 * library reconfigured) ends every entry at once, compared on read. Bounded by entries and bytes, least
 * recently used out first.
 */
export class AnswerMemo {
  private readonly entries = new Map<string, MemoEntry>();
  private bytes = 0;

  constructor(
    private readonly revisions: Pick<AnswerRevisions, 'current'>,
    private readonly maxEntries = 1000,
    private readonly maxBytes = 16 * 1024 * 1024,
    private readonly now: () => number = Date.now,
  ) {}

  /** The key of a `tools/call`'s params (name and arguments as sent), or undefined when it has none. */
  static keyOf(params: unknown): { key: string; tool: string } | undefined {
    if (typeof params !== 'object' || params === null) return undefined;
    const { name, arguments: args, task } = params as { name?: unknown; arguments?: unknown; task?: unknown };
    if (typeof name !== 'string' || task !== undefined) return undefined;
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) return undefined;
    return { key: `${name}\u0000${args === undefined ? '{}' : JSON.stringify(args)}`, tool: name };
  }

  get size(): number {
    return this.entries.size;
  }

  private holds(entry: MemoEntry): boolean {
    return entry.revision === this.revisions.current() && this.now() < entry.until;
  }

  /** The entry for `key` while it may be served (one that may not is dropped). */
  get(key: string): MemoEntry | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (!this.holds(entry)) {
      this.delete(key);
      return undefined;
    }
    // most recently used last
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  /** Keeps an answer (not one already past its revision or time, nor one over a quarter of the bytes). */
  set(key: string, entry: MemoEntry): void {
    if (entry.result.length > this.maxBytes / 4 || !this.holds(entry)) return;
    this.delete(key);
    this.entries.set(key, entry);
    this.bytes += entry.result.length;
    for (const [oldest, old] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= old.result.length;
    }
  }

  /** Drops every entry that may no longer be served (run now and then: one nobody asks for again holds memory). */
  sweep(): void {
    for (const key of [...this.entries.keys()]) this.get(key);
  }

  private delete(key: string): void {
    const old = this.entries.get(key);
    if (!old) return;
    this.entries.delete(key);
    this.bytes -= old.result.length;
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}

/** The host's answer memo, as the transports use it. */
export interface MemoHooks {
  store: AnswerMemo;
  /** A `tools/call` answered from the memo (for the host's metrics, usage counts and log); `ms`: its time. */
  onHit(tool: string, req: IncomingMessage & { auth?: { clientId: string } }, ms: number): void;
}

/** Options of the answer memo (`HttpHostOptions.answerMemo`). */
export interface AnswerMemoOptions {
  enabled?: boolean;
  maxEntries?: number;
  maxMB?: number;
}

/**
 * The host's memo: the store, a sweep every 30 s, the store emptied on every bump of `revisions` (its entries
 * could no longer be served anyway: this frees their memory at once), and the hit hooks — a call answered
 * from the memo counts as the call it repeats (metrics, usage, a log record). Undefined when disabled.
 */
export function createAnswerMemo(
  options: AnswerMemoOptions,
  revisions: AnswerRevisions,
  observers: { metrics: HostMetrics; usage: UsageRecorder | undefined; logger: Logger },
): { hooks: MemoHooks; close(): void } | undefined {
  if (options.enabled === false) return undefined;
  const store = new AnswerMemo(revisions, options.maxEntries ?? 1000, (options.maxMB ?? 16) * 1024 * 1024);
  const sweep = setInterval(() => store.sweep(), 30_000);
  sweep.unref();
  const unsubscribe = revisions.onBump(() => store.clear());
  const { metrics, usage } = observers;
  const logger = observers.logger.child({ memo: true });
  const hooks: MemoHooks = {
    store,
    onHit(tool, req, ms) {
      metrics.toolCalls.inc({ tool, outcome: 'ok' });
      metrics.toolDuration.observe({ tool }, ms / 1000);
      metrics.memoHits.inc({ tool });
      const keyId = req.auth?.clientId;
      if (keyId && usage) usage.toolCall(keyId, tool, false);
      logger.info('tool call answered again from the answer memo', { tool });
    },
  };
  return {
    hooks,
    close() {
      clearInterval(sweep);
      unsubscribe();
      store.clear();
    },
  };
}

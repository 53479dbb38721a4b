import type { UsageDelta, UsageStore } from '@pro-context/access';
import type { Logger } from '@pro-context/kernel';

/**
 * Counts requests, errors and tool calls per API key in memory and writes them to the {@link UsageStore} in
 * batches (every `flushMs`, and on {@link flush}): one SQLite transaction per batch instead of one write per
 * request. `pro-context-admin usage` sees a running server's counts after its next flush.
 */
export class UsageRecorder {
  private pending = new Map<string, UsageDelta>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly store: UsageStore,
    private readonly logger: Logger,
    flushMs = 2000,
  ) {
    this.timer = setInterval(() => void this.flush(), flushMs);
    this.timer.unref();
  }

  private delta(keyId: string, at: number): UsageDelta {
    let d = this.pending.get(keyId);
    if (!d) {
      d = { keyId, requests: 0, errors: 0, tools: {}, lastUsedAt: at };
      this.pending.set(keyId, d);
    }
    d.lastUsedAt = Math.max(d.lastUsedAt, at);
    return d;
  }

  request(keyId: string, failed: boolean, at = Date.now()): void {
    const d = this.delta(keyId, at);
    d.requests += 1;
    if (failed) d.errors += 1;
  }

  /** A request of this key that ended with an error status (counted as a request already). */
  failed(keyId: string, at = Date.now()): void {
    this.delta(keyId, at).errors += 1;
  }

  toolCall(keyId: string, tool: string, failed: boolean, at = Date.now()): void {
    const d = this.delta(keyId, at);
    const t = d.tools[tool] ?? { calls: 0, errors: 0 };
    d.tools[tool] = t;
    t.calls += 1;
    if (failed) {
      t.errors += 1;
      d.errors += 1;
    }
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    try {
      await this.store.record(batch);
    } catch (error) {
      this.logger.warn('could not write usage counters', { error });
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}

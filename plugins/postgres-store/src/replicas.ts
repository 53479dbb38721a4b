import type { IndexLease, LeaseHandle, ReplicaEvent, ReplicaEvents } from '@pro-context/engine/api';
import type { AnswerRevisions, Logger } from '@pro-context/kernel';
import type pg from 'pg';
import type { Database } from './database.js';
import { channelOf, migrations } from './schema.js';

/** What travels in a NOTIFY payload (at most 8000 bytes: the reason is cut to 500 characters). */
interface Message {
  from: string;
  type: 'revision' | 'library';
  reason: string;
  libraryId?: string;
}

/** The reason given to `revisions.bump` for a change another replica made (not sent on again). */
const REMOTE = 'postgres-store: another replica';

/**
 * Leases in the `leases` table: taking one is one statement that inserts the row, or takes it over when its
 * holder let it expire (a replica killed mid-build), and returns the row only to the replica that got it. The
 * holder renews it every `ttlMs / 3` until it releases it. Expiry uses the database's clock.
 */
export class PostgresLeases implements IndexLease {
  private readonly table: string;
  private counter = 0;
  private readonly held = new Set<PostgresLease>();

  constructor(
    private readonly db: Database,
    private readonly logger?: Logger,
  ) {
    this.table = db.table('leases');
  }

  async acquire(name: string, ttlMs: number): Promise<LeaseHandle | undefined> {
    await this.db.migrate(migrations);
    this.counter += 1;
    const holder = `${this.db.replicaId}#${this.counter}`;
    const { rows } = await this.db.query<{ holder: string }>(
      `INSERT INTO ${this.table} AS l (name, holder, expires_at)
       VALUES ($1, $2, extract(epoch FROM clock_timestamp()) * 1000 + $3)
       ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
         WHERE l.expires_at < extract(epoch FROM clock_timestamp()) * 1000
       RETURNING holder`,
      [name, holder, ttlMs],
    );
    if (rows[0]?.holder !== holder) return undefined;
    const lease = new PostgresLease(name, holder, ttlMs, this);
    this.held.add(lease);
    return lease;
  }

  async waitFor(name: string, timeoutMs: number): Promise<boolean> {
    await this.db.migrate(migrations);
    const until = Date.now() + timeoutMs;
    let delay = 50;
    for (;;) {
      const { rows } = await this.db.query<{ held: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM ${this.table}
           WHERE name = $1 AND expires_at >= extract(epoch FROM clock_timestamp()) * 1000) AS held`,
        [name],
      );
      if (!rows[0]?.held) return true;
      if (Date.now() >= until) return false;
      await new Promise((resolve) => setTimeout(resolve, Math.min(delay, Math.max(0, until - Date.now()))));
      delay = Math.min(delay * 2, 1000);
    }
  }

  /** @internal */
  async renew(lease: PostgresLease): Promise<boolean> {
    const { rowCount } = await this.db.query(
      `UPDATE ${this.table} SET expires_at = extract(epoch FROM clock_timestamp()) * 1000 + $3
       WHERE name = $1 AND holder = $2`,
      [lease.name, lease.holder, lease.ttlMs],
    );
    return (rowCount ?? 0) > 0;
  }

  /** @internal */
  async drop(lease: PostgresLease): Promise<void> {
    this.held.delete(lease);
    await this.db.query(`DELETE FROM ${this.table} WHERE name = $1 AND holder = $2`, [lease.name, lease.holder]);
  }

  /** @internal */
  warn(message: string): void {
    this.logger?.warn(message);
  }

  /** Releases every lease this process holds (at stop). */
  async releaseAll(): Promise<void> {
    await Promise.all([...this.held].map((lease) => lease.release().catch(() => undefined)));
  }
}

class PostgresLease implements LeaseHandle {
  private timer: NodeJS.Timeout | undefined;
  private holding = true;

  constructor(
    readonly name: string,
    readonly holder: string,
    readonly ttlMs: number,
    private readonly leases: PostgresLeases,
  ) {
    this.timer = setInterval(() => void this.renew(), Math.max(10, Math.floor(ttlMs / 3)));
    this.timer.unref();
  }

  private async renew(): Promise<void> {
    try {
      if (!(await this.leases.renew(this))) {
        this.stop();
        this.leases.warn(
          `postgres-store: the lease '${this.name}' expired before it was renewed; another replica may take it`,
        );
      }
    } catch {
      // the database is unreachable now: the next renewal retries, and expiry frees the lease if it stays so
    }
  }

  private stop(): void {
    this.holding = false;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  held(): boolean {
    return this.holding;
  }

  async release(): Promise<void> {
    if (!this.holding) return;
    this.stop();
    await this.leases.drop(this);
  }
}

/**
 * LISTEN/NOTIFY between the replicas of one schema. Local answer revisions are sent to the others (each bumps its
 * own, so memoized answers made before the change are not served again), and {@link ReplicaEvents} carry which
 * library changed for the engine to drop its in-memory copy. One dedicated connection listens; when it drops,
 * it reconnects (with backoff) and bumps the revisions once, since notifications sent meanwhile were missed.
 */
export class PostgresReplicaEvents implements ReplicaEvents {
  private readonly listeners = new Set<(event: ReplicaEvent) => void>();
  private client: pg.Client | undefined;
  private stopped = false;
  private unsubscribeRevisions: (() => void) | undefined;
  private retryMs = 250;
  private pendingRevision: NodeJS.Timeout | undefined;
  private readonly channel: string;
  /** Notifications received from other replicas (for tests and health). */
  received = 0;

  constructor(
    private readonly db: Database,
    private readonly revisions: AnswerRevisions | undefined,
    private readonly logger?: Logger,
  ) {
    this.channel = channelOf(db.schema);
  }

  async start(): Promise<void> {
    this.unsubscribeRevisions = this.revisions?.onBump((_revision, reason) => {
      if (reason.startsWith(REMOTE) || this.pendingRevision) return;
      // bumps within 20 ms go as one notification
      this.pendingRevision = setTimeout(() => {
        this.pendingRevision = undefined;
        this.send({ from: this.db.replicaId, type: 'revision', reason });
      }, 20);
    });
    await this.listen();
  }

  private async listen(): Promise<void> {
    const client = await this.db.connectListener();
    client.on('notification', (message) => {
      if (message.channel === this.channel && message.payload) this.receive(message.payload);
    });
    client.on('error', () => undefined);
    client.on('end', () => {
      if (this.client === client) this.client = undefined;
      if (!this.stopped) this.reconnectLater();
    });
    await client.query(`LISTEN "${this.channel}"`);
    this.client = client;
    this.retryMs = 250;
  }

  private reconnectLater(): void {
    const timer = setTimeout(() => {
      if (this.stopped) return;
      this.listen().then(
        () => {
          this.logger?.info('postgres-store: listening to other replicas again');
          this.revisions?.bump(`${REMOTE}: reconnected (notifications may have been missed)`);
        },
        () => {
          this.retryMs = Math.min(this.retryMs * 2, 10_000);
          this.reconnectLater();
        },
      );
    }, this.retryMs);
    timer.unref();
  }

  private receive(payload: string): void {
    let message: Message;
    try {
      message = JSON.parse(payload) as Message;
    } catch {
      return;
    }
    if (message.from === this.db.replicaId) return;
    this.received += 1;
    this.revisions?.bump(`${REMOTE} (${message.from}): ${message.reason}`);
    if (message.type === 'library' && typeof message.libraryId === 'string') {
      const event: ReplicaEvent = { kind: 'library', libraryId: message.libraryId, reason: message.reason };
      for (const listener of this.listeners) {
        try {
          listener(event);
        } catch (error) {
          this.logger?.warn(`postgres-store: a replica-event listener failed: ${String(error)}`);
        }
      }
    }
  }

  private send(message: Message): void {
    const payload = JSON.stringify({ ...message, reason: message.reason.slice(0, 500) });
    this.db.query('SELECT pg_notify($1, $2)', [this.channel, payload]).catch((error: unknown) => {
      this.logger?.warn(`postgres-store: could not tell the other replicas (${String((error as Error).message)})`);
    });
  }

  publish(event: ReplicaEvent): void {
    this.send({ from: this.db.replicaId, type: 'library', reason: event.reason, libraryId: event.libraryId });
  }

  subscribe(listener: (event: ReplicaEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribeRevisions?.();
    if (this.pendingRevision) clearTimeout(this.pendingRevision);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}

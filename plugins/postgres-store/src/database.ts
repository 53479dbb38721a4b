import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { ProContextError, redaction, registerSecrets } from '@pro-context/kernel';
import type pg from 'pg';
import { postgresStoreMessages } from './messages.js';
import { postgresStoreErrors } from './options.js';

type Pg = typeof pg;

/**
 * node-postgres, imported on first use: a server on SQLite never loads it (the preset imports this plugin
 * either way), and in the CLI's bundle it is a chunk of its own.
 */
let driver: Promise<{ pg: Pg; types: { getTypeParser: Pg['types']['getTypeParser'] } }> | undefined;
function loadDriver() {
  driver ??= import('pg').then((module) => {
    const pg = (module.default ?? module) as Pg;
    // int8 (epoch ms, counts) as numbers: every value this store writes is below 2^53
    const types = {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === 20 && format !== 'binary'
          ? (value: string) => Number(value)
          : pg.types.getTypeParser(oid, format ?? 'text')) as Pg['types']['getTypeParser'],
    };
    return { pg, types };
  });
  return driver;
}

/** Options of {@link Database}. */
export interface DatabaseOptions {
  url: string;
  schema: string;
  poolSize?: number;
  connectionTimeoutMs?: number;
  statementTimeoutMs?: number;
  /** Name of this replica in leases and notifications. */
  replicaId?: string;
}

/**
 * Where a URL points, without its credentials (`127.0.0.1:5432/pro_context`), for messages. The password is
 * also registered with the kernel's redaction, so a driver message quoting the URL is masked too.
 */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}${parsed.port ? `:${parsed.port}` : ''}${parsed.pathname}`;
  } catch {
    return '(an unparsable URL)';
  }
}

/** Registers the URL's password (and the URL itself) as secrets of this process. */
export function registerUrlSecrets(url: string): void {
  try {
    const parsed = new URL(url);
    const password = decodeURIComponent(parsed.password);
    registerSecrets([password, parsed.password, url]);
  } catch {
    registerSecrets([url]);
  }
}

/**
 * A node-postgres pool on one schema, with versioned migrations and a count of the statements sent (for the
 * bench's "queries per request"). Errors reaching callers are `DATABASE_UNAVAILABLE` for connection failures
 * (named by host and database, never the password) and the driver's own (redacted) for anything else.
 */
export class Database {
  private poolPromise: Promise<pg.Pool> | undefined;
  private closed = false;
  readonly schema: string;
  readonly where: string;
  readonly replicaId: string;
  /** Statements sent by this process. */
  queries = 0;
  private migrated: Promise<void> | undefined;

  constructor(private readonly options: DatabaseOptions) {
    registerUrlSecrets(options.url);
    this.schema = options.schema;
    this.where = describeUrl(options.url);
    this.replicaId =
      options.replicaId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`.slice(0, 100);
  }

  /** The pool, created on first use. */
  pool(): Promise<pg.Pool> {
    this.poolPromise ??= loadDriver().then(({ pg, types }) => {
      const pool = new pg.Pool({
        connectionString: this.options.url,
        max: this.options.poolSize ?? 10,
        connectionTimeoutMillis: this.options.connectionTimeoutMs ?? 5000,
        idleTimeoutMillis: 30_000,
        application_name: 'pro-context',
        ...(this.options.statementTimeoutMs ? { statement_timeout: this.options.statementTimeoutMs } : {}),
        types,
      });
      // an idle connection dropped by the server (a restart, a failover) is an event, not a crash
      pool.on('error', () => undefined);
      return pool;
    });
    return this.poolPromise;
  }

  /** `schema.name`, quoted. */
  table(name: string): string {
    return `"${this.schema}"."${name}"`;
  }

  /** Creates the schema and applies pending migrations, once per process (later calls share the first). */
  migrate(migrations: readonly string[]): Promise<void> {
    this.migrated ??= this.runMigrations(migrations).catch((error: unknown) => {
      this.migrated = undefined;
      throw error;
    });
    return this.migrated;
  }

  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>> {
    this.queries += 1;
    if (this.closed) throw this.wrap(new Error('Connection terminated: the store was closed'));
    try {
      return await (await this.pool()).query<R>(text, values);
    } catch (error) {
      throw this.wrap(error);
    }
  }

  /** Runs `work` in a transaction on one connection. */
  async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await (await this.pool()).connect();
    } catch (error) {
      throw this.wrap(error);
    }
    try {
      this.queries += 2;
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw this.wrap(error);
    } finally {
      client.release();
    }
  }

  /** A dedicated connection (LISTEN), outside the pool. */
  async connectListener(): Promise<pg.Client> {
    const { pg, types } = await loadDriver();
    const client = new pg.Client({
      connectionString: this.options.url,
      connectionTimeoutMillis: this.options.connectionTimeoutMs ?? 5000,
      application_name: 'pro-context-listen',
      types,
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
    } catch (error) {
      await client.end().catch(() => undefined);
      throw this.wrap(error);
    }
    return client;
  }

  async close(): Promise<void> {
    this.closed = true;
    const pool = this.poolPromise;
    this.poolPromise = undefined;
    if (pool) await (await pool).end().catch(() => undefined);
  }

  /** Connection failures as `DATABASE_UNAVAILABLE`; SQL errors keep the driver's text, redacted. */
  wrap(error: unknown): Error {
    if (error instanceof ProContextError) return error;
    const e = error as { code?: string; message?: string };
    const message = redaction().text(String(e?.message ?? error));
    const connection =
      typeof e?.code === 'string' &&
      (/^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|EPIPE)$/.test(e.code) ||
        /^(08|28|3D|57P0)/.test(e.code));
    if (connection || /timeout exceeded when trying to connect|Connection terminated/i.test(message)) {
      return postgresStoreErrors.create(
        'DATABASE_UNAVAILABLE',
        { where: this.where, reason: message },
        { cause: new Error(message) },
      );
    }
    const wrapped = new Error(`PostgreSQL (${this.where}): ${message}`);
    (wrapped as { code?: string }).code = e?.code;
    return wrapped;
  }

  private async runMigrations(migrations: readonly string[]): Promise<void> {
    const versions = this.table('schema_versions');
    await this.transaction(async (client) => {
      // one replica migrates at a time: the others wait here, then find nothing left to do
      this.queries += 4;
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`pro-context:migrate:${this.schema}`]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS "${this.schema}"`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${versions} (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      const { rows } = await client.query<{ version: number | null }>(
        `SELECT max(version) AS version FROM ${versions}`,
      );
      const current = rows[0]?.version ?? 0;
      if (current > migrations.length) {
        const values = { schema: this.schema, where: this.where, found: current, known: migrations.length };
        throw postgresStoreMessages.create('SCHEMA_TOO_NEW', values);
      }
      for (let v = current; v < migrations.length; v += 1) {
        this.queries += 2;
        await client.query((migrations[v] as string).replaceAll('{schema}', `"${this.schema}"`));
        await client.query(`INSERT INTO ${versions} (version) VALUES ($1)`, [v + 1]);
      }
    });
  }
}

/**
 * Opens the database: SQLite at `<MARKETLENS_DATA_DIR>/marketlens.db` (WAL, busy timeout) unless
 * MARKETLENS_DATABASE_URL names a PostgreSQL server. Both engines sit behind one Kysely<Database>; migrations run
 * here, so every process (server or CLI) works on the current schema. Failures become a StoreError naming the file
 * or server.
 */
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { join, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Logger } from '../platform/logger.js';
import type { Config } from '../config.js';
import { migrateToLatest } from './migrate.js';
import type { Database } from './schema.js';
import { StoreHealth } from './health.js';
import { ImmediateSqliteDialect } from './sqlite-dialect.js';
import { StoreError } from './store-error.js';

export type Engine = 'sqlite' | 'postgres';

export interface Store {
  db: Kysely<Database>;
  engine: Engine;
  /** The file or server, password removed: for logs and error messages. */
  where: string;
  /** SQLite only: the open connection (online backup). */
  sqlite?: SqliteDatabase.Database;
  /** For /readyz: a bounded probe, and the writers holding writes while the database is unavailable. */
  health: StoreHealth;
  close(): Promise<void>;
}

export interface OpenStoreOptions {
  /** Apply pending migrations (default true; `marketlens db status` reads without migrating). */
  migrate?: boolean;
  /** PostgreSQL pool size (default 10; the CLI needs 1). */
  poolSize?: number;
}

const BUSY_TIMEOUT_MS = 10_000;
const INT8_OID = 20;

export function sqliteFile(dataDir: string): string {
  return resolve(join(dataDir, 'marketlens.db'));
}

/** `postgres://user:secret@host/db` → `postgres://user@host/db` */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    return u.toString();
  } catch {
    return 'the configured MARKETLENS_DATABASE_URL';
  }
}

export async function openStore(
  config: Pick<Config, 'dataDir'> & Partial<Pick<Config, 'databaseUrl'>>,
  log?: Logger,
  options: OpenStoreOptions = {},
): Promise<Store> {
  const store = config.databaseUrl ? await openPostgres(config.databaseUrl, options, log) : openSqlite(config.dataDir);
  if (options.migrate ?? true) {
    try {
      const applied = await migrateToLatest(store.db, store.where);
      if (applied.length > 0) log?.info({ migrations: applied, database: store.where }, 'database migrated');
    } catch (e) {
      await store.close().catch(() => undefined);
      throw e instanceof StoreError
        ? e
        : new StoreError(`Cannot migrate the database ${store.where}: ${(e as Error).message}`);
    }
  }
  return store;
}

/**
 * SQLite files open in this process, shared: better-sqlite3 is synchronous, so a second connection to the same file
 * in one process would block the whole process waiting for a lock the first connection can never release. One
 * connection per file (Kysely queues its users) avoids that; other processes are kept in order by the file locks.
 */
const openFiles = new Map<string, { store: Store; users: number }>();

function openSqlite(dataDir: string): Store {
  const file = sqliteFile(dataDir);
  const shared = openFiles.get(file);
  if (shared) {
    shared.users++;
    return handle(file, shared);
  }
  const entry = { store: openSqliteFile(file, dataDir), users: 1 };
  openFiles.set(file, entry);
  return handle(file, entry);
}

/** One user's view of a shared file: closing it closes the connection when the last user closes. */
function handle(file: string, entry: { store: Store; users: number }): Store {
  let closed = false;
  return {
    ...entry.store,
    close: async () => {
      if (closed) return;
      closed = true;
      if (--entry.users > 0) return;
      openFiles.delete(file);
      await entry.store.close();
    },
  };
}

function openSqliteFile(file: string, dataDir: string): Store {
  let raw: SqliteDatabase.Database;
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    // Owner-only, like the key file it replaces (SQLite gives its -wal and -shm files the same mode). An empty file
    // is a valid empty database.
    if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
    raw = new SqliteDatabase(file);
  } catch (e) {
    throw new StoreError(
      `Cannot open the database file ${file}: ${(e as Error).message} (the data directory must be a writable folder: set MARKETLENS_DATA_DIR)`,
    );
  }
  try {
    raw.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // WAL: readers never block the writer and a kill -9 loses no committed transaction.
    raw.pragma('journal_mode = WAL');
    raw.pragma('synchronous = NORMAL');
    raw.prepare('select count(*) from sqlite_master').get();
  } catch (e) {
    raw.close();
    throw new StoreError(
      `The database file ${file} is unreadable or corrupt (${(e as Error).message}). Restore it from a backup (marketlens db backup) or move it away to start empty.`,
    );
  }
  const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: raw }) });
  let closed = false;
  return {
    db,
    engine: 'sqlite',
    where: file,
    sqlite: raw,
    health: new StoreHealth(),
    close: async () => {
      if (closed) return;
      closed = true;
      await db.destroy();
    },
  };
}

async function openPostgres(url: string, options: OpenStoreOptions, log?: Logger): Promise<Store> {
  const where = redactUrl(url);
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 5_000,
    // bigint columns hold epoch ms and counts, all far below 2^53: read them as numbers, as SQLite does.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // A connection dropped by the server (restart, failover, idle timeout) must not crash the process: the pool's
  // 'error' covers idle connections, but a checked-out client between two queries (inside a transaction, say) emits
  // its own 'error', which with no listener is thrown by Node. Every client gets one at connect; its query in
  // flight fails as usual, the pool discards the broken client, and the next query reconnects.
  const lost = (e: Error) => log?.warn({ err: { message: e.message }, database: where }, 'database connection lost');
  pool.on('error', lost);
  pool.on('connect', (client) => client.on('error', lost));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  try {
    await sql`select 1`.execute(db);
  } catch (e) {
    await db.destroy().catch(() => undefined);
    throw new StoreError(
      `Cannot reach the PostgreSQL database ${where}: ${(e as Error).message} (start it, or set MARKETLENS_DATABASE_URL)`,
    );
  }
  let closed = false;
  return {
    db,
    engine: 'postgres',
    where,
    health: new StoreHealth(),
    close: async () => {
      if (closed) return;
      closed = true;
      await db.destroy();
    },
  };
}

/**
 * Fresh, migrated stores for the database suites, on both engines:
 * - sqlite: `<temp dir>/marketlens.db`, the directory removed on close;
 * - postgres: a new database `ml_<random>` created through the machine's `test` database (127.0.0.1:5432, or
 *   MARKETLENS_TEST_DATABASE_URL), dropped on close — never tables in the shared `test` database itself.
 * Outside CI an unreachable PostgreSQL skips the postgres runs with a visible notice; when CI is set it is a failure.
 *
 * @example describe.each(ENGINES)('%s', (engine) => { it.skipIf(!engineAvailable(engine))('…', async () => {
 *   const store = await openTestStore(engine); … await store.close(); }) })
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { KeyStore } from '../../src/keys/key-store.js';
import { openKeys } from '../../src/keys/open-keys.js';
import { openStore, type Engine, type Store } from '../../src/store/index.js';

export const ENGINES = ['sqlite', 'postgres'] as const satisfies readonly Engine[];

export const TEST_DATABASE_URL = process.env.MARKETLENS_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

async function pingPostgres(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1500 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Whether the PostgreSQL suites can run; throws under CI when the server is unreachable. */
export async function requirePostgres(
  url: string,
  env: Record<string, string | undefined> = process.env,
): Promise<boolean> {
  if (await pingPostgres(url)) return true;
  if (env.CI) throw new Error(`CI is set but PostgreSQL is unreachable at ${url}: the PostgreSQL tests cannot run`);
  console.warn(
    `\n[marketlens] NOTICE: PostgreSQL unreachable at ${url} — PostgreSQL tests are skipped (they fail when CI is set).\n`,
  );
  return false;
}

export const postgresAvailable = await requirePostgres(TEST_DATABASE_URL);

export function engineAvailable(engine: Engine): boolean {
  return engine === 'sqlite' || postgresAvailable;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** Where a test's processes keep their state: env for the real binary, and a cleanup. */
export interface TestDatabase {
  /** MARKETLENS_* variables selecting this database (DATA_DIR always set: a fresh temp dir). */
  env: Record<string, string>;
  dataDir: string;
  /** The config subset openStore needs. */
  config: { dataDir: string; databaseUrl?: string };
  drop(): Promise<void>;
}

/** An empty database (not migrated): a temp dir for sqlite, a new `ml_<random>` database for postgres. */
export async function createTestDatabase(engine: Engine): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'marketlens-db-'));
  if (engine === 'sqlite') {
    return {
      env: { MARKETLENS_DATA_DIR: dataDir },
      dataDir,
      config: { dataDir },
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const name = `ml_${randomBytes(6).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  const databaseUrl = withDatabase(TEST_DATABASE_URL, name);
  return {
    env: { MARKETLENS_DATA_DIR: dataDir, MARKETLENS_DATABASE_URL: databaseUrl },
    dataDir,
    config: { dataDir, databaseUrl },
    drop: async () => {
      rmSync(dataDir, { recursive: true, force: true });
      await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

export interface TestStore extends Store {
  database: TestDatabase;
}

/** A fresh, migrated store; `close()` also deletes it. */
export async function openTestStore(engine: Engine): Promise<TestStore> {
  const database = await createTestDatabase(engine);
  const store = await openStore(database.config);
  return {
    ...store,
    database,
    close: async () => {
      await store.close();
      await database.drop();
    },
  };
}

/** A key store on the database of `config` (migrated, legacy files imported), for tests that seed keys. */
export async function keyStoreAt(config: {
  dataDir: string;
  databaseUrl?: string;
}): Promise<{ keys: KeyStore; store: Store; close(): Promise<void> }> {
  const store = await openStore(config);
  const keys = await openKeys(store, { dataDir: config.dataDir, apiKeys: [] }, undefined, false);
  return { keys, store, close: () => store.close() };
}

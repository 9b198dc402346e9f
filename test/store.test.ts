/** The store module on both engines: migrations, number-typed bigint columns, transactions, clear open errors. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../src/store/migrations/index.js';
import { migrationStatus, openStore, StoreError } from '../src/store/index.js';
import { ENGINES, engineAvailable, openTestStore } from './support/stores.js';

describe.each(ENGINES)('store on %s', (engine) => {
  it.skipIf(!engineAvailable(engine))('applies every migration and reads bigint columns as numbers', async () => {
    const store = await openTestStore(engine);
    try {
      expect(store.engine).toBe(engine);
      const status = await migrationStatus(store.db);
      expect(status.map((m) => m.name)).toEqual(Object.keys(MIGRATIONS));
      expect(status.every((m) => m.executedAt instanceof Date)).toBe(true);
      const row = await store.db
        .selectFrom('store_versions')
        .select('version')
        .where('name', '=', 'keys')
        .executeTakeFirstOrThrow();
      expect(row.version).toBe(0);
      const big = Date.now();
      await store.db
        .insertInto('usage_counts')
        .values({ key_id: 'k', period: '2026-11', count: 3, updated_at: big })
        .execute();
      const u = await store.db.selectFrom('usage_counts').selectAll().executeTakeFirstOrThrow();
      expect(u).toEqual({ key_id: 'k', period: '2026-11', count: 3, updated_at: big });
    } finally {
      await store.close();
    }
  });

  it.skipIf(!engineAvailable(engine))('rolls a failed transaction back', async () => {
    const store = await openTestStore(engine);
    try {
      await expect(
        store.db.transaction().execute(async (trx) => {
          await trx.updateTable('store_versions').set({ version: 7 }).where('name', '=', 'keys').execute();
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      const row = await store.db
        .selectFrom('store_versions')
        .select('version')
        .where('name', '=', 'keys')
        .executeTakeFirstOrThrow();
      expect(row.version).toBe(0);
    } finally {
      await store.close();
    }
  });
});

describe('opening a bad database', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('a corrupt SQLite file is a StoreError naming the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'marketlens-bad-'));
    dirs.push(dir);
    writeFileSync(
      join(dir, 'marketlens.db'),
      'this is not a database, just text that is long enough to look like a header '.repeat(20),
    );
    const err = await openStore({ dataDir: dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreError);
    expect((err as Error).message).toContain(join(dir, 'marketlens.db'));
  });

  it('an unreachable PostgreSQL is a StoreError naming the server without its password', async () => {
    const err = await openStore({ dataDir: '/nonexistent', databaseUrl: 'postgres://u:secret@127.0.0.1:1/x' }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StoreError);
    expect((err as Error).message).toContain('127.0.0.1:1');
    expect((err as Error).message).not.toContain('secret');
  });
});

/**
 * SQLite that cannot take writes for a while (issue 27, item 3 on the embedded engine): another connection holding
 * the write lock past the busy timeout (SQLITE_BUSY), and a full database (SQLITE_FULL, provoked with
 * `PRAGMA max_page_count`). Lookups keep answering, /readyz says degraded (`writes_waiting`), history and usage
 * counts wait in memory, and both are written by their own retries once the lock is released or room is made.
 * The busy timeout is scaled down to 100 ms on the test's connection so the lock outlasts it quickly.
 */
import { createHash } from 'node:crypto';
import SqliteDatabase from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { sqliteFile } from '../src/store/index.js';
import { auth, TEST_KEY, testApp } from './support/app.js';
import type { FakeUpstream } from './support/fake-upstream.js';
import { goatProductPath, startGoatProducts } from './support/goat-products.js';
import { createTestDatabase, type TestDatabase } from './support/stores.js';

const KEY_ID = `env-${createHash('sha256').update(TEST_KEY).digest('hex').slice(0, 8)}`;
const LOOKUPS = 12;

async function until(what: string, check: () => boolean | Promise<boolean>, limitMs = 10_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('SQLite busy or full', () => {
  let goat: FakeUpstream | undefined;
  let db: TestDatabase | undefined;
  let app: FastifyInstance | undefined;
  let other: SqliteDatabase.Database | undefined;
  afterEach(async () => {
    if (other?.inTransaction) other.exec('rollback');
    other?.close();
    await app?.close();
    await goat?.stop();
    await db?.drop();
    app = goat = db = other = undefined;
  });

  async function setup(): Promise<FastifyInstance> {
    goat = await startGoatProducts((slug) => `Runner ${slug}`);
    db = await createTestDatabase('sqlite');
    app = await testApp({ ...db.env, MARKETLENS_RESALE_B_ORIGIN: goat.origin });
    app.marketlens.store.sqlite!.pragma('busy_timeout = 100');
    return app;
  }

  async function lookUpAll(a: FastifyInstance): Promise<void> {
    const answers = await Promise.all(
      Array.from({ length: LOOKUPS }, (_, i) =>
        a.inject({ url: goatProductPath(i + 1), headers: { ...auth, 'cache-control': 'no-cache' } }),
      ),
    );
    for (const r of answers) expect(r.statusCode, r.body).toBe(200);
  }

  const readyz = async (a: FastifyInstance) =>
    (await a.inject({ url: '/readyz' })).json<{ status: string; checks: object }>();
  const products = async (a: FastifyInstance) =>
    (await a.history.store.db.selectFrom('history_products').select('product_id').execute()).length;
  const monthlyUsage = async (a: FastifyInstance) =>
    (
      await a.marketlens.store.db
        .selectFrom('usage_counts')
        .select('count')
        .where('key_id', '=', KEY_ID)
        .where('period', 'like', '____-__')
        .execute()
    ).reduce((n, r) => n + Number(r.count), 0);

  /** Lookups while the database refuses writes, then the writers' own retries once it takes them again. */
  async function writesWaitThenLand(a: FastifyInstance, release: () => void, usageWaits: boolean): Promise<void> {
    await lookUpAll(a);
    await a.history.recorder.flush();
    expect(a.history.recorder.stats).toMatchObject({ written: 0, failed: 0, dropped: 0 });
    // (A full database may still fit the few usage rows in its pages' free space.)
    if (usageWaits) await until('usage counts wait too', () => 'usage' in a.marketlens.store.health.waitingWriters());
    expect(await readyz(a)).toMatchObject({ status: 'degraded', checks: { database: 'writes_waiting' } });
    release();
    await until('history is written', () => a.history.recorder.stats.written === LOOKUPS);
    expect(await products(a)).toBe(LOOKUPS);
    await until('usage is written', async () => (await monthlyUsage(a)) === LOOKUPS);
    await until('/readyz says ready', async () => (await readyz(a)).status === 'ready');
  }

  it('SQLITE_BUSY: another connection holds the write lock past the busy timeout; the writes land once it lets go', async () => {
    const a = await setup();
    other = new SqliteDatabase(sqliteFile(db!.dataDir));
    other.exec('begin immediate');
    await writesWaitThenLand(a, () => other!.exec('commit'), true);
  });

  it('SQLITE_FULL: the database has no room; the writes land once it has', async () => {
    const a = await setup();
    const sqlite = a.marketlens.store.sqlite!;
    const pages = sqlite.pragma('page_count', { simple: true }) as number;
    sqlite.pragma(`max_page_count = ${pages}`);
    await writesWaitThenLand(a, () => sqlite.pragma('max_page_count = 1073741823'), false);
  });
});

/**
 * Upstream text a database cannot hold, and rows a database refuses, on SQLite and PostgreSQL (issue 27, item 4):
 * - a product name with a NUL (PostgreSQL refuses `\u0000` in text) or a lone UTF-16 surrogate (not UTF-8) is
 *   stored with those characters stripped, and the other lookups of its batch are all recorded;
 * - a row the database refuses for any other reason (here a constraint the test adds) is logged and counted, and
 *   the rest of its batch is written.
 * Lookups go through the HTTP routes to a fake GOAT, live (`Cache-Control: no-cache`), twelve at once.
 */
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { auth, testApp } from '../support/app.js';
import type { FakeUpstream } from '../support/fake-upstream.js';
import { goatIdOf, goatProductPath, startGoatProducts } from '../support/goat-products.js';
import { createTestDatabase, engineAvailable, ENGINES, type TestDatabase } from '../support/stores.js';

const LOOKUPS = 12;
const NAMES: Record<string, string> = {
  'p-5': 'Runner\u0000 Five',
  'p-6': 'Runner \ud800Six\udfff',
  'p-7': 'refuse me',
};
const nameOf = (slug: string) => NAMES[slug] ?? `Runner ${slug}`;

describe.each(ENGINES)('rows a database cannot take, on %s', (engine) => {
  const test = it.skipIf(!engineAvailable(engine));
  let goat: FakeUpstream | undefined;
  let db: TestDatabase | undefined;
  let app: FastifyInstance | undefined;
  let logs = '';
  afterEach(async () => {
    await app?.close();
    await goat?.stop();
    await db?.drop();
    app = goat = db = undefined;
  });

  async function setup(): Promise<FastifyInstance> {
    goat = await startGoatProducts(nameOf);
    db = await createTestDatabase(engine);
    logs = '';
    const logStream = new Writable({ write: (chunk, _enc, done) => void ((logs += String(chunk)), done()) });
    app = await testApp(
      { ...db.env, MARKETLENS_RESALE_B_ORIGIN: goat.origin, MARKETLENS_LOG_LEVEL: 'error' },
      { logStream },
    );
    return app;
  }

  /** Twelve live lookups at once (p-1 … p-12), each answered 200; then the recorder writes what it holds. */
  async function lookUpAll(a: FastifyInstance): Promise<void> {
    const answers = await Promise.all(
      Array.from({ length: LOOKUPS }, (_, i) =>
        a.inject({ url: goatProductPath(i + 1), headers: { ...auth, 'cache-control': 'no-cache' } }),
      ),
    );
    for (const r of answers) expect(r.statusCode, r.body).toBe(200);
    await a.history.recorder.flush();
  }

  async function storedNames(a: FastifyInstance): Promise<Map<number, string | null>> {
    const rows = await a.history.store.db.selectFrom('history_products').select(['product_id', 'name']).execute();
    return new Map(rows.map((r) => [Number(r.product_id), r.name]));
  }

  async function counted(a: FastifyInstance, result: string): Promise<number> {
    const m = await a.marketlens.metrics.registry.getSingleMetric('marketlens_history_results_total')!.get();
    return m.values.find((v) => v.labels.result === result)?.value ?? 0;
  }

  test('a NUL or a lone surrogate in an upstream name is stripped; every lookup of the batch is recorded', async () => {
    const a = await setup();
    await lookUpAll(a);
    const names = await storedNames(a);
    expect(names.size).toBe(LOOKUPS);
    expect(names.get(goatIdOf('p-5'))).toBe('Runner Five');
    expect(names.get(goatIdOf('p-6'))).toBe('Runner Six');
    expect(names.get(goatIdOf('p-7'))).toBe('refuse me');
    expect(names.get(goatIdOf('p-1'))).toBe('Runner p-1');
    expect(a.history.recorder.stats).toMatchObject({ written: LOOKUPS, failed: 0, dropped: 0 });
    expect(await counted(a, 'dropped')).toBe(0);
    const alertDrops = await a.marketlens.metrics.registry
      .getSingleMetric('marketlens_alert_observations_dropped_total')!
      .get();
    expect(alertDrops.values[0]?.value).toBe(0);
    // Each lookup's prices too (the fixture's product-level prices: at least one row per product).
    const priced = await a.history.store.db.selectFrom('history_prices').select('product_id').distinct().execute();
    expect(priced).toHaveLength(LOOKUPS);
  });

  test('a row the database refuses is logged and counted; the rest of its batch is written', async () => {
    const a = await setup();
    const d = a.history.store.db;
    // The database refuses one product row, as it would a value it cannot represent.
    if (engine === 'postgres')
      await sql`alter table history_products add constraint refuse_me check (name <> 'refuse me')`.execute(d);
    else
      await sql`create trigger refuse_me before insert on history_products when new.name = 'refuse me'
                begin select raise(abort, 'refused by the test'); end`.execute(d);
    await lookUpAll(a);
    const names = await storedNames(a);
    expect(names.size).toBe(LOOKUPS - 1);
    expect(names.has(goatIdOf('p-7'))).toBe(false);
    expect(names.get(goatIdOf('p-5'))).toBe('Runner Five');
    expect(a.history.recorder.stats).toMatchObject({ written: LOOKUPS - 1, failed: 1, dropped: 0 });
    expect(await counted(a, 'written')).toBe(LOOKUPS - 1);
    expect(await counted(a, 'failed')).toBe(1);
    const refusal = logs.split('\n').find((l) => l.includes('history row refused by the database'));
    expect(refusal).toContain('resale-b.product');
  });
});

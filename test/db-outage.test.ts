/**
 * The database restarts and goes away under lookup load (issue 27, item 3), against a PostgreSQL cluster of the
 * test's own (test/support/pg-cluster.ts) and the real `marketlens serve` process with a fake GOAT upstream:
 * `pg_ctl restart -m fast`, then a stop with a gap and a start, all while four clients keep sending live lookups.
 * The process stays alive, every lookup (with a key stored in that database) answers 200, /readyz says `degraded` (database `unreachable`) during the gap
 * and `ready` after, and once the database is back every answered lookup reaches history and the usage counts are
 * complete — with no restart of the service.
 */
import { SILENT_LOGGER } from '../src/platform/logger.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import pg from 'pg';
import { AlertEngine } from '../src/alerts/engine.js';
import type { AlertTables } from '../src/alerts/schema.js';
import { openStore } from '../src/store/index.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type Served } from './support/binary.js';
import type { FakeUpstream } from './support/fake-upstream.js';
import { goatIdOf, goatProductPath, startGoatProducts } from './support/goat-products.js';
import { priceObservation } from './support/observations.js';
import { pgClusterAvailable, startPgCluster, type PgCluster } from './support/pg-cluster.js';
import { keyStoreAt } from './support/stores.js';

const CLIENTS = 4;

/** Resolves once `check` holds, polling every 25 ms; fails after `limitMs` saying what was awaited. */
async function until(what: string, check: () => boolean | Promise<boolean>, limitMs = 15_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe.skipIf(!pgClusterAvailable())('PostgreSQL restarted and stopped under lookup load', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });
  // One cluster for the file (each test its own database in it); every test leaves it running.
  let cluster: PgCluster;
  beforeAll(async () => {
    cluster = await startPgCluster();
  });
  afterAll(async () => {
    await cluster?.destroy();
  });

  it('the service stays up, answers every lookup, says degraded while the database is gone, and loses nothing', async () => {
    const databaseUrl = await cluster.createDatabase('lookups');
    const goat: FakeUpstream = await startGoatProducts((slug) => `Runner ${slug}`, { keepLog: false });
    cleanups.push(() => goat.stop());
    const dataDir = mkdtempSync(join(tmpdir(), 'marketlens-outage-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    // A stored key (not MARKETLENS_API_KEYS): it must keep working while the database is away.
    const seeded = await keyStoreAt({ dataDir, databaseUrl });
    const { key: KEY, record } = await seeded.keys.create('outage');
    await seeded.close();
    const served: Served = await startServe({
      MARKETLENS_HOST: '127.0.0.1',
      MARKETLENS_PORT: '0',
      MARKETLENS_LOG_LEVEL: 'info',
      MARKETLENS_SHUTDOWN_DELAY_MS: '0',
      MARKETLENS_DATA_DIR: dataDir,
      MARKETLENS_DATABASE_URL: databaseUrl,
      MARKETLENS_RATE_LIMIT: '0',
      MARKETLENS_RESALE_B_ORIGIN: goat.origin,
      MARKETLENS_BROWSER_PATH: 'none',
      MARKETLENS_DEADLINE_MS: '10000',
    });
    cleanups.push(() => void (served.child.exitCode === null && served.child.kill('SIGKILL')));
    const port = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(served.out())![1]!;
    const base = `http://127.0.0.1:${port}`;
    const readyz = async () => {
      if (served.child.exitCode !== null) throw new Error(`the service exited:\n${served.out().slice(-3000)}`);
      return (await (await fetch(`${base}/readyz`)).json()) as { status: string; checks: object };
    };

    // Four clients, each sending one live lookup of a new product after the other until told to stop.
    const answered: number[] = [];
    const failures: string[] = [];
    let next = 1;
    let stop = false;
    const client = async () => {
      while (!stop && served.child.exitCode === null) {
        const n = next++;
        try {
          const r = await fetch(base + goatProductPath(n), {
            headers: { 'x-api-key': KEY, 'cache-control': 'no-cache' },
          });
          if (r.status === 200) answered.push(n);
          else failures.push(`${n}: ${r.status} ${(await r.text()).slice(0, 200)}`);
          await r.body?.cancel().catch(() => undefined);
        } catch (e) {
          failures.push(`${n}: ${(e as Error).message}`);
        }
      }
    };
    const load = Promise.all(Array.from({ length: CLIENTS }, client));
    const moreAnswers = async (what: string, n = 20) => {
      const target = answered.length + n;
      await until(`${n} more lookups answered (${what})`, () => answered.length >= target || failures.length > 0);
    };
    try {
      await moreAnswers('before the restart');
      await cluster.restart();
      await moreAnswers('after the restart');
      await cluster.stop();
      let gap: { status: string; checks: object } | undefined;
      await until('/readyz says degraded', async () => (gap = await readyz()).status === 'degraded', 5_000);
      expect(gap!.checks).toMatchObject({ database: 'unreachable' });
      // A route that needs the database says so: 503 database_unavailable with Retry-After, never a 500.
      const dbRoute = await fetch(`${base}/api/v1/db/products`, { headers: { 'x-api-key': KEY } });
      expect(dbRoute.status).toBe(503);
      expect(dbRoute.headers.get('retry-after')).toBe('5');
      expect(await dbRoute.json()).toMatchObject({ code: 'database_unavailable', status: 503 });
      await moreAnswers('while the database is stopped');
      await cluster.start();
      await until('/readyz says ready', async () => (await readyz()).status === 'ready');
      await moreAnswers('after the database came back');
    } finally {
      stop = true;
      await load;
    }
    expect(failures).toEqual([]);
    expect(served.child.exitCode).toBeNull();
    expect(served.out()).not.toMatch(/Unhandled|uncaught/i);

    // Every answered lookup reaches history; every request is counted once.
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    cleanups.push(() => db.end());
    const recorded = async () =>
      new Set(
        (await db.query<{ product_id: string }>('select product_id from history_products')).rows.map((r) =>
          Number(r.product_id),
        ),
      );
    const monthly = async () =>
      Number(
        (
          await db.query<{ n: string }>(
            `select coalesce(sum(count), 0) as n from usage_counts where key_id = $1 and period ~ '^[0-9]{4}-[0-9]{2}$'`,
            [record.id],
          )
        ).rows[0]!.n,
      );
    const expected = answered.map((n) => goatIdOf(`p-${n}`));
    await until('every answered lookup is in history', async () => (await recorded()).size >= expected.length);
    expect([...(await recorded())].sort()).toEqual(expected.sort());
    // The lookups and the one db API request made during the gap.
    await until('every request is counted', async () => (await monthly()) >= answered.length + 1);
    expect(await monthly()).toBe(answered.length + 1);
  }, 60_000);

  it('a connection checked out when the server restarts fails its query, never the process; the next query reconnects', async () => {
    const databaseUrl = await cluster.createDatabase('checked_out');
    const dataDir = mkdtempSync(join(tmpdir(), 'marketlens-outage-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const store = await openStore({ dataDir, databaseUrl });
    cleanups.push(() => store.close());
    // Inside a transaction, between two statements, the client is checked out with no query in flight: the server's
    // "terminating connection due to administrator command" arrives as the client's own 'error' event.
    const failed = await store.db
      .transaction()
      .execute(async (trx) => {
        await sql`select 1`.execute(trx);
        await cluster.restart();
        await sql`select 1`.execute(trx);
      })
      .then(
        () => undefined,
        (e: Error) => e.message,
      );
    expect(failed).toMatch(/terminat|not queryable|Connection/i);
    const after = await sql<{ n: number }>`select 2 as n`.execute(store.db);
    expect(after.rows[0]!.n).toBe(2);
  });

  it('the alert engine keeps what it observed while the database is stopped and queues its deliveries once it is back', async () => {
    const databaseUrl = await cluster.createDatabase('alerts');
    const dataDir = mkdtempSync(join(tmpdir(), 'marketlens-outage-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const store = await openStore({ dataDir, databaseUrl });
    cleanups.push(() => store.close());
    const warnings: string[] = [];
    const log = {
      ...SILENT_LOGGER,
      warn: (_o: object, msg: string) => void warnings.push(msg),
      error: (_o: object, msg: string) => void warnings.push(msg),
    };
    // Not started: no delivery loop; the deliveries are read from the queue.
    const engine = new AlertEngine({
      db: store.db as unknown as Kysely<AlertTables>,
      policy: { allowHttp: true, allowPrivate: true },
      log,
    });
    cleanups.push(() => engine.close());
    const sub = await engine.subscriptions.create('key-a', {
      url: 'http://127.0.0.1:9/hook',
      events: ['price.changed'],
      filter: {},
      description: null,
    });
    engine.handleObservations(priceObservation(1, 100));
    await engine.idle();
    await cluster.stop();
    engine.handleObservations(priceObservation(2, 110));
    engine.handleObservations(priceObservation(3, 95));
    await until('the engine waits for the database', () => warnings.some((w) => w.includes('waits for the database')));
    await cluster.start();
    await engine.idle();
    const queued = await (store.db as unknown as Kysely<AlertTables>)
      .selectFrom('alert_deliveries')
      .select(['event_type', 'payload'])
      .where('subscription_id', '=', sub.id)
      .orderBy('seq')
      .execute();
    expect(queued.map((d) => [d.event_type, (JSON.parse(d.payload) as { data: { new: number } }).data.new])).toEqual([
      ['price.changed', 110],
      ['price.changed', 95],
    ]);
    expect(engine.dropped).toBe(0);
  });
});

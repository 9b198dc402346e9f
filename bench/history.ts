/**
 * Price-history figures (issue 17):
 * (a) history write cost per lookup: GOAT prices lookups with `Cache-Control: no-cache` (a live fetch each, 18 price
 *     rows recorded each) against a fake GOAT, alternating history on/off in one app; per-lookup p50 on vs off, and
 *     the total time of all lookups including the final write (so deferred writes are counted) on vs off;
 * (b) a 30-day daily series (`/api/v1/history` query, min/max/last per day) over 1 million price rows on SQLite:
 *     20 tracked lookups × 50 000 rows spread over 365 days (~137 rows a day each) → p50/p99 of the series query;
 * (c) the SQLite database size per million price rows (after a WAL checkpoint).
 */
import { statSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { sql } from 'kysely';
import { cacheKey } from '../src/cache/cache-key.js';
import { querySeries } from '../src/history/series.js';
import { buildApp } from '../src/server/app.js';
import { openStore, sqliteFile } from '../src/store/index.js';
import { FakeUpstream } from '../test/support/fake-upstream.js';
import { auth, testConfig } from '../test/support/app.js';
import { engineAvailable, openTestStore } from '../test/support/stores.js';
import { captureOr } from './lib/payloads.js';
import { benchEnv } from './lib/scenarios.js';
import { envInt, quantile, round } from './lib/stats.js';

export interface HistoryBenchResult {
  write_cost: {
    lookups_each: number;
    p50_on_ms: number;
    p50_off_ms: number;
    total_on_ms: number;
    total_off_ms: number;
    overhead_total_pct: number;
    overhead_p50_pct: number;
    rows_written: number;
  };
  series: {
    rows: number;
    lookups: number;
    days: number;
    rows_in_window: number;
    p50_ms: number;
    p99_ms: number;
    runs: number;
  };
  size: { rows: number; bytes: number; mb_per_million_rows: number };
  /** The same rows in PostgreSQL (table + indexes), when a server is reachable (test/support/stores.ts). */
  postgres_size: { rows: number; bytes: number; mb_per_million_rows: number } | null;
}

const BUY_BAR = '/web-api/v1/product_variants/buy_bar_data';
const DAY = 86_400_000;

export async function historyBench(opts: { log?: (s: string) => void } = {}): Promise<HistoryBenchResult> {
  const write_cost = await writeCost(envInt('BENCH_HISTORY_LOOKUPS', 300));
  opts.log?.(`  write cost measured (${write_cost.lookups_each} lookups each way)`);
  const rows = envInt('BENCH_HISTORY_ROWS', 1_000_000);
  const { series, size } = await seriesAndSize(rows, opts.log);
  const postgres_size = engineAvailable('postgres') ? await postgresSize(rows) : null;
  return { write_cost, series, size, postgres_size };
}

async function writeCost(n: number): Promise<HistoryBenchResult['write_cost']> {
  const body = captureOr('goat/dewuapiparser_goat_1341930_buy_bar_data.json', 'resale-b/buy-bar-data.json').value;
  const fake = await new FakeUpstream({ keepLog: false }).start();
  fake.serve('/', '<html><head><title>GOAT</title></head><body></body></html>');
  fake.serve(BUY_BAR, body, { type: 'application/json' });
  const app = await buildApp({ config: testConfig(benchEnv(fake.origin)) });
  await app.ready();
  const rec = app.history.recorder;
  const one = async () => {
    const t = performance.now();
    const res = await app.inject({
      url: '/api/v1/scraper/resale-b/prices?query=1341930&country=US',
      headers: { ...auth, 'cache-control': 'no-cache' },
    });
    if (res.statusCode !== 200) throw new Error(`lookup answered ${res.statusCode}`);
    return performance.now() - t;
  };
  try {
    for (let i = 0; i < 30; i++) await one(); // warm-up (JIT, connections, statements)
    await rec.flush();
    const on: number[] = [];
    const off: number[] = [];
    let totalOn = 0;
    let totalOff = 0;
    // Blocks of 20 alternate so drift in the machine's load hits both sides alike; each "on" block includes its write.
    for (let block = 0; block < n / 20; block++) {
      for (const enabled of [true, false]) {
        rec.enabled = enabled;
        const t = performance.now();
        for (let i = 0; i < 20; i++) (enabled ? on : off).push(await one());
        await rec.flush();
        if (enabled) totalOn += performance.now() - t;
        else totalOff += performance.now() - t;
      }
    }
    const p50on = quantile(on, 0.5);
    const p50off = quantile(off, 0.5);
    return {
      lookups_each: on.length,
      p50_on_ms: round(p50on),
      p50_off_ms: round(p50off),
      total_on_ms: round(totalOn),
      total_off_ms: round(totalOff),
      overhead_total_pct: round(((totalOn - totalOff) / totalOff) * 100),
      overhead_p50_pct: round(((p50on - p50off) / p50off) * 100),
      rows_written: rec.stats.prices,
    };
  } finally {
    await app.close();
    await fake.stop();
  }
}

async function seriesAndSize(rows: number, log?: (s: string) => void) {
  const dataDir = mkdtempSync(join(tmpdir(), 'marketlens-bench-history-'));
  try {
    const store = await openStore({ dataDir });
    await store.close();
    const lookups = 20;
    const end = Date.UTC(2026, 10, 24);
    const start = end - 365 * DAY;
    const keyOf = (i: number) => cacheKey('resale-b.prices', { country: 'US', query: String(1_000_000 + i) });
    // Bulk load straight through better-sqlite3 (one transaction, one prepared statement): loading is not measured.
    const raw = new Sqlite(sqliteFile(dataDir));
    const ins = raw.prepare(
      'insert into history_prices (id, name, marketplace, operation, product_id, size, condition, kind, amount, currency, country, in_stock, lookup_key, observed_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const sizes = ['4', '5', '6', '7', '8', '9', '10', '11', '12'];
    const kinds = ['lowest_price', 'last_sale'];
    raw.transaction(() => {
      for (let r = 0; r < rows; r++) {
        const lookup = r % lookups;
        const t = start + Math.floor((r / rows) * 365 * DAY);
        ins.run(
          `${t.toString(36)}${r.toString(36).padStart(6, '0')}`,
          'goat-us',
          'resale-b',
          'resale-b.prices',
          String(1_000_000 + lookup),
          sizes[r % 9],
          'new_no_defects/good_condition',
          kinds[(r >> 3) % 2],
          100 + (r % 97),
          'USD',
          'US',
          1,
          keyOf(lookup),
          t,
        );
      }
    })();
    raw.pragma('wal_checkpoint(TRUNCATE)');
    raw.close();
    log?.(`  ${rows} rows loaded`);
    const bytes = statSync(sqliteFile(dataDir)).size;

    const s2 = await openStore({ dataDir });
    const times: number[] = [];
    let inWindow = 0;
    const from = end - 30 * DAY;
    for (let i = 0; i < 200; i++) {
      const t = performance.now();
      const series = await querySeries(s2.db, { lookupKey: keyOf(i % lookups), from, to: end, interval: 'day' });
      times.push(performance.now() - t);
      inWindow = series.reduce((n, s) => n + s.points.reduce((m, p) => m + p.count, 0), 0);
    }
    await s2.close();
    const measured = times.slice(20);
    return {
      series: {
        rows,
        lookups,
        days: 30,
        rows_in_window: inWindow,
        p50_ms: round(quantile(measured, 0.5)),
        p99_ms: round(quantile(measured, 0.99)),
        runs: measured.length,
      },
      size: { rows, bytes, mb_per_million_rows: round((bytes / 1024 / 1024) * (1_000_000 / rows)) },
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Loads the same shape of rows into a fresh PostgreSQL database with generate_series and reads its size. */
async function postgresSize(rows: number): Promise<HistoryBenchResult['postgres_size']> {
  const store = await openTestStore('postgres');
  try {
    await sql`insert into history_prices (id, name, marketplace, operation, product_id, size, condition, kind, amount, currency, country, in_stock, lookup_key, observed_at)
      select lpad(to_hex(g), 15, '0'), 'goat-us', 'resale-b', 'resale-b.prices', (1000000 + g % 20)::text, (4 + g % 9)::text,
        'new_no_defects/good_condition', case when (g >> 3) % 2 = 0 then 'lowest_price' else 'last_sale' end, 100 + g % 97, 'USD', 'US', 1,
        'resale-b.prices?country=US&query=' || (1000000 + g % 20)::text, 1732406400000 + g::bigint * 31536
      from generate_series(0, ${rows - 1}) g`.execute(store.db);
    await sql`vacuum analyze history_prices`.execute(store.db);
    const r = await sql<{ n: string | number }>`select pg_total_relation_size('history_prices') as n`.execute(store.db);
    const bytes = Number(r.rows[0]!.n);
    return { rows, bytes, mb_per_million_rows: round((bytes / 1024 / 1024) * (1_000_000 / rows)) };
  } finally {
    await store.close();
  }
}

/**
 * `npm run bench:webhooks`: alert fan-out on one instance. BENCH_WEBHOOK_SUBS subscriptions (10 000), each on its own
 * product; BENCH_WEBHOOK_RATE price changes per second (1 000) for BENCH_WEBHOOK_SECONDS (10), each on a random
 * product so it matches one subscription — every change is checked against every subscription (the fan-out cost).
 * Deliveries go over loopback HTTP to a receiver in a child process (its own event loop), which measures the lag from
 * the observation being handed to the engine to the signed POST arriving. Reported: delivery lag p50/p99/max,
 * deliveries/s, and this process's RSS/heap before and at the end. SQLite in a temp dir (the default engine).
 * BENCH_WEBHOOK_REDIS=redis://… dispatches through BullMQ there (as with MARKETLENS_REDIS_URL; under a prefix of its
 * own, deleted afterwards), the database sweep at its default 30 s; results then go to webhooks-bullmq-results.json.
 * BENCH_WEBHOOK_DATABASE_URL=postgres://… runs on that (empty) PostgreSQL database instead of SQLite.
 */
import { SILENT_LOGGER } from '../src/platform/logger.js';
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import { AlertEngine } from '../src/alerts/engine.js';
import type { AlertTables } from '../src/alerts/schema.js';
import type { ObservationBatch } from '../src/history/observation.js';
import { openStore } from '../src/store/index.js';
import { envInt, mb, quantile, round, table } from './lib/stats.js';

const SUBS = envInt('BENCH_WEBHOOK_SUBS', 10_000);
const RATE = envInt('BENCH_WEBHOOK_RATE', 1_000);
const SECONDS = envInt('BENCH_WEBHOOK_SECONDS', 10);
const REDIS = process.env.BENCH_WEBHOOK_REDIS || undefined;
const DATABASE_URL = process.env.BENCH_WEBHOOK_DATABASE_URL || undefined;
const PREFIX = `marketlens-bench:${randomUUID().slice(0, 8)}:`;

if (process.argv[2] === 'receiver') {
  // Child: answer 204, keep the lag of every delivery.
  const http = await import('node:http');
  const lags: number[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const sent = Number(JSON.parse(raw).data.sent_at_ms ?? Date.parse(JSON.parse(raw).data.observed_at));
      lags.push(Date.now() - sent);
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as { port: number }).port }));
  process.on('message', () => process.send!({ lags }));
} else {
  const dir = mkdtempSync(join(tmpdir(), 'marketlens-bench-webhooks-'));
  const child = fork(process.argv[1]!, ['receiver'], { execArgv: process.execArgv });
  const port = await new Promise<number>((r) => child.once('message', (m: { port: number }) => r(m.port)));
  const store = await openStore({ dataDir: dir, databaseUrl: DATABASE_URL });
  const engine = new AlertEngine({
    db: store.db as unknown as Kysely<AlertTables>,
    policy: { allowHttp: true, allowPrivate: true },
    log: { ...SILENT_LOGGER, warn: (o, m) => console.warn(m, o), error: (o, m) => console.error(m, o) },
    redis: REDIS ? { url: REDIS, prefix: PREFIX } : undefined,
  });
  console.log(`dispatch: ${REDIS ? `BullMQ on ${REDIS}` : 'database loop'}; ${DATABASE_URL ? 'PostgreSQL' : 'SQLite'}`);
  console.log(`creating ${SUBS} subscriptions…`);
  for (let i = 0; i < SUBS; i++) {
    await engine.subscriptions.create('bench', {
      url: `http://127.0.0.1:${port}/hook`,
      events: ['price.changed'],
      filter: { products: [`p${i}`] },
      description: null,
    });
  }
  // A baseline price per product first (first sightings send nothing), so every timed observation is a change.
  const price = new Map<number, number>();
  const batch = (product: number, at: number): ObservationBatch => {
    const amount = (price.get(product) ?? 100) + 1;
    price.set(product, amount);
    const observedAt = new Date(at);
    return {
      operation: 'resale-a.product',
      marketplace: 'resale-a',
      lookupId: `p${product}`,
      products: [],
      variants: [],
      prices: [
        {
          marketplace: 'resale-a',
          operation: 'resale-a.product',
          productId: `p${product}`,
          size: null,
          condition: null,
          kind: 'lowest_ask',
          amount,
          currency: 'USD',
          country: null,
          inStock: null,
          observedAt,
        },
      ],
      observedAt,
    };
  };
  for (let i = 0; i < SUBS; i++) engine.handleObservations(batch(i, Date.now()));
  await engine.idle();
  engine.start();
  global.gc?.();
  const before = process.memoryUsage();
  console.log(`fan-out: ${RATE} changes/s for ${SECONDS} s over ${SUBS} subscriptions…`);
  const total = RATE * SECONDS;
  const started = Date.now();
  let sent = 0;
  let peakRss = before.rss;
  while (sent < total) {
    // Hand in what is due by now (1 ms ticks), as the lookup path would.
    const due = Math.min(total, Math.floor(((Date.now() - started) / 1000) * RATE));
    for (; sent < due; sent++) engine.handleObservations(batch(Math.floor(Math.random() * SUBS), Date.now()));
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    await new Promise((r) => setTimeout(r, 1));
  }
  await engine.idle();
  const handedIn = Date.now() - started;
  const deadline = Date.now() + 120_000;
  while ((await engine.queue.pendingCount()) > 0 && Date.now() < deadline) {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    await new Promise((r) => setTimeout(r, 100));
  }
  const elapsed = Date.now() - started;
  const end = process.memoryUsage();
  child.send('report');
  const lags = await new Promise<number[]>((r) => child.once('message', (m: { lags: number[] }) => r(m.lags)));
  const result = {
    dispatch: REDIS ? 'bullmq' : 'database',
    database: DATABASE_URL ? 'postgres' : 'sqlite',
    subscriptions: SUBS,
    rate_per_s: RATE,
    seconds: SECONDS,
    handed_in_ms: handedIn,
    delivered: lags.length,
    expected: total,
    deliveries_per_s: round(lags.length / (elapsed / 1000)),
    lag_ms: { p50: quantile(lags, 0.5), p99: quantile(lags, 0.99), max: Math.max(...lags) },
    rss_mb: { before: mb(before.rss), peak: mb(peakRss), end: mb(end.rss) },
    heap_mb: { before: mb(before.heapUsed), end: mb(end.heapUsed) },
  };
  console.log(
    table(
      [
        'subs',
        'rate/s',
        'delivered',
        'deliv/s',
        'lag p50 ms',
        'lag p99 ms',
        'lag max ms',
        'RSS before/peak MB',
        'heap end MB',
      ],
      [
        [
          SUBS,
          RATE,
          `${lags.length}/${total}`,
          result.deliveries_per_s,
          result.lag_ms.p50,
          result.lag_ms.p99,
          result.lag_ms.max,
          `${result.rss_mb.before}/${result.rss_mb.peak}`,
          result.heap_mb.end,
        ],
      ],
    ),
  );
  writeFileSync(
    join(import.meta.dirname, REDIS ? 'webhooks-bullmq-results.json' : 'webhooks-results.json'),
    JSON.stringify({ when: new Date().toISOString(), ...result }, null, 2),
  );
  await engine.close();
  await store.close();
  if (REDIS) {
    // This run's keys only (the queue under PREFIX): other users of the server keep theirs.
    const redis = new Redis(REDIS);
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${PREFIX}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
    redis.disconnect();
  }
  child.kill();
  rmSync(dir, { recursive: true, force: true });
}

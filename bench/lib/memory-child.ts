/**
 * Child process for figure 5: fills the in-process cache past its byte bound with distinct keys, then runs the
 * lookups (90 % hits on resident keys, 10 % new keys that evict) and reports RSS at each step. Configured by
 * BENCH_MEMORY_CACHE_MB, BENCH_MEMORY_LOOKUPS, BENCH_MEMORY_CONCURRENCY.
 */
import { Pool } from 'undici';
import { ENTRY_OVERHEAD_BYTES } from '../../src/cache/memory-store.js';
import { buildApp } from '../../src/server/app.js';
import { FakeUpstream } from '../../test/support/fake-upstream.js';
import { auth, testConfig } from '../../test/support/app.js';
import { snapshot, type MemorySnapshot } from './memory-probe.js';
import { captureOr } from './payloads.js';
import { benchEnv } from './scenarios.js';
import { envInt } from './stats.js';

const cacheMb = envInt('BENCH_MEMORY_CACHE_MB', 32);
const lookups = envInt('BENCH_MEMORY_LOOKUPS', 100_000);
const concurrency = envInt('BENCH_MEMORY_CONCURRENCY', 32);
/**
 * A lookup's deadline timer keeps what the lookup touched reachable until it fires (by design, bounded by rate ×
 * deadline); a short deadline and a wait past it before the last measurement separate that from memory kept for good.
 */
const deadlineMs = envInt('BENCH_MEMORY_DEADLINE_MS', 3000);

const atStart = snapshot();
const fake = await new FakeUpstream().start();
const buyBar = captureOr('goat/dewuapiparser_goat_1341930_buy_bar_data.json', 'resale-b/buy-bar-data.json');
fake.serve('/', '<html><head><title>GOAT</title></head><body></body></html>');
fake.serve('/web-api/v1/product_variants/buy_bar_data', buyBar.value, { type: 'application/json' });
const app = await buildApp({
  config: testConfig(
    benchEnv(fake.origin, {
      MARKETLENS_CACHE_MAX_BYTES: String(cacheMb * 1024 * 1024),
      MARKETLENS_DEADLINE_MS: String(deadlineMs),
    }),
  ),
});
await app.ready();
// The fake keeps a log of every request; the bench does not need it and it would grow with the lookups.
fake.requests.push = () => 0;

await app.listen({ host: '127.0.0.1', port: 0 });
// Over loopback HTTP, as clients call the service: `app.inject` would keep each whole response (its bytes and a
// string copy) and a simulated request per lookup in this process, memory no real client puts in the service.
const client = new Pool(`http://127.0.0.1:${(app.server.address() as { port: number }).port}`, {
  connections: concurrency,
});

const xCache: Record<string, number> = {};
const statuses: Record<string, number> = {};
const lookup = async (id: number) => {
  const res = await client.request({
    method: 'GET',
    path: `/api/v1/scraper/resale-b/prices?query=${id}`,
    headers: auth,
  });
  let bytes = 0;
  for await (const chunk of res.body) bytes += (chunk as Buffer).length;
  statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
  const c = String(res.headers['x-cache'] ?? 'none');
  xCache[c] = (xCache[c] ?? 0) + 1;
  return bytes;
};
/** Runs `count` lookups with `concurrency` in flight; `pick(i)` gives the i-th key id. */
async function run(count: number, pick: (i: number) => number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await lookup(pick(next++));
    }),
  );
}

const afterStart = snapshot();
const answerBytes = await lookup(1);
// One entry as the store accounts it: the answer, its key and the measured per-entry cost (src/cache/memory-store.ts).
const entryBytes = answerBytes + 'resale-b.prices?country=US&query=100000'.length + ENTRY_OVERHEAD_BYTES;
const capacity = Math.floor((cacheMb * 1024 * 1024) / entryBytes);
// 25 % more distinct keys than fit: the store is full and has evicted.
const filled = Math.ceil(capacity * 1.25);
const t0 = performance.now();
await run(filled, (i) => 1 + i);
const fillMs = performance.now() - t0;
const afterFill = snapshot();
for (const k of Object.keys(xCache)) delete xCache[k];
for (const k of Object.keys(statuses)) delete statuses[k];

let fresh = filled + 1;
const residentFrom = filled - Math.floor(capacity * 0.8);
const t1 = performance.now();
await run(lookups, (i) =>
  i % 10 === 9 ? ++fresh : residentFrom + Math.floor(Math.random() * (filled - residentFrom)),
);
const lookupsMs = performance.now() - t1;
const afterLookups = snapshot(false);
const afterGc = snapshot(true);
await new Promise((r) => setTimeout(r, deadlineMs + 500));
const settled = snapshot(true);
const steps: Record<string, MemorySnapshot> = {
  at_start: atStart,
  after_app_start: afterStart,
  after_fill: afterFill,
  after_lookups: afterLookups,
  after_lookups_gc: afterGc,
  after_deadlines_gc: settled,
};

process.send!({
  type: 'ready',
  cache_max_bytes: cacheMb * 1024 * 1024,
  answer_bytes: answerBytes,
  cache_capacity_entries: capacity,
  distinct_keys_filled: filled,
  distinct_keys_total: fresh,
  lookups,
  statuses,
  x_cache: xCache,
  deadline_ms: deadlineMs,
  fill_s: fillMs / 1000,
  lookups_s: lookupsMs / 1000,
  steps,
});
await client.close();
await app.close();
await fake.stop();
process.exit(0);

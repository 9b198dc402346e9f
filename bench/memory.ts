/**
 * Figure 5 — memory. (a) RSS of a fresh service process after 100 000 lookups with a full cache (the service alone in
 * its process: the fake marketplace and the load generator run elsewhere). (b) The hostile fill of issue 21: a 256 MB cache filled over loopback
 * HTTP with 20 000 distinct ~47 KB finder answers (bench/lib/hostile-fill-child.ts), peak RSS during the fill and RSS
 * once idle. Each runs in its own process so nothing else the bench did counts.
 */
import { Pool } from 'undici';
import { auth } from '../test/support/app.js';
import { ENTRY_OVERHEAD_BYTES } from '../src/cache/memory-store.js';
import { startChild } from './lib/child.js';
import type { MemorySnapshot } from './lib/memory-probe.js';
import { envInt } from './lib/stats.js';

export interface MemoryResult {
  cache_max_bytes: number;
  answer_bytes: number;
  cache_capacity_entries: number;
  distinct_keys_filled: number;
  distinct_keys_total: number;
  lookups: number;
  statuses: Record<string, number>;
  x_cache: Record<string, number>;
  deadline_ms: number;
  fill_s: number;
  lookups_s: number;
  steps: Record<
    'at_start' | 'after_app_start' | 'after_fill' | 'after_lookups' | 'after_lookups_gc' | 'after_deadlines_gc',
    MemorySnapshot
  >;
  hostile: HostileFillResult;
}

export interface HostileFillResult {
  cache_max_bytes: number;
  keys: number;
  concurrency: number;
  answer_bytes: number;
  statuses: Record<string, number>;
  fill_s: number;
  peak_rss: number;
  steps: Record<'at_start' | 'after_app_start' | 'after_fill' | 'idle_gc', MemorySnapshot>;
}

/**
 * Extra settings of both children, e.g. `BENCH_MEMORY_NODE_OPTIONS='--max-semi-space-size=2'` or
 * `BENCH_MEMORY_CHILD_ENV='{"MALLOC_ARENA_MAX":"2"}'` (what bench/README.md's breakdown measured).
 */
function childEnv(): Record<string, string> {
  const env: Record<string, string> = JSON.parse(process.env.BENCH_MEMORY_CHILD_ENV ?? '{}');
  const flags = process.env.BENCH_MEMORY_NODE_OPTIONS;
  if (flags) env.NODE_OPTIONS = [process.env.NODE_OPTIONS, flags].filter(Boolean).join(' ');
  return env;
}

/**
 * (a): the fake GOAT in one child, the service in another (lib/memory-child.ts); this process fills the cache with
 * 25 % more distinct keys than fit, then runs the lookups (90 % on resident keys, 10 % new keys that evict),
 * BENCH_MEMORY_CONCURRENCY in flight, and asks the service for a snapshot after each step.
 */
export async function memoryFigure(): Promise<MemoryResult> {
  const lookups = envInt('BENCH_MEMORY_LOOKUPS', 100_000);
  const concurrency = envInt('BENCH_MEMORY_CONCURRENCY', 32);
  const fake = await startChild<{ origin: string }>(new URL('./lib/fake-child.ts', import.meta.url));
  const { child, ready } = await startChild<{
    port: number;
    cache_max_bytes: number;
    deadline_ms: number;
    at_start: MemorySnapshot;
    after_app_start: MemorySnapshot;
  }>(new URL('./lib/memory-child.ts', import.meta.url), { ...childEnv(), BENCH_FAKE_ORIGIN: fake.ready.origin });
  const snap = async (collect = true) =>
    (await child.ask<{ snapshot: MemorySnapshot }>('snapshot', { collect })).snapshot;
  const pool = new Pool(`http://127.0.0.1:${ready.port}`, { connections: concurrency });
  const xCache: Record<string, number> = {};
  const statuses: Record<string, number> = {};
  const lookup = async (id: number) => {
    const res = await pool.request({
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
  const run = async (count: number, pick: (i: number) => number): Promise<void> => {
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < count) await lookup(pick(next++));
      }),
    );
  };

  const answerBytes = await lookup(1);
  // One entry as the store accounts it: the answer, its key and the measured per-entry cost (src/cache/memory-store.ts).
  const entryBytes = answerBytes + 'resale-b.prices?country=US&query=100000'.length + ENTRY_OVERHEAD_BYTES;
  const capacity = Math.floor(ready.cache_max_bytes / entryBytes);
  // 25 % more distinct keys than fit: the store is full and has evicted.
  const filled = Math.ceil(capacity * 1.25);
  const t0 = performance.now();
  await run(filled, (i) => 1 + i);
  const fillMs = performance.now() - t0;
  const afterFill = await snap();
  for (const k of Object.keys(xCache)) delete xCache[k];
  for (const k of Object.keys(statuses)) delete statuses[k];

  let fresh = filled + 1;
  const residentFrom = filled - Math.floor(capacity * 0.8);
  const t1 = performance.now();
  await run(lookups, (i) =>
    i % 10 === 9 ? ++fresh : residentFrom + Math.floor(Math.random() * (filled - residentFrom)),
  );
  const lookupsMs = performance.now() - t1;
  const afterLookups = await snap(false);
  const afterGc = await snap(true);
  await new Promise((r) => setTimeout(r, ready.deadline_ms + 500));
  const settled = await snap(true);
  await pool.close();
  await child.stop();
  await fake.child.stop();
  return {
    cache_max_bytes: ready.cache_max_bytes,
    answer_bytes: answerBytes,
    cache_capacity_entries: capacity,
    distinct_keys_filled: filled,
    distinct_keys_total: fresh,
    lookups,
    statuses,
    x_cache: xCache,
    deadline_ms: ready.deadline_ms,
    fill_s: fillMs / 1000,
    lookups_s: lookupsMs / 1000,
    steps: {
      at_start: ready.at_start,
      after_app_start: ready.after_app_start,
      after_fill: afterFill,
      after_lookups: afterLookups,
      after_lookups_gc: afterGc,
      after_deadlines_gc: settled,
    },
    hostile: await hostileFill(),
  };
}

/** BENCH_HOSTILE_KEYS distinct keys, BENCH_HOSTILE_CONCURRENCY in flight, every answer read to its end. */
export async function hostileFill(): Promise<HostileFillResult> {
  const keys = envInt('BENCH_HOSTILE_KEYS', 20_000);
  const concurrency = envInt('BENCH_HOSTILE_CONCURRENCY', 32);
  const { child, ready } = await startChild<{ port: number; cache_max_bytes: number }>(
    new URL('./lib/hostile-fill-child.ts', import.meta.url),
    childEnv(),
  );
  const pool = new Pool(`http://127.0.0.1:${ready.port}`, { connections: concurrency });
  const statuses: Record<string, number> = {};
  let answerBytes = 0;
  const lookup = async (i: number) => {
    const res = await pool.request({
      method: 'GET',
      path: `/api/v2/finder/watchmarket-search?query=brand-${i}`,
      headers: auth,
    });
    let n = 0;
    for await (const chunk of res.body) n += (chunk as Buffer).length;
    answerBytes = n;
    statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
  };
  await child.ask('fill-start');
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < keys) await lookup(next++);
    }),
  );
  const fillMs = performance.now() - t0;
  const { peak_rss } = await child.ask<{ peak_rss: number }>('fill-end');
  const { steps } = await child.ask<{ steps: HostileFillResult['steps'] }>('idle');
  await pool.close();
  await child.stop();
  return {
    cache_max_bytes: ready.cache_max_bytes,
    keys,
    concurrency,
    answer_bytes: answerBytes,
    statuses,
    fill_s: fillMs / 1000,
    peak_rss,
    steps,
  };
}

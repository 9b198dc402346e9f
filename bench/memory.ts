/**
 * Figure 5 — memory. (a) RSS of a fresh service process after 100 000 lookups with a full cache (see
 * bench/lib/memory-child.ts for the steps). (b) The hostile fill of issue 21: a 256 MB cache filled over loopback
 * HTTP with 20 000 distinct ~47 KB finder answers (bench/lib/hostile-fill-child.ts), peak RSS during the fill and RSS
 * once idle. Each runs in its own process so nothing else the bench did counts.
 */
import { Pool } from 'undici';
import { auth } from '../test/support/app.js';
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

export async function memoryFigure(): Promise<MemoryResult> {
  const { child, ready } = await startChild<Omit<MemoryResult, 'hostile'> & { type: string }>(
    new URL('./lib/memory-child.ts', import.meta.url),
    childEnv(),
  );
  await new Promise<void>((resolve) =>
    child.proc.exitCode !== null ? resolve() : child.proc.once('exit', () => resolve()),
  );
  const { type: _type, ...result } = ready;
  return { ...result, hostile: await hostileFill() };
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

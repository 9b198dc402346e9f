/**
 * Figure 1 — cached lookup throughput vs a bare Fastify handler sending the same bytes, in the same run: the service
 * and the bare app run in one child process (bench/lib/service-child.ts), autocannon runs here, against each in turn
 * with the same connections and duration, over loopback. The ratio is marketlens req/s ÷ bare req/s.
 */
import autocannon from 'autocannon';
import { TEST_KEY } from '../test/support/app.js';
import { startChild } from './lib/child.js';
import { envInt, round } from './lib/stats.js';

export interface CannonFigures {
  req_per_s: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
  non_2xx: number;
  errors: number;
  requests: number;
}

export interface ThroughputResult {
  marketlens: CannonFigures;
  bare_fastify: CannonFigures;
  ratio: number;
  connections: number;
  duration_s: number;
  response_bytes: number;
  payload: string;
  log_level: string;
}

function figures(r: autocannon.Result): CannonFigures {
  return {
    req_per_s: round(r.requests.average),
    latency_p50_ms: round(r.latency.p50),
    latency_p99_ms: round(r.latency.p99),
    non_2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    requests: r.requests.total,
  };
}

export function cannon(url: string, connections: number, duration: number): Promise<autocannon.Result> {
  return autocannon({ url, connections, duration, headers: { 'x-api-key': TEST_KEY } });
}

export async function throughput(
  opts: { connections?: number; duration?: number; warmup?: number } = {},
): Promise<ThroughputResult> {
  const connections = opts.connections ?? envInt('BENCH_CONNECTIONS', 50);
  const duration = opts.duration ?? envInt('BENCH_DURATION', 10);
  const warmup = opts.warmup ?? envInt('BENCH_WARMUP', 2);
  const { child, ready } = await startChild<{
    base: string;
    bare: string;
    path: string;
    bytes: number;
    payload: string;
    logLevel: string;
  }>(new URL('./lib/service-child.ts', import.meta.url));
  try {
    // Warm both (JIT, connection pools), then measure bare and marketlens back to back.
    await cannon(ready.bare + ready.path, connections, warmup);
    await cannon(ready.base + ready.path, connections, warmup);
    const bare = figures(await cannon(ready.bare + ready.path, connections, duration));
    const ml = figures(await cannon(ready.base + ready.path, connections, duration));
    return {
      marketlens: ml,
      bare_fastify: bare,
      ratio: round(ml.req_per_s / bare.req_per_s),
      connections,
      duration_s: duration,
      response_bytes: ready.bytes,
      payload: ready.payload,
      log_level: ready.logLevel,
    };
  } finally {
    await child.stop();
  }
}

/**
 * Figure 1 — cached lookup throughput vs a bare Fastify handler sending the same bytes, in the same run: the service
 * and the bare app run in one child process (bench/lib/service-child.ts), autocannon runs here, against each in turn
 * with the same connections and duration, over loopback. Three interleaved rounds (bare, marketlens, bare, …); per
 * round two ratios: req/s (marketlens ÷ bare, higher is better) and server CPU per request (bare ÷ marketlens, so
 * 1 means "as cheap as the bare route" for both). Reported: each round, and the median and range of both ratios.
 * The server's CPU and full GCs come from the child process itself (bench/lib/process-usage.ts).
 */
import autocannon from 'autocannon';
import { TEST_KEY } from '../test/support/app.js';
import { startChild, type Child } from './lib/child.js';
import { usageBetween, type ProcessUsage } from './lib/process-usage.js';
import { envInt, median, round } from './lib/stats.js';

export interface CannonFigures {
  req_per_s: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
  non_2xx: number;
  errors: number;
  requests: number;
  /** Server CPU (user + system) per request, µs. */
  cpu_us_per_request: number;
  /** Of which in the kernel, µs. */
  system_us_per_request: number;
  /** Full (mark-compact) collections in the server during the window. */
  major_gcs: number;
  /** Their time, ms (a storm is collections back to back: a large share of the window). */
  major_gc_ms: number;
}

export interface ThroughputRound {
  bare_fastify: CannonFigures;
  marketlens: CannonFigures;
  /** marketlens req/s ÷ bare req/s. */
  req_ratio: number;
  /** bare CPU per request ÷ marketlens CPU per request. */
  cpu_ratio: number;
}

export interface RatioSummary {
  median: number;
  min: number;
  max: number;
}

export interface ThroughputResult {
  rounds: ThroughputRound[];
  req_ratio: RatioSummary;
  cpu_ratio: RatioSummary;
  /** Full GCs in the server over every measured window of the service (a storm is several per window). */
  marketlens_major_gcs: number;
  /** Share of the service's measured windows spent in full GCs, %. */
  marketlens_major_gc_percent: number;
  connections: number;
  duration_s: number;
  response_bytes: number;
  payload: string;
  log_level: string;
  /** V8 flags the server process ran with (as the start command sets them). */
  node_flags: string[];
}

export function cannon(url: string, connections: number, duration: number): Promise<autocannon.Result> {
  return autocannon({ url, connections, duration, headers: { 'x-api-key': TEST_KEY } });
}

/** One autocannon window against `url`, with the server's CPU and GCs over the same window. */
async function measure(child: Child, url: string, connections: number, duration: number): Promise<CannonFigures> {
  const before = await child.ask<ProcessUsage>('usage');
  const r = await cannon(url, connections, duration);
  const used = usageBetween(before, await child.ask<ProcessUsage>('usage'));
  const served = r.requests.total;
  return {
    req_per_s: round(r.requests.average),
    latency_p50_ms: round(r.latency.p50),
    latency_p99_ms: round(r.latency.p99),
    non_2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    requests: served,
    cpu_us_per_request: round(used.cpu_us / Math.max(1, served)),
    system_us_per_request: round(used.system_us / Math.max(1, served)),
    major_gcs: used.major_gcs,
    major_gc_ms: round(used.major_gc_ms),
  };
}

function summary(values: number[]): RatioSummary {
  return { median: round(median(values)), min: round(Math.min(...values)), max: round(Math.max(...values)) };
}

export async function throughput(
  opts: { connections?: number; duration?: number; warmup?: number; rounds?: number } = {},
): Promise<ThroughputResult> {
  const connections = opts.connections ?? envInt('BENCH_CONNECTIONS', 50);
  const duration = opts.duration ?? envInt('BENCH_DURATION', 10);
  const warmup = opts.warmup ?? envInt('BENCH_WARMUP', 2);
  const roundCount = opts.rounds ?? envInt('BENCH_ROUNDS', 3);
  const { child, ready } = await startChild<{
    base: string;
    bare: string;
    path: string;
    bytes: number;
    payload: string;
    logLevel: string;
    nodeFlags: string[];
  }>(new URL('./lib/service-child.ts', import.meta.url));
  try {
    // Warm both (JIT, connection pools), then alternate: a drift in the machine's load hits both sides alike.
    await cannon(ready.bare + ready.path, connections, warmup);
    await cannon(ready.base + ready.path, connections, warmup);
    const rounds: ThroughputRound[] = [];
    for (let i = 0; i < roundCount; i++) {
      const bare = await measure(child, ready.bare + ready.path, connections, duration);
      const ml = await measure(child, ready.base + ready.path, connections, duration);
      rounds.push({
        bare_fastify: bare,
        marketlens: ml,
        req_ratio: round(ml.req_per_s / bare.req_per_s),
        cpu_ratio: round(bare.cpu_us_per_request / ml.cpu_us_per_request),
      });
    }
    return {
      rounds,
      req_ratio: summary(rounds.map((r) => r.req_ratio)),
      cpu_ratio: summary(rounds.map((r) => r.cpu_ratio)),
      marketlens_major_gcs: rounds.reduce((n, r) => n + r.marketlens.major_gcs, 0),
      marketlens_major_gc_percent: round(
        (100 * rounds.reduce((ms, r) => ms + r.marketlens.major_gc_ms, 0)) / (rounds.length * duration * 1000),
      ),
      connections,
      duration_s: duration,
      response_bytes: ready.bytes,
      payload: ready.payload,
      log_level: ready.logLevel,
      node_flags: ready.nodeFlags,
    };
  } finally {
    await child.stop();
  }
}

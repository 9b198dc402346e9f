/**
 * Figure 1 — cached lookup throughput vs a bare Fastify handler sending the same bytes, in the same run, measured on
 * what users run (issue 33): the service is its installed start command (`bin/marketlens serve`), the bare route a
 * minimal Fastify process of its own, the load generator wrk (one thread) when installed, else autocannon here; each
 * server's CPU is read from /proc (bench/lib/versus-bare.ts). The service logs at BENCH_LOG_LEVEL (default `info`,
 * the service's default: an access line per request, written to /dev/null). Interleaved rounds (bare, marketlens, …);
 * per round two ratios: req/s (marketlens ÷ bare, higher is better) and server CPU per request (bare ÷ marketlens, so
 * 1 means "as cheap as the bare route" for both). Reported: each round, and the median and range of both ratios.
 * The outside check (outside.ts) is the same measurement at `warn` with wrk; the two are printed side by side.
 */
import { defaultGenerator, versusBare, type Generator, type RatioSummary } from './lib/versus-bare.js';

export type { RatioSummary } from './lib/versus-bare.js';

export interface ServerFigures {
  req_per_s: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
  requests: number;
  /** Server CPU (user + system) per request, µs. */
  cpu_us_per_request: number;
  /** Of which in the kernel, µs. */
  system_us_per_request: number;
  /** Socket errors and timeouts. */
  errors: number;
}

export interface ThroughputRound {
  bare_fastify: ServerFigures;
  marketlens: ServerFigures;
  /** marketlens req/s ÷ bare req/s. */
  req_ratio: number;
  /** bare CPU per request ÷ marketlens CPU per request. */
  cpu_ratio: number;
}

export interface ThroughputResult {
  rounds: ThroughputRound[];
  req_ratio: RatioSummary;
  cpu_ratio: RatioSummary;
  connections: number;
  duration_s: number;
  response_bytes: number;
  log_level: string;
  /** How the service was started: the start command, or node with the extra BENCH_NODE_FLAGS. */
  start_command: string;
  generator: Generator;
}

export async function throughput(
  opts: { connections?: number; duration?: number; warmup?: number; rounds?: number } = {},
): Promise<ThroughputResult> {
  const r = await versusBare({
    ...opts,
    logLevel: process.env.BENCH_LOG_LEVEL ?? 'info',
    generator: defaultGenerator(),
    nodeFlags: process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? [],
  });
  return {
    rounds: r.rounds.map((round) => ({
      bare_fastify: round.bare,
      marketlens: round.services[0]!,
      req_ratio: round.ratios[0]!,
      cpu_ratio: round.cpu_ratios[0]!,
    })),
    req_ratio: r.ratio,
    cpu_ratio: r.cpu_ratio,
    connections: r.connections,
    duration_s: r.duration_s,
    response_bytes: r.response_bytes,
    log_level: r.log_level,
    start_command: r.start_command,
    generator: r.generator,
  };
}

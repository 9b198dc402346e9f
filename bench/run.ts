/**
 * `npm run bench [-- figure…]`: the figures of issues 10, 17, 21, 27 and 33 (cached throughput, workers, cold path, parse, dedup, memory, status, history, fairness, product, the outside check), measured in one run, printed as tables and written to
 * bench/results.json. Figures: throughput, workers, cold, parse, dedup, memory, status, history, fairness, product, outside (all by default). Durations and sizes come
 * from BENCH_* variables (bench/README.md). Traffic stays on 127.0.0.1; upstreams are fakes.
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { writeFileSync } from 'node:fs';
import { coldPath, type ColdPathRow } from './cold-path.js';
import { dedup, type DedupResult } from './dedup.js';
import { fairnessFigure, type FairnessResult, type FairnessWindow } from './fairness.js';
import { historyBench, type HistoryBenchResult } from './history.js';
import { memoryFigure, type MemoryResult } from './memory.js';
import type { MemorySnapshot } from './lib/memory-probe.js';
import { outsideCheck, type OutsideResult } from './outside.js';
import { parseCost, type ParseRow } from './parse-cost.js';
import { productBench, type ProductBenchResult } from './products.js';
import { sharedAvailable } from './lib/payloads.js';
import { statusCost, type StatusCostResult } from './status-cost.js';
import { mb, round, table } from './lib/stats.js';
import { throughput, type ThroughputResult } from './throughput.js';
import { workersFigure, type WorkersResult } from './workers.js';

const FIGURES = [
  'throughput',
  'workers',
  'cold',
  'parse',
  'dedup',
  'memory',
  'status',
  'history',
  'fairness',
  'product',
  'outside',
] as const;
type Figure = (typeof FIGURES)[number];

const asked = process.argv.slice(2).filter((a) => a !== '--');
const unknown = asked.filter((a) => !(FIGURES as readonly string[]).includes(a));
if (unknown.length > 0) {
  console.error(`unknown figure ${unknown.join(', ')}; choose from ${FIGURES.join(', ')}`);
  process.exit(2);
}
const want = (f: Figure) => asked.length === 0 || asked.includes(f);

const results: {
  when: string;
  machine: Record<string, unknown>;
  inputs: string;
  throughput?: ThroughputResult;
  workers?: WorkersResult;
  cold_path?: ColdPathRow[];
  parse?: { rows: ParseRow[]; watchmarket_665kb_ms: number | null; watchmarket_665kb_under_100ms: boolean | null };
  dedup?: DedupResult;
  memory?: MemoryResult;
  status?: StatusCostResult;
  history?: HistoryBenchResult;
  fairness?: FairnessResult;
  product?: ProductBenchResult;
  outside?: OutsideResult & { figure_1_ratio: number; agree_within_10_percent: boolean };
  runtime_s?: number;
} = {
  when: new Date().toISOString(),
  machine: {
    cpus: cpus().length,
    cpu_model: cpus()[0]?.model,
    total_memory_mb: mb(totalmem()),
    node: process.version,
    load_average_at_start: loadavg().map(round),
  },
  inputs: sharedAvailable
    ? 'real captures (../shared/upstream-samples) where the path takes them, else repo fixtures'
    : 'repo fixtures (../shared absent)',
};

const t0 = performance.now();
const section = (title: string) => console.log(`\n== ${title}`);
console.log(
  `marketlens bench — ${results.machine.cpus} CPUs (${results.machine.cpu_model}), Node ${process.version}, load ${loadavg().map(round).join(' ')}; inputs: ${results.inputs}`,
);

if (want('throughput')) {
  section('1. cached lookup throughput vs a bare Fastify handler (same bytes, same run)');
  const r = await throughput();
  results.throughput = r;
  const side = (name: string, f: ThroughputResult['rounds'][number]['bare_fastify']) => [
    name,
    f.req_per_s,
    f.cpu_us_per_request,
    f.system_us_per_request,
    f.latency_p50_ms,
    f.latency_p99_ms,
    f.errors,
  ];
  console.log(
    table(
      ['round', 'server', 'req/s', 'CPU µs/req', 'of which kernel', 'p50 ms', 'p99 ms', 'errors'],
      r.rounds.flatMap((round, i) => [
        [String(i + 1), ...side('bare Fastify', round.bare_fastify)],
        ['', ...side('marketlens (cache hit)', round.marketlens)],
      ]),
    ),
  );
  const range = (s: ThroughputResult['req_ratio']) => `${s.median} (range ${s.min}–${s.max})`;
  console.log(
    `median of ${r.rounds.length} interleaved rounds: req/s ratio marketlens/bare = ${range(r.req_ratio)}; ` +
      `CPU-per-request ratio bare/marketlens = ${range(r.cpu_ratio)}`,
  );
  console.log(
    `(${r.connections} connections × ${r.duration_s} s per window, ${r.response_bytes}-byte answer, ${r.generator}, ` +
      `request log level ${r.log_level}, service started as ${r.start_command})`,
  );
}

if (want('workers')) {
  section('1b. MARKETLENS_WORKERS=2: cached lookups through the real binary vs one bare Fastify process');
  const r = await workersFigure({ workers: 2 });
  results.workers = r;
  console.log(
    `${r.workers} workers ${r.req_per_s} req/s vs bare single process ${r.bare_single_req_per_s} req/s → ratio ${r.ratio} ` +
      `(median of rounds ${r.round_ratios.join(', ')}; load generator ${r.generator})`,
  );
}

if (want('cold')) {
  section('2. cold-path overhead per operation (service latency − fake-upstream latency)');
  const rows = await coldPath({ log: (s) => console.log(s) });
  results.cold_path = rows;
  console.log(
    table(
      [
        'operation',
        'upstream req',
        'upstream KB',
        'service p50',
        'service p99',
        'upstream p50',
        'upstream p99',
        'overhead p50',
        'overhead p99',
      ],
      rows.map((r) => [
        r.operation,
        r.upstream_requests,
        round(r.upstream_bytes / 1000),
        r.service_p50_ms,
        r.service_p99_ms,
        r.upstream_p50_ms,
        r.upstream_p99_ms,
        r.overhead_p50_ms,
        r.overhead_p99_ms,
      ]),
    ),
  );
  console.log('(ms; payloads:)');
  for (const r of rows) console.log(`  ${r.operation}: ${r.payload}`);
}

if (want('parse')) {
  section('3. parse cost per operation (bodiesFromFiles + parse + record check)');
  const rows = parseCost();
  const big = rows.find((r) => r.operation === 'watchmarket.search' && r.input.startsWith('665 KB'));
  results.parse = {
    rows,
    watchmarket_665kb_ms: big && !big.error ? big.ms_per_capture : null,
    watchmarket_665kb_under_100ms: big && !big.error ? big.ms_per_capture < 100 : null,
  };
  console.log(
    table(
      ['operation', 'input', 'KB', 'ms/capture', 'ms/MB', 'runs'],
      rows.map((r) => [
        r.operation,
        r.input,
        round(r.bytes / 1000),
        r.error ? `FAILED: ${r.error}` : r.ms_per_capture,
        Number.isFinite(r.ms_per_mb) ? r.ms_per_mb : '-',
        r.runs,
      ]),
    ),
  );
}

if (want('dedup')) {
  section('4. de-duplication of concurrent identical cold lookups');
  const r = await dedup();
  results.dedup = r;
  console.log(
    `${r.concurrent_lookups} concurrent ${r.operation} lookups of one uncached key → ${r.upstream_requests} upstream request(s); ` +
      `statuses ${JSON.stringify(r.statuses)}, X-Cache ${JSON.stringify(r.x_cache)} (fake upstream answers after ${r.upstream_delay_ms} ms)`,
  );
}

if (want('memory')) {
  section('5. memory after lookups with a full cache');
  const r = await memoryFigure();
  results.memory = r;
  console.log(
    `cache bound ${mb(r.cache_max_bytes)} MB (~${r.cache_capacity_entries} answers of ${r.answer_bytes} B); filled with ${r.distinct_keys_filled} distinct keys ` +
      `in ${round(r.fill_s)} s; then ${r.lookups} lookups (90 % on resident keys, 10 % new keys) in ${round(r.lookups_s)} s, ` +
      `${r.distinct_keys_total} distinct keys in all; X-Cache ${JSON.stringify(r.x_cache)}, statuses ${JSON.stringify(r.statuses)}`,
  );
  const steps = [
    ['process start', r.steps.at_start],
    ['app started', r.steps.after_app_start],
    ['cache full', r.steps.after_fill],
    [`after ${r.lookups} lookups`, r.steps.after_lookups],
    ['same, after GC', r.steps.after_lookups_gc],
    [`GC after the ${r.deadline_ms} ms deadlines`, r.steps.after_deadlines_gc],
  ] as const;
  console.log(memoryTable(steps));
  const h = r.hostile;
  console.log(
    `\nhostile fill: ${h.keys} distinct finder answers of ${h.answer_bytes} B, ${h.concurrency} in flight over HTTP, into a ` +
      `${mb(h.cache_max_bytes)} MB cache in ${round(h.fill_s)} s; statuses ${JSON.stringify(h.statuses)}; ` +
      `peak RSS ${mb(h.peak_rss)} MB = cache bound + ${mb(h.peak_rss - h.cache_max_bytes)} MB`,
  );
  console.log(
    memoryTable([
      ['process start', h.steps.at_start],
      ['app started', h.steps.after_app_start],
      ['after the fill', h.steps.after_fill],
      ['idle, after GC', h.steps.idle_gc],
    ]),
  );
}

/** One row per step: RSS and where it is (V8 heap, Buffers, anonymous/file-backed RSS, threads), in MB. */
function memoryTable(steps: readonly (readonly [string, MemorySnapshot])[]): string {
  return table(
    ['MB', 'RSS', 'heap used', 'heap total', 'Buffers', 'anon RSS', 'file RSS', 'threads'],
    steps.map(([label, s]) => [
      label,
      mb(s.rss),
      mb(s.heapUsed),
      mb(s.heapTotal),
      mb(s.arrayBuffers),
      mb(s.anon),
      mb(s.file),
      s.threads,
    ]),
  );
}

if (want('status')) {
  section('6. what /api/v1/status costs the lookup path (per call, beyond an empty loop)');
  const r = statusCost();
  results.status = r;
  console.log(
    table(
      ['call', 'ns per call'],
      r.rows.map((row) => [row.call, row.ns_per_call]),
    ),
  );
  console.log(
    `heap growth over ${r.calls} × 3 calls: ${r.heap_growth_bytes_per_call === null ? 'not measured (run node with --expose-gc)' : `${r.heap_growth_bytes_per_call} B per call`}; memory ${r.status_memory_note}`,
  );
}

if (want('history')) {
  section('7. price history: write cost per lookup, 30-day daily series over 1M rows (SQLite), size per million rows');
  const r = await historyBench({ log: (s) => console.log(s) });
  results.history = r;
  const w = r.write_cost;
  console.log(
    table(
      ['history', 'lookups', 'p50 ms', 'total ms (incl. writes)'],
      [
        ['on', w.lookups_each, w.p50_on_ms, w.total_on_ms],
        ['off', w.lookups_each, w.p50_off_ms, w.total_off_ms],
      ],
    ),
  );
  console.log(
    `cold-path overhead of history: ${w.overhead_total_pct} % in total time, ${w.overhead_p50_pct} % at p50 (${w.rows_written} price rows written)`,
  );
  console.log(
    `30-day daily series over ${r.series.rows} rows (${r.series.lookups} lookups, ${r.series.rows_in_window} rows in the window): ` +
      `p50 ${r.series.p50_ms} ms, p99 ${r.series.p99_ms} ms over ${r.series.runs} queries`,
  );
  console.log(
    `SQLite size: ${mb(r.size.bytes)} MB for ${r.size.rows} rows = ${r.size.mb_per_million_rows} MB per million price rows`,
  );
  if (r.postgres_size)
    console.log(`PostgreSQL size (table + indexes): ${r.postgres_size.mb_per_million_rows} MB per million price rows`);
  else console.log('PostgreSQL size: not measured (no server reachable)');
}

if (want('fairness')) {
  section(
    "8. fairness: a key's interactive lookups with and without another key's tracked products and hanging webhooks",
  );
  const r = await fairnessFigure();
  results.fairness = r;
  const row = (label: string, w: FairnessWindow) => [
    label,
    w.lookups,
    JSON.stringify(w.statuses),
    w.p50_ms,
    w.p99_ms,
    w.max_ms,
    w.upstream_p50_ms,
    w.upstream_p99_ms,
    w.healthz_p50_ms,
    w.healthz_p99_ms,
    w.service_cpu_pct,
    `${w.tracked_ahead_p50} / ${w.tracked_ahead_p99} / ${w.tracked_ahead_max}`,
    w.upstream_caller_per_s,
    w.upstream_tracked_per_s,
  ];
  console.log(
    table(
      [
        'window',
        'lookups',
        'statuses',
        'p50 ms',
        'p99 ms',
        'max ms',
        'fetch p50 ms',
        'fetch p99 ms',
        '/healthz p50 ms',
        '/healthz p99 ms',
        'service CPU %',
        'tracked ahead p50/p99/max',
        'caller upstream/s',
        'tracked upstream/s',
      ],
      [row('quiet', r.quiet), row(`${r.tracked} tracked + ${r.webhooks} hanging webhooks`, r.loaded)],
    ),
  );
  console.log(
    `(${r.rate_per_s} lookups/s for ${r.window_s} s each, politeness ${r.min_interval_ms} ms between requests, fake answers after ` +
      `${r.upstream_delay_ms} ms; created in ${r.create_s} s ${JSON.stringify(r.create_statuses)}; ${r.tracked_fetched} tracked products fetched; ` +
      `${r.webhook_connections} webhook connections held; refused before the wire ${JSON.stringify(r.refused)}; log lines ${JSON.stringify(r.log_lines)})`,
  );
}

if (want('product')) {
  section('9. product by SKU: the answer against its slowest part (cold), upstream requests per answer, warm latency');
  const r = await productBench({ log: (s) => console.log(s) });
  results.product = r;
  console.log(
    table(
      ['cold (no-cache)', 'p50 ms', 'p99 ms'],
      [
        ['product answer', r.answer_p50_ms, r.answer_p99_ms],
        ['its slowest part alone', r.slowest_part_p50_ms, r.slowest_part_p99_ms],
        ['answer − slowest part (per round)', r.over_slowest_p50_ms, r.over_slowest_p99_ms],
      ],
    ),
  );
  console.log(
    `within 5 ms of its slowest part at p50: ${r.within_5ms_at_p50 ? 'yes' : 'NO'} (slowest part: ${JSON.stringify(r.slowest_part)}); ` +
      `upstream requests per answer: first ${r.upstream_requests.first}, cold ${r.upstream_requests.cold}, warm ${r.upstream_requests.warm}; ` +
      `warm answer p50 ${r.warm_p50_ms} ms, p99 ${r.warm_p99_ms} ms (${r.rounds} rounds each)`,
  );
}

if (want('outside')) {
  section(
    '1c. outside check: the installed start command at warn vs a minimal Fastify process, wrk -t1 (beside figure 1)',
  );
  const r = await outsideCheck();
  // Figure 1 from the same run: measured above, or now when only the outside check was asked for.
  const figure1 = results.throughput ?? (await throughput());
  const agree = Math.abs(r.ratio.median - figure1.req_ratio.median) <= 0.1 * r.ratio.median;
  results.outside = { ...r, figure_1_ratio: figure1.req_ratio.median, agree_within_10_percent: agree };
  console.log(
    table(
      ['round', 'server', 'req/s', 'CPU µs/req', 'of which kernel', 'req/s ratio', 'CPU ratio'],
      r.rounds.flatMap((round, i) => [
        [
          String(i + 1),
          'bare Fastify',
          round.bare.req_per_s,
          round.bare.cpu_us_per_request,
          round.bare.system_us_per_request,
          '',
          '',
        ],
        ...round.services.map((s, j) => [
          '',
          r.services[j]!.root,
          s.req_per_s,
          s.cpu_us_per_request,
          s.system_us_per_request,
          round.ratios[j]!,
          round.cpu_ratios[j]!,
        ]),
      ]),
    ),
  );
  console.log(
    `outside req/s ratio ${r.ratio.median} (range ${r.ratio.min}–${r.ratio.max}), CPU ratio ${r.cpu_ratio.median}; ` +
      `figure 1 in the same run ${figure1.req_ratio.median} (range ${figure1.req_ratio.min}–${figure1.req_ratio.max}): ` +
      `${agree ? 'agree' : 'do NOT agree'} within 10 % (${r.connections} connections × ${r.duration_s} s, ${r.generator}, log level ${r.log_level})`,
  );
}

results.runtime_s = round((performance.now() - t0) / 1000);
if (asked.length === 0) {
  writeFileSync(new URL('./results.json', import.meta.url), JSON.stringify(results, null, 2) + '\n');
  console.log(`\nwrote bench/results.json (${results.runtime_s} s)`);
} else {
  // A partial run does not overwrite the full results.
  writeFileSync(new URL('./results.partial.json', import.meta.url), JSON.stringify(results, null, 2) + '\n');
  console.log(`\nwrote bench/results.partial.json (${results.runtime_s} s)`);
}
process.exit(0);

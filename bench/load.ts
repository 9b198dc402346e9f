/**
 * `npm run bench:load`: 500 concurrent connections for 30 s (BENCH_LOAD_CONNECTIONS, BENCH_LOAD_DURATION) over the
 * mix of bench/load-mix.ts against the service in a child process (127.0.0.1 only, fake marketplace), then:
 * a histogram of statuses per request class, "no unintended status", and bounded memory (RSS of the service after
 * GC, before vs after, within BENCH_LOAD_MAX_RSS_GROWTH_MB; heap within BENCH_LOAD_MAX_HEAP_GROWTH_MB). Exits 1 when an
 * assertion fails.
 * During the measured run BENCH_LOAD_SILENT_SOCKETS (2 000) extra connections that never send a byte are held open
 * (re-opened whenever the service closes one): they must cost no request an unintended status.
 * Results: bench/load-results.json. BENCH_LOAD_SERVICE_ENV (JSON) adds MARKETLENS_* settings for the service.
 */
import { writeFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { startChild } from './lib/child.js';
import { holdSilentSockets } from './lib/silent-sockets.js';
import { envInt, mb, round, table } from './lib/stats.js';
import { emptyHistogram, mixClasses, mixProblems, mixRequests } from './load-mix.js';

const connections = envInt('BENCH_LOAD_CONNECTIONS', 500);
const duration = envInt('BENCH_LOAD_DURATION', 30);
const maxGrowthMb = envInt('BENCH_LOAD_MAX_RSS_GROWTH_MB', 150);
const maxHeapGrowthMb = envInt('BENCH_LOAD_MAX_HEAP_GROWTH_MB', 64);
const cacheMb = envInt('BENCH_LOAD_CACHE_MB', 16);
const warmupS = envInt('BENCH_LOAD_WARMUP', 15);
const limitedRate = process.env.BENCH_LOAD_LIMITED_RATE ?? '10/s';
const silentCount = envInt('BENCH_LOAD_SILENT_SOCKETS', 2000);
/**
 * A lookup's deadline timer keeps what it touched reachable until it fires (bounded by rate × deadline, by design):
 * memory is measured after waiting past it, so what remains is what the run left behind for good.
 */
const deadlineMs = envInt('BENCH_LOAD_DEADLINE_MS', 10_000);

// The fake marketplace gets its own process: in the service's process it would compete for the event loop under
// 500 connections and its memory would count as the service's.
const upstream = await startChild<{ origin: string }>(new URL('./lib/fake-child.ts', import.meta.url));
const { child, ready } = await startChild<{ base: string; rss: number }>(
  new URL('./lib/service-child.ts', import.meta.url),
  {
    BENCH_FAKE_ORIGIN: upstream.ready.origin,
    BENCH_SERVICE_ENV: JSON.stringify({
      MARKETLENS_CACHE_MAX_BYTES: String(cacheMb * 1024 * 1024),
      MARKETLENS_DEADLINE_MS: String(deadlineMs),
      // Any other MARKETLENS_* settings to try under load, e.g. '{"MARKETLENS_ATTEMPT_TIMEOUT_MS":"2000"}'.
      ...(JSON.parse(process.env.BENCH_LOAD_SERVICE_ENV ?? '{}') as Record<string, string>),
    }),
  },
);
let failed = false;
try {
  const { key } = await child.ask<{ key: string }>('key', { rate: limitedRate });
  const classes = mixClasses(key);
  // Warm-up at full load, not counted: JIT, connection pools, the cache's first entries, and the allocator's
  // high-water mark for this many connections (glibc keeps freed native memory mapped), so that the measured round
  // shows what load adds for good, not the first climb to a plateau.
  await autocannon({
    url: ready.base,
    connections,
    duration: warmupS,
    requests: mixRequests(classes, emptyHistogram()),
  });
  await new Promise((r) => setTimeout(r, deadlineMs + 500));
  const before = await child.ask<{ rss: number; heapUsed: number }>('rss');
  const hist = emptyHistogram();
  console.log(
    `load: ${connections} connections for ${duration} s against ${ready.base}, with ${silentCount} silent connections held …`,
  );
  const silent = holdSilentSockets(ready.base, silentCount);
  const result = await autocannon({
    url: ready.base,
    connections,
    duration,
    requests: mixRequests(classes, hist),
    timeout: 20,
  });
  const silentReport = silent.stop();
  const rightAfter = await child.ask<{ rss: number; heapUsed: number }>('rss');
  await new Promise((r) => setTimeout(r, deadlineMs + 500));
  const after = await child.ask<{ rss: number; heapUsed: number }>('rss');
  const growthMb = mb(after.rss - before.rss);
  const problems = mixProblems(classes, hist, result);
  const heapGrowthMb = mb(after.heapUsed - before.heapUsed);
  if (growthMb > maxGrowthMb) problems.push(`memory: RSS grew ${growthMb} MB (> ${maxGrowthMb} MB)`);
  // The heap bound: the byte-bounded cache (entries cost more heap than the bytes it accounts) plus a margin.
  if (heapGrowthMb > maxHeapGrowthMb) problems.push(`memory: heap grew ${heapGrowthMb} MB (> ${maxHeapGrowthMb} MB)`);

  const statuses = [...new Set(Object.values(hist.byClass).flatMap((s) => Object.keys(s)))].sort();
  console.log(
    table(
      ['class', 'allowed', ...statuses],
      classes.map((c) => [c.name, c.allowed.join('/'), ...statuses.map((s) => hist.byClass[c.name]?.[s] ?? 0)]),
    ),
  );
  console.log(
    `\nrequests ${result.requests.total} (${round(result.requests.average)}/s), latency p50 ${result.latency.p50} ms p99 ${result.latency.p99} ms, ` +
      `transport errors ${result.errors}, timeouts ${result.timeouts}`,
  );
  console.log(
    `service RSS after GC: ${mb(before.rss)} MB before → ${mb(rightAfter.rss)} MB at the end → ${mb(after.rss)} MB once the deadlines ` +
      `(${deadlineMs} ms) passed (growth ${growthMb} MB, bound ${maxGrowthMb} MB); heap ${mb(before.heapUsed)} → ${mb(rightAfter.heapUsed)} → ${mb(after.heapUsed)} MB`,
  );
  console.log(
    `silent connections: ${silentReport.held} held (${silentReport.opened} opened, ${silentReport.closed_by_service} closed by the service's ` +
      `idle timeout and replaced, ${silentReport.connect_errors} connect errors)`,
  );
  if (silentReport.connect_errors > 0)
    problems.push(`silent connections: ${silentReport.connect_errors} could not connect`);
  const out = {
    when: new Date().toISOString(),
    connections,
    duration_s: duration,
    limited_rate: limitedRate,
    cache_max_mb: cacheMb,
    requests: result.requests.total,
    req_per_s: round(result.requests.average),
    latency_p50_ms: result.latency.p50,
    latency_p99_ms: result.latency.p99,
    transport_errors: result.errors,
    timeouts: result.timeouts,
    statuses_by_class: hist.byClass,
    unintended: hist.unintended,
    unintended_samples: hist.samples,
    silent_sockets: silentReport,
    deadline_ms: deadlineMs,
    rss_mb: {
      before: mb(before.rss),
      at_end: mb(rightAfter.rss),
      after_deadlines: mb(after.rss),
      growth: growthMb,
      bound: maxGrowthMb,
    },
    heap_used_mb: {
      before: mb(before.heapUsed),
      at_end: mb(rightAfter.heapUsed),
      after_deadlines: mb(after.heapUsed),
      growth: heapGrowthMb,
      bound: maxHeapGrowthMb,
    },
    problems,
  };
  writeFileSync(new URL('./load-results.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
  if (problems.length > 0) {
    failed = true;
    console.error(`\nFAIL:\n  ${problems.join('\n  ')}`);
    for (const sample of hist.samples) console.error(`  sample ${sample}`);
  } else {
    console.log('\nOK: no unintended status, memory bounded');
  }
} finally {
  await child.stop();
  await upstream.child.stop();
}
process.exit(failed ? 1 : 0);

/**
 * Figure 8 — fairness (issue 27): one key's interactive lookup latency while another key tracks 10 000 products and
 * has 300 webhook subscriptions whose receivers accept and never answer, next to the same figure without them.
 *
 * The service is the real binary (the compiled CLI with the start command's V8 flags, as `npm start` runs it; its log
 * goes to a file), GOAT its fake (this process, answering after BENCH_FAIRNESS_UPSTREAM_MS), politeness as the issue's
 * tester had it: 5 requests/s (`MARKETLENS_RESALE_B_MIN_INTERVAL_MS=200`), the default concurrency and queue. The
 * caller's lookups are GOAT prices of a new product each (`Cache-Control: no-cache`: a live fetch every time), sent
 * open-loop at BENCH_FAIRNESS_RATE per second for BENCH_FAIRNESS_SECONDS: first on the quiet service, then after the
 * other key created its subscriptions and tracked products (every one due at once, interval 60 s) over HTTP. Each
 * window reports its latency percentiles and statuses, and what the fake upstream served meanwhile (the caller's
 * requests, the tracked ones). Run alone: `npm run bench:fairness`; in `npm run bench` as `fairness`. All on
 * 127.0.0.1.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { START_ENV, V8_FLAGS } from '../src/v8-flags.js';
import { cleanEnv } from '../test/support/binary.js';
import { FakeUpstream } from '../test/support/fake-upstream.js';
import { closedPort } from '../test/support/ports.js';
import { compiled } from './lib/compiled.js';
import { goatPayload } from './lib/goat-fake.js';
import { benchEnv } from './lib/scenarios.js';
import { envInt, quantile, round } from './lib/stats.js';

const BUY_BAR = '/web-api/v1/product_variants/buy_bar_data';
const TRACKER_KEY = 'ml_bench_fairness_tracker_key_0123456789';
const CALLER_KEY = 'ml_bench_fairness_caller_key_01234567890';
/** Product ids: tracked ones from here up, the caller's from CALLER_IDS up (never tracked). */
const TRACKED_IDS = 100_000;
const CALLER_IDS = 900_000;

export interface FairnessWindow {
  lookups: number;
  statuses: Record<string, number>;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  /**
   * The service's own `Server-Timing: upstream` of those lookups: from the fetch's start to its answer, waits for an
   * upstream slot and wire start included. What the latency adds beyond it is the service's event loop and database.
   */
  upstream_p50_ms: number;
  upstream_p99_ms: number;
  /** `/healthz` every 100 ms during the window (no lookup, no limiter): how long the service took to answer anything. */
  healthz_p50_ms: number;
  healthz_p99_ms: number;
  /**
   * This process's own event-loop delay over the window (it runs the fake upstream and the receivers): a stall here
   * delays the fake's answers and the probes, and would be counted as the service's.
   */
  bench_loop_p99_ms: number;
  /** The service process's CPU time over the window, in % of one core. */
  service_cpu_pct: number;
  /**
   * Tracked-product requests the fake received between a caller's lookup being sent and its own request arriving:
   * how many scheduled fetches went ahead of it (the order, whatever the service's speed).
   */
  tracked_ahead_p50: number;
  tracked_ahead_p99: number;
  tracked_ahead_max: number;
  /** Upstream requests the fake served during the window, per second: the caller's and the tracked products'. */
  upstream_caller_per_s: number;
  upstream_tracked_per_s: number;
}

export interface FairnessResult {
  tracked: number;
  webhooks: number;
  rate_per_s: number;
  window_s: number;
  min_interval_ms: number;
  upstream_delay_ms: number;
  quiet: FairnessWindow;
  loaded: FairnessWindow;
  /** Seconds the other key took to create its subscriptions and tracked products, and their statuses. */
  create_s: number;
  create_statuses: Record<string, number>;
  /** Tracked products fetched upstream by the end (each at most once: the interval is 60 s). */
  tracked_fetched: number;
  /** Connections the hanging receivers accepted (webhook deliveries attempted). */
  webhook_connections: number;
  /** From /metrics at the end: resale-b lookups refused before the wire, by outcome. */
  refused: Record<string, number>;
  /** Log lines of the run that matter here, by kind (one line per job is the spam the issue reports). */
  log_lines: Record<string, number>;
}

/** 300 receivers that accept a connection and never answer. */
async function hangingReceivers(n: number): Promise<{ urls: string[]; connections: () => number; stop(): void }> {
  const servers: Server[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  const urls: string[] = [];
  for (let i = 0; i < n; i++) {
    const server = createServer((s) => {
      connections++;
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    urls.push(`http://127.0.0.1:${port}/hook`);
    servers.push(server);
  }
  return {
    urls,
    connections: () => connections,
    stop() {
      for (const s of sockets) s.destroy();
      for (const server of servers) server.close();
    },
  };
}

/** Sends `total` requests through at most `concurrency` at a time; statuses counted. */
async function createAll(
  total: number,
  concurrency: number,
  send: (i: number) => Promise<number>,
  statuses: Record<string, number>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const status = await send(next++).catch(() => 0);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); NaN elsewhere. */
function cpuSeconds(pid: number | undefined): number {
  const file = `/proc/${pid}/stat`;
  if (pid === undefined || !existsSync(file)) return NaN;
  // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th, in clock ticks.
  const fields = readFileSync(file, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export async function fairnessFigure(
  opts: { tracked?: number; webhooks?: number; rate?: number; seconds?: number } = {},
): Promise<FairnessResult> {
  const tracked = opts.tracked ?? envInt('BENCH_FAIRNESS_TRACKED', 10_000);
  const webhooks = opts.webhooks ?? envInt('BENCH_FAIRNESS_WEBHOOKS', 300);
  const rate = opts.rate ?? envInt('BENCH_FAIRNESS_RATE', 3);
  const seconds = opts.seconds ?? envInt('BENCH_FAIRNESS_SECONDS', 30);
  const upstreamMs = envInt('BENCH_FAIRNESS_UPSTREAM_MS', 20);
  const minIntervalMs = 200;
  const dir = mkdtempSync(join(tmpdir(), 'marketlens-bench-fairness-'));

  // The fake GOAT: the real buy bar after a delay, requests counted by whose product they are.
  const served = { caller: 0, tracked: 0 };
  const trackedSeen = new Set<string>();
  /** Per caller product: the tracked requests served when its lookup was sent, then how many came before its own. */
  const trackedAtSend = new Map<string, number>();
  let trackedAhead: number[] = [];
  const fake = new FakeUpstream({ keepLog: false });
  await fake.start();
  const buyBar = goatPayload().value;
  fake.serve('/', '<html><head><title>GOAT</title></head><body></body></html>');
  fake.on(BUY_BAR, (req, res) => {
    const id = req.query.get('productTemplateId') ?? '';
    if (Number(id) >= CALLER_IDS) {
      served.caller++;
      const sent = trackedAtSend.get(id);
      if (sent !== undefined) trackedAhead.push(served.tracked - sent);
    } else {
      served.tracked++;
      trackedSeen.add(id);
    }
    setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(buyBar), upstreamMs);
  });
  const receivers = await hangingReceivers(webhooks);

  const port = await closedPort();
  const base = `http://127.0.0.1:${port}`;
  const logFile = join(dir, 'serve.log');
  const cli = compiled(new URL('../src/cli.ts', import.meta.url));
  // One open file for both streams (two would each write at their own offset, over each other's lines).
  const logFd = openSync(logFile, 'w');
  const nodeFlags = process.env.BENCH_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
  const server = spawn(process.execPath, [...V8_FLAGS, ...nodeFlags, cli, 'serve'], {
    env: cleanEnv(
      benchEnv(fake.origin, {
        ...START_ENV,
        MARKETLENS_HOST: '127.0.0.1',
        MARKETLENS_PORT: String(port),
        MARKETLENS_DATA_DIR: dir,
        // The per-key caps raised to what this figure creates: it measures the lanes and the send isolation, not the
        // caps (which would refuse the 1001st tracked product and the 101st subscription).
        MARKETLENS_MAX_TRACKED_PER_KEY: String(Math.max(1, tracked)),
        MARKETLENS_MAX_WEBHOOKS_PER_KEY: String(Math.max(1, webhooks)),
        MARKETLENS_API_KEYS: `${TRACKER_KEY},${CALLER_KEY}`,
        // Rate limits off: the tracking key's refreshes must reach the limiter (the tester's key had room for them).
        MARKETLENS_RATE_LIMIT: '0',
        MARKETLENS_WEBHOOK_ALLOW_HTTP: 'true',
        MARKETLENS_WEBHOOK_ALLOW_PRIVATE: 'true',
        MARKETLENS_METRICS_PUBLIC: 'true',
        MARKETLENS_DEADLINE_MS: '25000',
        // Politeness as in the issue (5 requests/s), default concurrency and queue.
        MARKETLENS_RESALE_B_CONCURRENCY: '8',
        MARKETLENS_RESALE_B_MIN_INTERVAL_MS: String(minIntervalMs),
        MARKETLENS_RESALE_B_MAX_QUEUE: '200',
        MARKETLENS_BROWSER_PATH: 'none',
        MARKETLENS_LOG_LEVEL: 'info',
        MARKETLENS_SHUTDOWN_DELAY_MS: '0',
      }),
    ),
    // The upstream client logs on stderr: into the same file, so its lines are counted too.
    stdio: ['ignore', logFd, logFd],
  });
  const answer = async (path: string, key: string, init: RequestInit = {}) => {
    const res = await fetch(base + path, { ...init, headers: { 'x-api-key': key, ...init.headers } });
    await res.arrayBuffer();
    return res;
  };
  const call = async (path: string, key: string, init: RequestInit = {}) => (await answer(path, key, init)).status;

  let callerId = CALLER_IDS;
  /** The caller's lookups, open loop: one every 1000/rate ms whatever the previous ones are doing. */
  const window = async (): Promise<FairnessWindow> => {
    const before = { ...served };
    trackedAhead = [];
    const cpu0 = cpuSeconds(server.pid);
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const t0 = performance.now();
    const healthz: number[] = [];
    let probing = true;
    const probe = (async () => {
      while (probing) {
        const h0 = performance.now();
        await call('/healthz', CALLER_KEY).catch(() => 0);
        healthz.push(performance.now() - h0);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const pending: Promise<{ ms: number; status: number; upstreamMs?: number }>[] = [];
    const n = seconds * rate;
    for (let i = 0; i < n; i++) {
      const due = t0 + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const start = performance.now();
      trackedAtSend.set(String(callerId), served.tracked);
      const path = `/api/v1/scraper/resale-b/prices?query=${callerId++}&country=US`;
      pending.push(
        answer(path, CALLER_KEY, { headers: { 'cache-control': 'no-cache' } }).then(
          (res) => {
            const upstream = /upstream;dur=([\d.]+)/.exec(res.headers.get('server-timing') ?? '');
            return {
              ms: performance.now() - start,
              status: res.status,
              upstreamMs: upstream ? Number(upstream[1]) : undefined,
            };
          },
          () => ({ ms: performance.now() - start, status: 0 }),
        ),
      );
    }
    const elapsed = (performance.now() - t0) / 1000;
    const cpu = cpuSeconds(server.pid) - cpu0;
    loop.disable();
    probing = false;
    await probe;
    const answers = await Promise.all(pending);
    const statuses: Record<string, number> = {};
    for (const a of answers) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
    const ms = answers.map((a) => a.ms);
    const upstream = answers.flatMap((a) => (a.upstreamMs === undefined ? [] : [a.upstreamMs]));
    return {
      lookups: answers.length,
      statuses,
      p50_ms: round(quantile(ms, 0.5)),
      p99_ms: round(quantile(ms, 0.99)),
      max_ms: round(Math.max(...ms)),
      upstream_p50_ms: round(quantile(upstream, 0.5)),
      upstream_p99_ms: round(quantile(upstream, 0.99)),
      healthz_p50_ms: round(quantile(healthz, 0.5)),
      healthz_p99_ms: round(quantile(healthz, 0.99)),
      service_cpu_pct: round((cpu / elapsed) * 100),
      bench_loop_p99_ms: round(loop.percentile(99) / 1e6),
      tracked_ahead_p50: quantile(trackedAhead, 0.5),
      tracked_ahead_p99: quantile(trackedAhead, 0.99),
      tracked_ahead_max: Math.max(...trackedAhead),
      upstream_caller_per_s: round((served.caller - before.caller) / elapsed),
      upstream_tracked_per_s: round((served.tracked - before.tracked) / elapsed),
    };
  };

  try {
    const deadline = Date.now() + 60_000;
    while (!/Server listening/.test(readFileSync(logFile, 'utf8'))) {
      if (Date.now() > deadline || server.exitCode !== null)
        throw new Error(`serve did not start:\n${readFileSync(logFile, 'utf8')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // The first lookup also loads GOAT's home page (the session warm-up): not part of either window.
    await call(`/api/v1/scraper/resale-b/prices?query=${callerId++}&country=US`, CALLER_KEY);
    const quiet = await window();

    const createStatuses: Record<string, number> = {};
    const c0 = performance.now();
    const json = (body: unknown): RequestInit => ({
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    // Each subscription hears of every price of a few tracked products (price.below at a threshold over any price:
    // the first sighting crosses it), so deliveries start as soon as those are fetched, and hang.
    const hookProducts = Array.from({ length: 5 }, (_, i) => String(TRACKED_IDS + i));
    await createAll(
      webhooks,
      8,
      (i) =>
        call(
          '/api/v1/webhooks',
          TRACKER_KEY,
          json({
            url: receivers.urls[i],
            events: ['price.below'],
            filter: { products: hookProducts, below: 1_000_000 },
          }),
        ),
      createStatuses,
    );
    await createAll(
      tracked,
      32,
      (i) =>
        call(
          '/api/v1/db/products',
          TRACKER_KEY,
          json({ operation: 'resale-b.prices', query: String(TRACKED_IDS + i), country: 'US', interval: 60 }),
        ),
      createStatuses,
    );
    const createS = (performance.now() - c0) / 1000;
    const loaded = await window();

    const metrics = await (await fetch(`${base}/metrics`)).text();
    const refused: Record<string, number> = {};
    for (const m of metrics.matchAll(
      /^marketlens_upstream_requests_total\{[^}]*marketplace="resale-b"[^}]*tier="none"[^}]*outcome="([^"]+)"[^}]*\} (\d+)/gm,
    ))
      refused[m[1]!] = Number(m[2]);
    const log = readFileSync(logFile, 'utf8');
    const count = (re: RegExp) => log.split('\n').filter((l) => re.test(l)).length;
    return {
      tracked,
      webhooks,
      rate_per_s: rate,
      window_s: seconds,
      min_interval_ms: minIntervalMs,
      upstream_delay_ms: upstreamMs,
      quiet,
      loaded,
      create_s: round(createS),
      create_statuses: createStatuses,
      tracked_fetched: trackedSeen.size,
      webhook_connections: receivers.connections(),
      refused,
      log_lines: {
        scheduled_job_failed: count(/scheduled job failed/),
        requests_queued_already: count(/requests queued already/),
        scheduled_deferred: count(/scheduled lookups deferred/),
        total: log.split('\n').length - 1,
      },
    };
  } finally {
    if (server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((r) => server.once('exit', r));
      server.kill('SIGTERM');
      const timer = setTimeout(() => server.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
    receivers.stop();
    await fake.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(await fairnessFigure(), null, 2));
}

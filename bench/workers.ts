/**
 * Figure — MARKETLENS_WORKERS=2 (issue 21): cached-lookup req/s of the real `marketlens serve` with two cluster
 * workers, against a bare single-process Fastify route sending the same bytes. The service is the real binary (the
 * compiled CLI with the start command's V8 flags, as `npm start` runs it; its log goes to a file), the marketplace a fake GOAT
 * in this process (hit only while warming), the bare app a child process (bench/lib/bare-child.ts); the load
 * generator (wrk when installed, else autocannon here) runs against each in turn, same connections and duration, over
 * loopback, in BENCH_ROUNDS interleaved rounds. Run alone: `npx tsx bench/workers.ts` (BENCH_WORKERS=1 for the single-process figure).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TEST_KEY } from '../test/support/app.js';
import { START_ENV, V8_FLAGS } from '../src/v8-flags.js';
import { cleanEnv } from '../test/support/binary.js';
import { FakeUpstream } from '../test/support/fake-upstream.js';
import { closedPort } from '../test/support/ports.js';
import { startChild } from './lib/child.js';
import { compiled } from './lib/compiled.js';
import { startGoatFake } from './lib/goat-fake.js';
import { benchEnv } from './lib/scenarios.js';
import { envInt, median, round } from './lib/stats.js';
import { defaultGenerator, get, load } from './lib/versus-bare.js';

const CACHED_PATH = '/api/v1/scraper/resale-b/prices?query=1341930';

export interface WorkersResult {
  workers: number;
  req_per_s: number;
  bare_single_req_per_s: number;
  /** req_per_s ÷ bare_single_req_per_s (issue 21 asks ≥ 0.8 with 2 workers): the median of the rounds. */
  ratio: number;
  /** Each round's ratio (bare, then the service, BENCH_ROUNDS times). */
  round_ratios: number[];
  /** Which load generator measured both: wrk when installed, else autocannon (in this process). */
  generator: 'wrk' | 'autocannon';
}

export async function workersFigure(
  opts: { workers?: number; connections?: number; duration?: number; warmup?: number } = {},
): Promise<WorkersResult> {
  const workers = opts.workers ?? 2;
  const connections = opts.connections ?? envInt('BENCH_CONNECTIONS', 50);
  const duration = opts.duration ?? envInt('BENCH_DURATION', 10);
  const warmup = opts.warmup ?? envInt('BENCH_WARMUP', 2);
  const rounds = envInt('BENCH_ROUNDS', 3);
  const generator = defaultGenerator();
  const dir = mkdtempSync(join(tmpdir(), 'marketlens-bench-workers-'));
  const fake = await startGoatFake(new FakeUpstream({ keepLog: false }));
  const port = await closedPort();
  const logFile = join(dir, 'serve.log');
  const cli = compiled(new URL('../src/cli.ts', import.meta.url));
  const server = spawn(process.execPath, [...V8_FLAGS, cli, 'serve'], {
    env: cleanEnv(
      benchEnv(fake.origin, {
        ...START_ENV,
        MARKETLENS_WORKERS: String(workers),
        MARKETLENS_HOST: '127.0.0.1',
        MARKETLENS_PORT: String(port),
        MARKETLENS_DATA_DIR: dir,
        MARKETLENS_API_KEYS: TEST_KEY,
        // A (very high) rate limit keeps the limiter in the path, as in bench/throughput.ts.
        MARKETLENS_RATE_LIMIT: '1000000000/min',
        MARKETLENS_BROWSER_PATH: 'none',
        MARKETLENS_LOG_LEVEL: 'info',
        MARKETLENS_SHUTDOWN_DELAY_MS: '0',
      }),
    ),
    stdio: ['ignore', openSync(logFile, 'w'), 'inherit'],
  });
  let bare: Awaited<ReturnType<typeof startChild<{ base: string }>>> | undefined;
  try {
    const deadline = Date.now() + 60_000;
    const ready = workers > 1 ? /all workers listening/ : /Server listening/;
    while (!ready.test(readFileSync(logFile, 'utf8'))) {
      if (Date.now() > deadline || server.exitCode !== null)
        throw new Error(`serve did not start:\n${readFileSync(logFile, 'utf8')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // Caches are per worker: one fresh connection per worker (handed out in turn) warms the key in each.
    let warm = await get(port, CACHED_PATH);
    for (let i = 1; i < workers * 2; i++) warm = await get(port, CACHED_PATH);
    if (warm.status !== 200) throw new Error(`warm-up lookup answered ${warm.status}: ${warm.body.toString()}`);
    const bodyFile = join(dir, 'cached.json');
    writeFileSync(bodyFile, warm.body);
    bare = await startChild<{ base: string }>(new URL('./lib/bare-child.ts', import.meta.url), {
      BENCH_BARE_BODY_FILE: bodyFile,
      BENCH_BARE_TYPE: warm.type,
    });
    const service = `http://127.0.0.1:${port}${CACHED_PATH}`;
    const bareUrl = bare.ready.base + CACHED_PATH;
    await load(generator, bareUrl, connections, warmup);
    await load(generator, service, connections, warmup);
    const bareRates: number[] = [];
    const serviceRates: number[] = [];
    const ratios: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const b = await load(generator, bareUrl, connections, duration);
      const s = await load(generator, service, connections, duration);
      if (s.non2xx > 0 || s.errors > 0) throw new Error(`service answered ${s.non2xx} non-2xx, ${s.errors} errors`);
      bareRates.push(b.req_per_s);
      serviceRates.push(s.req_per_s);
      ratios.push(round(s.req_per_s / b.req_per_s));
    }
    return {
      workers,
      req_per_s: round(median(serviceRates)),
      bare_single_req_per_s: round(median(bareRates)),
      ratio: median(ratios),
      round_ratios: ratios,
      generator,
    };
  } finally {
    await bare?.child.stop();
    if (server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((r) => server.once('exit', r));
      server.kill('SIGTERM');
      const timer = setTimeout(() => server.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
    await fake.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(await workersFigure({ workers: envInt('BENCH_WORKERS', 2) }), null, 2));
}

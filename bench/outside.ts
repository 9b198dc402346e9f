/**
 * The outside check (issue 33): the cached-lookup ratio measured the way a user would check it, with nothing of the
 * bench inside the processes measured. The service is the installed start command (`bin/marketlens serve`, the
 * compiled dist/, the start command's V8 flags and malloc setting) with MARKETLENS_LOG_LEVEL=warn, a static key
 * (MARKETLENS_API_KEYS) and GOAT pointed at a fake on loopback serving one fixture; one lookup warms the cache. The
 * baseline is a minimal Fastify process (bench/lib/bare-server.ts, a plain `node`) sending the same bytes with the
 * same content type. wrk (one thread, BENCH_CONNECTIONS connections) loads each in turn, interleaved: bare, service,
 * bare, service, …; the ratio is service ÷ bare req/s per round, reported as the median and range.
 *
 * The CPU each server spent per request is read from /proc (bench/lib/proc-cpu.ts): on a shared machine it moves less
 * than req/s, which depends on how much of the cores the others left.
 *
 * `npm run bench -- outside` prints it beside figure 1's ratio from the same run. Alone: `npx tsx bench/outside.ts`;
 * BENCH_OUTSIDE_COMPARE=<checkout>[,…] (each with its own node_modules and scripts) adds another version's start
 * command to every round, after this checkout's: an A/B of two versions against the same baseline.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TEST_KEY } from '../test/support/app.js';
import { cleanEnv } from '../test/support/binary.js';
import { FakeUpstream } from '../test/support/fake-upstream.js';
import { closedPort } from '../test/support/ports.js';
import { REPO_ROOT } from '../test/support/repo-root.js';
import { compiled } from './lib/compiled.js';
import { startGoatFake } from './lib/goat-fake.js';
import { envInt, median, round } from './lib/stats.js';
import { procCpu } from './lib/proc-cpu.js';
import { wrk, wrkAvailable } from './lib/wrk.js';
import type { RatioSummary } from './throughput.js';

const CACHED_PATH = '/api/v1/scraper/resale-b/prices?query=1341930';

/** One load window against one server: its req/s and its CPU per request (from /proc, outside the process). */
export interface OutsideWindow {
  req_per_s: number;
  cpu_us_per_request: number;
  system_us_per_request: number;
}

export interface OutsideRound {
  bare: OutsideWindow;
  /** One window per service measured (this checkout first, then BENCH_OUTSIDE_COMPARE's). */
  services: OutsideWindow[];
  /** service ÷ bare req/s, per service. */
  ratios: number[];
  /** bare ÷ service CPU per request, per service (1 = as cheap as the bare route). */
  cpu_ratios: number[];
}

export interface OutsideService {
  /** The checkout whose start command was measured. */
  root: string;
  ratio: RatioSummary;
  cpu_ratio: RatioSummary;
  req_per_s: number;
  cpu_us_per_request: number;
}

export interface OutsideResult {
  rounds: OutsideRound[];
  /** This checkout's service. */
  ratio: RatioSummary;
  cpu_ratio: RatioSummary;
  services: OutsideService[];
  bare_req_per_s: number;
  bare_cpu_us_per_request: number;
  connections: number;
  duration_s: number;
  response_bytes: number;
  start_command: string;
  log_level: string;
  generator: 'wrk';
}

/** One GET with the key; the body and content type. */
function get(port: number, path: string): Promise<{ status: number; body: Buffer; type: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { 'x-api-key': TEST_KEY }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), type: res.headers['content-type'] ?? '' }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Waits until `port` answers `/healthz` (the service prints nothing at `warn`): each refused connection is retried on
 * the next turn of a 50 ms timer, until the process exits or 60 s pass.
 */
async function untilAnswering(proc: ChildProcess, port: number, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await get(port, '/healthz')).status === 200) return;
    } catch {
      // not listening yet
    }
    if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`the server did not start:\n${output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts a server process and collects what it prints (for the error when it does not start). */
function start(command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string) {
  const proc = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout.on('data', (d) => (out += String(d)));
  proc.stderr.on('data', (d) => (out += String(d)));
  return { proc, output: () => out };
}

/** Waits for the bare server's `listening` line. */
function untilListening(proc: ChildProcess, output: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onData = () => {
      if (!output().includes('listening')) return;
      proc.stdout!.off('data', onData);
      proc.off('exit', onExit);
      resolve();
    };
    const onExit = () => reject(new Error(`the bare server exited:\n${output()}`));
    proc.stdout!.on('data', onData);
    proc.once('exit', onExit);
  });
}

async function stop(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

function summary(values: number[]): RatioSummary {
  return { median: round(median(values)), min: round(Math.min(...values)), max: round(Math.max(...values)) };
}

/** As `npm start` does (prestart): builds dist/ when it is missing or older than the sources. */
async function ensureDist(root: string): Promise<void> {
  const script = join(root, 'scripts/ensure-dist.sh');
  if (!existsSync(script)) return;
  const built = spawn('sh', [script, 'start'], { cwd: root, stdio: 'inherit' });
  const code = await new Promise((r) => built.once('exit', r));
  if (code !== 0) throw new Error(`${script} exited with ${code}`);
}

/** `bin/marketlens serve` of the checkout at `root`, as a user starts it, on a port of its own. */
async function startService(root: string, origin: string, dir: string) {
  await ensureDist(root);
  const port = await closedPort();
  const server = start(
    join(root, 'bin/marketlens'),
    ['serve'],
    cleanEnv({
      MARKETLENS_LOG_LEVEL: 'warn',
      MARKETLENS_API_KEYS: TEST_KEY,
      // The default 60/min would refuse the load; a limit too high to trigger keeps the limiter in the path.
      MARKETLENS_RATE_LIMIT: '1000000000/min',
      MARKETLENS_RESALE_B_ORIGIN: origin,
      MARKETLENS_HOST: '127.0.0.1',
      MARKETLENS_PORT: String(port),
      MARKETLENS_DATA_DIR: mkdtempSync(join(dir, 'data-')),
      MARKETLENS_BROWSER_PATH: 'none',
      // Stopped at the end without the load balancer's grace period (a profile, NODE_OPTIONS=--cpu-prof, is written).
      MARKETLENS_SHUTDOWN_DELAY_MS: '0',
    }),
    root,
  );
  await untilAnswering(server.proc, port, server.output);
  return { ...server, port, root };
}

/** One wrk window against `url`, with the CPU process `pid` spent over it. */
async function window(url: string, pid: number, connections: number, duration: number): Promise<OutsideWindow> {
  const before = procCpu(pid);
  const w = await wrk(url, connections, duration);
  const after = procCpu(pid);
  if (w.non2xx > 0 || w.errors > 0) throw new Error(`${url}: ${w.non2xx} non-2xx answers, ${w.errors} socket errors`);
  const n = Math.max(1, w.requests);
  return {
    req_per_s: round(w.req_per_s),
    cpu_us_per_request: round((after.cpu_us - before.cpu_us) / n),
    system_us_per_request: round((after.system_us - before.system_us) / n),
  };
}

export async function outsideCheck(
  opts: { roots?: string[]; connections?: number; duration?: number; warmup?: number; rounds?: number } = {},
): Promise<OutsideResult> {
  if (!wrkAvailable()) throw new Error('the outside check needs wrk (apt-get install wrk)');
  const roots = opts.roots ?? [REPO_ROOT, ...(process.env.BENCH_OUTSIDE_COMPARE?.split(',').filter(Boolean) ?? [])];
  const connections = opts.connections ?? envInt('BENCH_CONNECTIONS', 50);
  const duration = opts.duration ?? envInt('BENCH_DURATION', 10);
  const warmup = opts.warmup ?? envInt('BENCH_WARMUP', 2);
  const roundCount = opts.rounds ?? envInt('BENCH_ROUNDS', 3);
  const bareScript = compiled(new URL('./lib/bare-server.ts', import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), 'marketlens-bench-outside-'));
  const fake = await startGoatFake(new FakeUpstream({ keepLog: false }));
  const running: ReturnType<typeof start>[] = [];
  try {
    const services = [];
    for (const root of roots) {
      const service = await startService(root, fake.origin, dir);
      running.push(service);
      services.push(service);
    }
    // One lookup warms each cache; the first service's answer is the bytes the bare server sends.
    const answers = await Promise.all(services.map((s) => get(s.port, CACHED_PATH)));
    const warm = answers[0]!;
    for (const a of answers) if (a.status !== 200) throw new Error(`warm-up lookup answered ${a.status}: ${a.body}`);
    const bodyFile = join(dir, 'cached.json');
    writeFileSync(bodyFile, warm.body);
    const barePort = await closedPort();
    const bare = start(
      process.execPath,
      [bareScript],
      { ...process.env, BENCH_BARE_BODY_FILE: bodyFile, BENCH_BARE_TYPE: warm.type, BENCH_BARE_PORT: String(barePort) },
      REPO_ROOT,
    );
    running.push(bare);
    await untilListening(bare.proc, bare.output);
    const bareUrl = `http://127.0.0.1:${barePort}${CACHED_PATH}`;
    const urls = services.map((s) => `http://127.0.0.1:${s.port}${CACHED_PATH}`);
    await wrk(bareUrl, connections, warmup);
    for (const url of urls) await wrk(url, connections, warmup);
    const rounds: OutsideRound[] = [];
    for (let i = 0; i < roundCount; i++) {
      // Interleaved: bare, then each service; a drift in the machine's load hits every side alike.
      const b = await window(bareUrl, bare.proc.pid!, connections, duration);
      const measured: OutsideWindow[] = [];
      for (const [j, url] of urls.entries())
        measured.push(await window(url, services[j]!.proc.pid!, connections, duration));
      rounds.push({
        bare: b,
        services: measured,
        ratios: measured.map((m) => round(m.req_per_s / b.req_per_s)),
        cpu_ratios: measured.map((m) => round(b.cpu_us_per_request / m.cpu_us_per_request)),
      });
    }
    const perService: OutsideService[] = services.map((s, j) => ({
      root: s.root,
      ratio: summary(rounds.map((r) => r.ratios[j]!)),
      cpu_ratio: summary(rounds.map((r) => r.cpu_ratios[j]!)),
      req_per_s: round(median(rounds.map((r) => r.services[j]!.req_per_s))),
      cpu_us_per_request: round(median(rounds.map((r) => r.services[j]!.cpu_us_per_request))),
    }));
    return {
      rounds,
      ratio: perService[0]!.ratio,
      cpu_ratio: perService[0]!.cpu_ratio,
      services: perService,
      bare_req_per_s: round(median(rounds.map((r) => r.bare.req_per_s))),
      bare_cpu_us_per_request: round(median(rounds.map((r) => r.bare.cpu_us_per_request))),
      connections,
      duration_s: duration,
      response_bytes: warm.body.length,
      start_command: 'bin/marketlens serve',
      log_level: 'warn',
      generator: 'wrk',
    };
  } finally {
    for (const p of running.reverse()) await stop(p.proc);
    await fake.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(JSON.stringify(await outsideCheck(), null, 2));
}

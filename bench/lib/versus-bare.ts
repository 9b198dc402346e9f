/**
 * What figure 1 and the outside check share (issue 33): the service started as users start it — the installed start
 * command, `bin/marketlens serve` of a checkout (compiled dist/, the start command's V8 flags and malloc setting, built
 * first when stale as `npm start` does) with a static key (MARKETLENS_API_KEYS) and GOAT pointed at a fake on loopback
 * serving one fixture — and a minimal Fastify process (bench/lib/bare-server.ts, a plain `node`) sending the bytes of
 * the service's cached answer with its content type. Neither process runs bench code: the CPU each spent is read from
 * /proc (proc-cpu.ts). One lookup warms the cache; the load generator (wrk, one thread, or autocannon in this
 * process) loads each in turn: bare, then each service, for every round.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { START_ENV, V8_FLAGS } from '../../src/v8-flags.js';
import { TEST_KEY } from '../../test/support/app.js';
import { cleanEnv } from '../../test/support/binary.js';
import { FakeUpstream } from '../../test/support/fake-upstream.js';
import { closedPort } from '../../test/support/ports.js';
import { REPO_ROOT } from '../../test/support/repo-root.js';
import { compiled } from './compiled.js';
import { startGoatFake } from './goat-fake.js';
import { procCpu } from './proc-cpu.js';
import { envInt, median, round } from './stats.js';
import { wrk, wrkAvailable, type WrkResult } from './wrk.js';

export const CACHED_PATH = '/api/v1/scraper/resale-b/prices?query=1341930';

export type Generator = 'wrk' | 'autocannon';

export interface RatioSummary {
  median: number;
  min: number;
  max: number;
}

/** One load window against one server. */
export interface ServerWindow {
  req_per_s: number;
  requests: number;
  /** The server's CPU (user + system) per request, µs, from /proc. */
  cpu_us_per_request: number;
  /** Of which in the kernel, µs. */
  system_us_per_request: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
  /** Socket errors and timeouts (wrk counts a request over 2 s as one). */
  errors: number;
}

export interface VersusBareRound {
  bare: ServerWindow;
  /** One window per service measured, in the order of `roots`. */
  services: ServerWindow[];
  /** service ÷ bare req/s, per service. */
  ratios: number[];
  /** bare ÷ service CPU per request, per service (1 = as cheap as the bare route). */
  cpu_ratios: number[];
}

export interface ServiceSummary {
  /** The checkout whose start command was measured. */
  root: string;
  ratio: RatioSummary;
  cpu_ratio: RatioSummary;
  req_per_s: number;
  cpu_us_per_request: number;
}

export interface VersusBareResult {
  rounds: VersusBareRound[];
  /** The first service's (this checkout's, by default). */
  ratio: RatioSummary;
  cpu_ratio: RatioSummary;
  services: ServiceSummary[];
  bare_req_per_s: number;
  bare_cpu_us_per_request: number;
  connections: number;
  duration_s: number;
  response_bytes: number;
  start_command: string;
  log_level: string;
  generator: Generator;
}

/**
 * One GET with the bench's key, on a fresh connection (behind a cluster primary, each goes to the next worker in
 * turn); the status, body and content type.
 */
export function get(port: number, path: string): Promise<{ status: number; body: Buffer; type: string }> {
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

/**
 * Starts a server process and collects what it prints (for the error when it does not start). The service's stdout
 * (its log: an access line per request at `info`) goes to /dev/null, written as the service writes it, not into this
 * process; its start-up errors come on stderr.
 */
function start(command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string, stdout: 'pipe' | 'discard') {
  const devNull = stdout === 'discard' ? openSync('/dev/null', 'w') : undefined;
  const proc = spawn(command, args, { env, cwd, stdio: ['ignore', devNull ?? 'pipe', 'pipe'] });
  if (devNull !== undefined) closeSync(devNull);
  let out = '';
  proc.stdout?.on('data', (d) => (out += String(d)));
  proc.stderr!.on('data', (d) => (out += String(d)));
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

/**
 * `bin/marketlens serve` of the checkout at `root`, as a user starts it, on a port of its own. With extra node flags
 * (BENCH_NODE_FLAGS, to try them) it runs what the bin runs, the start command's flags then those: node's command line
 * is the one place V8 reads some of them.
 */
async function startService(root: string, origin: string, dir: string, logLevel: string, nodeFlags: string[]) {
  await ensureDist(root);
  const port = await closedPort();
  const [command, args] =
    nodeFlags.length === 0
      ? [join(root, 'bin/marketlens'), ['serve']]
      : [process.execPath, [...V8_FLAGS, ...nodeFlags, join(root, 'dist/cli.js'), 'serve']];
  const server = start(
    command,
    args,
    cleanEnv({
      ...START_ENV,
      MARKETLENS_LOG_LEVEL: logLevel,
      MARKETLENS_API_KEYS: TEST_KEY,
      // The default 60/min would refuse the load; a limit too high to trigger keeps the limiter in the path.
      MARKETLENS_RATE_LIMIT: '1000000000/min',
      MARKETLENS_RESALE_B_ORIGIN: origin,
      MARKETLENS_HOST: '127.0.0.1',
      MARKETLENS_PORT: String(port),
      MARKETLENS_DATA_DIR: mkdtempSync(join(dir, 'data-')),
      MARKETLENS_BROWSER_PATH: 'none',
      // Stopped at the end without the load balancer's grace period, exiting (a BENCH_NODE_FLAGS --cpu-prof is written).
      MARKETLENS_SHUTDOWN_DELAY_MS: '0',
    }),
    root,
    'discard',
  );
  await untilAnswering(server.proc, port, server.output);
  return { ...server, port, root };
}

/** One load window against `url`: the generator's figures and the CPU process `pid` spent over it. */
async function window(
  generator: Generator,
  url: string,
  pid: number,
  connections: number,
  duration: number,
): Promise<ServerWindow> {
  const before = procCpu(pid);
  const w = await load(generator, url, connections, duration);
  const after = procCpu(pid);
  // A wrong answer is a broken measurement; a socket error (wrk: a request over 2 s, on a loaded machine) is reported.
  if (w.non2xx > 0) throw new Error(`${url}: ${w.non2xx} non-2xx answers`);
  const n = Math.max(1, w.requests);
  return {
    req_per_s: round(w.req_per_s),
    requests: w.requests,
    cpu_us_per_request: round((after.cpu_us - before.cpu_us) / n),
    system_us_per_request: round((after.system_us - before.system_us) / n),
    latency_p50_ms: round(w.latency_p50_ms),
    latency_p99_ms: round(w.latency_p99_ms),
    errors: w.errors,
  };
}

/** One window of the load generator against `url` (with the key). */
export async function load(
  generator: Generator,
  url: string,
  connections: number,
  duration: number,
): Promise<WrkResult> {
  if (generator === 'wrk') return wrk(url, connections, duration);
  const r = await autocannon({ url, connections, duration, headers: { 'x-api-key': TEST_KEY } });
  return {
    req_per_s: r.requests.average,
    requests: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    latency_p50_ms: r.latency.p50,
    latency_p99_ms: r.latency.p99,
  };
}

/** wrk when installed, unless BENCH_LOAD=autocannon; else autocannon in this process. */
export function defaultGenerator(): Generator {
  return process.env.BENCH_LOAD === 'autocannon' || !wrkAvailable() ? 'autocannon' : 'wrk';
}

export interface VersusBareOptions {
  /** Checkouts whose start command is measured, each against the same bare process (default: this one). */
  roots?: string[];
  logLevel: string;
  generator: Generator;
  /** Node flags beyond the start command's (default none: the bin itself runs). */
  nodeFlags?: string[];
  connections?: number;
  duration?: number;
  warmup?: number;
  rounds?: number;
}

/**
 * The service as its start command runs it, and a minimal Fastify process sending the same bytes, each loaded in turn
 * (bare, then each service, BENCH_ROUNDS times) with the same connections and duration.
 */
export async function versusBare(opts: VersusBareOptions): Promise<VersusBareResult> {
  const roots = opts.roots ?? [REPO_ROOT];
  const nodeFlags = opts.nodeFlags ?? [];
  const { generator } = opts;
  if (generator === 'wrk' && !wrkAvailable()) throw new Error('wrk is not installed (apt-get install wrk)');
  const connections = opts.connections ?? envInt('BENCH_CONNECTIONS', 50);
  const duration = opts.duration ?? envInt('BENCH_DURATION', 10);
  const warmup = opts.warmup ?? envInt('BENCH_WARMUP', 2);
  const roundCount = opts.rounds ?? envInt('BENCH_ROUNDS', 3);
  const bareScript = compiled(new URL('./bare-server.ts', import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), 'marketlens-bench-outside-'));
  const fake = await startGoatFake(new FakeUpstream({ keepLog: false }));
  const running: ReturnType<typeof start>[] = [];
  try {
    const services = [];
    for (const root of roots) {
      const service = await startService(root, fake.origin, dir, opts.logLevel, nodeFlags);
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
      'pipe',
    );
    running.push(bare);
    await untilListening(bare.proc, bare.output);
    const bareUrl = `http://127.0.0.1:${barePort}${CACHED_PATH}`;
    const urls = services.map((s) => `http://127.0.0.1:${s.port}${CACHED_PATH}`);
    await load(generator, bareUrl, connections, warmup);
    for (const url of urls) await load(generator, url, connections, warmup);
    const rounds: VersusBareRound[] = [];
    for (let i = 0; i < roundCount; i++) {
      // Interleaved: bare, then each service; a drift in the machine's load hits every side alike.
      const b = await window(generator, bareUrl, bare.proc.pid!, connections, duration);
      const measured: ServerWindow[] = [];
      for (const [j, url] of urls.entries())
        measured.push(await window(generator, url, services[j]!.proc.pid!, connections, duration));
      rounds.push({
        bare: b,
        services: measured,
        ratios: measured.map((m) => round(m.req_per_s / b.req_per_s)),
        cpu_ratios: measured.map((m) => round(b.cpu_us_per_request / m.cpu_us_per_request)),
      });
    }
    const perService: ServiceSummary[] = services.map((s, j) => ({
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
      start_command:
        nodeFlags.length === 0
          ? 'bin/marketlens serve'
          : `node ${[...V8_FLAGS, ...nodeFlags].join(' ')} dist/cli.js serve`,
      log_level: opts.logLevel,
      generator,
    };
  } finally {
    for (const p of running.reverse()) await stop(p.proc);
    await fake.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

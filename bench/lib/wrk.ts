/**
 * The load generator for the workers figure when `wrk` is installed (Debian: `apt-get install wrk`): C, one thread,
 * ~2–3 µs of CPU per request against autocannon's ~14. On a 2-core box the generator shares the cores with the
 * processes it measures, so with autocannon two workers measured the generator as much as the service.
 */
import { spawn, spawnSync } from 'node:child_process';
import { TEST_KEY } from '../../test/support/app.js';

export interface WrkResult {
  req_per_s: number;
  /** Requests completed in the window. */
  requests: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
  non2xx: number;
  errors: number;
}

/** Whether a `wrk` is on PATH. */
export function wrkAvailable(): boolean {
  return spawnSync('wrk', ['--version']).error === undefined;
}

/** One wrk window (one thread) against `url`; asynchronous, so a fake upstream in this process keeps answering. */
export async function wrk(url: string, connections: number, duration: number): Promise<WrkResult> {
  const child = spawn('wrk', [
    '-t1',
    `-c${connections}`,
    `-d${duration}s`,
    '--latency',
    '-H',
    `x-api-key: ${TEST_KEY}`,
    url,
  ]);
  let out = '';
  child.stdout.on('data', (d) => (out += String(d)));
  child.stderr.on('data', (d) => (out += String(d)));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`wrk exited with ${code}:\n${out}`);
  const number = (re: RegExp) => Number(re.exec(out)?.[1] ?? 0);
  const rate = number(/Requests\/sec:\s+([\d.]+)/);
  if (!rate) throw new Error(`wrk printed no rate:\n${out}`);
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return {
    req_per_s: rate,
    requests: number(/(\d+) requests in /),
    latency_p50_ms: percentileMs(out, 50),
    latency_p99_ms: percentileMs(out, 99),
    non2xx: number(/Non-2xx or 3xx responses: (\d+)/),
    errors: socketErrors ? socketErrors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
  };
}

/** A percentile of wrk's latency distribution (`--latency`: "  99%    2.03ms"), in ms. */
function percentileMs(out: string, p: number): number {
  const m = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s)\\s*$`, 'm').exec(out);
  if (!m) return NaN;
  return Number(m[1]) * (m[2] === 'us' ? 1e-3 : m[2] === 's' ? 1e3 : 1);
}

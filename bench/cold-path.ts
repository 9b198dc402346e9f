/**
 * Figure 2 — cold-path overhead per operation: what marketlens adds to a live lookup beyond the upstream's own time.
 *
 * For each operation, over real loopback HTTP: (a) the service answers a lookup with `Cache-Control: no-cache`
 * (forces a live fetch; no cache, no de-duplication) from a fake marketplace serving real-sized payloads; (b) the
 * exact upstream requests that lookup made (recorded by the fake) are replayed straight to the fake with a bare
 * undici client, concurrently as the operations issue them. (a) and (b) alternate, one at a time, so both see the
 * same machine state. Overhead = percentile of (a) minus the same percentile of (b).
 */
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/server/app.js';
import { FakeUpstream, type LoggedRequest } from '../test/support/fake-upstream.js';
import { TEST_KEY, testConfig } from '../test/support/app.js';
import { benchEnv, scenarios, type Candidate } from './lib/scenarios.js';
import { envInt, quantile, round } from './lib/stats.js';

export interface ColdPathRow {
  operation: string;
  payload: string;
  upstream_requests: number;
  upstream_bytes: number;
  service_p50_ms: number;
  service_p99_ms: number;
  upstream_p50_ms: number;
  upstream_p99_ms: number;
  overhead_p50_ms: number;
  overhead_p99_ms: number;
  iterations: number;
}

const agent = new Agent({ connections: 8, keepAliveTimeout: 30_000 });

async function timed(fn: () => Promise<number>): Promise<{ ms: number; status: number }> {
  const t0 = performance.now();
  const status = await fn();
  return { ms: performance.now() - t0, status };
}

async function get(base: string, url: string): Promise<{ status: number; body: string }> {
  const res = await request(base + url, {
    dispatcher: agent,
    headers: { 'x-api-key': TEST_KEY, 'cache-control': 'no-cache' },
  });
  return { status: res.statusCode, body: await res.body.text() };
}

/** Replays the upstream requests of one lookup to the fake, concurrently; resolves to the total bytes received. */
async function replay(origin: string, reqs: LoggedRequest[]): Promise<number> {
  const sizes = await Promise.all(
    reqs.map(async (r) => {
      const res = await request(origin + r.url, {
        dispatcher: agent,
        method: r.method as 'GET' | 'POST',
        headers: r.body ? { 'content-type': String(r.headers['content-type'] ?? 'application/json') } : {},
        body: r.body || undefined,
      });
      return (await res.body.arrayBuffer()).byteLength;
    }),
  );
  return sizes.reduce((a, b) => a + b, 0);
}

export async function coldPath(
  opts: { iterations?: number; warmup?: number; log?: (s: string) => void } = {},
): Promise<ColdPathRow[]> {
  const iterations = opts.iterations ?? envInt('BENCH_COLD_ITERATIONS', 200);
  const warmup = opts.warmup ?? envInt('BENCH_COLD_WARMUP', 20);
  const log = opts.log ?? (() => {});
  const fake = await new FakeUpstream().start();
  const app: FastifyInstance = await buildApp({ config: testConfig(benchEnv(fake.origin)) });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const rows: ColdPathRow[] = [];
  try {
    // BENCH_COLD_ONLY=finder runs only the rows whose name contains it (e.g. the finder figures alone).
    const only = process.env.BENCH_COLD_ONLY;
    for (const s of scenarios().filter((x) => !only || (x.label ?? x.op).includes(only))) {
      let chosen: Candidate | undefined;
      const refused: string[] = [];
      for (const c of s.candidates) {
        fake.reset();
        c.setup(fake);
        const first = await get(base, c.url);
        if (first.status === 200) {
          chosen = c;
          break;
        }
        refused.push(`${c.source}: HTTP ${first.status} ${first.body.slice(0, 160)}`);
      }
      if (!chosen) throw new Error(`${s.op}: no payload gave a 200 lookup:\n  ${refused.join('\n  ')}`);
      for (const r of refused) log(`  ${s.op}: skipped ${r}`);
      for (let i = 0; i < warmup; i++) await get(base, chosen.url);
      // The upstream requests of one warm lookup (any session warm-up is over by now).
      fake.requests.length = 0;
      await get(base, chosen.url);
      const upstream = [...fake.requests];
      const bytes = upstream.length > 0 ? await replay(fake.origin, upstream) : 0;
      const service: number[] = [];
      const bare: number[] = [];
      for (let i = 0; i < iterations; i++) {
        const a = await timed(async () => (await get(base, chosen.url)).status);
        if (a.status !== 200) throw new Error(`${s.op}: lookup answered ${a.status} during the run`);
        service.push(a.ms);
        bare.push(upstream.length > 0 ? (await timed(async () => (await replay(fake.origin, upstream), 200))).ms : 0);
      }
      const row: ColdPathRow = {
        operation: s.label ?? s.op,
        payload: chosen.source,
        upstream_requests: upstream.length,
        upstream_bytes: bytes,
        service_p50_ms: round(quantile(service, 0.5)),
        service_p99_ms: round(quantile(service, 0.99)),
        upstream_p50_ms: round(quantile(bare, 0.5)),
        upstream_p99_ms: round(quantile(bare, 0.99)),
        overhead_p50_ms: round(quantile(service, 0.5) - quantile(bare, 0.5)),
        overhead_p99_ms: round(quantile(service, 0.99) - quantile(bare, 0.99)),
        iterations,
      };
      rows.push(row);
      log(
        `  ${s.label ?? s.op}: overhead p50 ${row.overhead_p50_ms} ms, p99 ${row.overhead_p99_ms} ms (${chosen.source})`,
      );
    }
  } finally {
    await app.close();
    await fake.stop();
  }
  return rows;
}

/**
 * Figure 9, the product answer (issue 28): `GET /api/v1/products/{sku}` against fake StockX, GOAT and Nike on
 * loopback serving one SKU (test/support/product-upstreams.ts).
 * (a) Cold (`Cache-Control: no-cache`): the answer's latency against its slowest part, measured in the same round —
 *     each marketplace's own lookups run alone, as the answer runs them (StockX search then product; GOAT prices and
 *     product together, its search cached as in the answer; Nike product) — and the difference per round.
 * (b) Upstream requests per answer: on an empty cache (first), cold (no-cache), and warm (every sub-lookup cached).
 * (c) Warm latency.
 */
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/server/app.js';
import { auth, testConfig } from '../test/support/app.js';
import { GOAT_ID, SKU, STOCKX_SLUG, startProductUpstreams } from '../test/support/product-upstreams.js';
import { envInt, quantile, round } from './lib/stats.js';

export interface ProductBenchResult {
  rounds: number;
  answer_p50_ms: number;
  answer_p99_ms: number;
  slowest_part_p50_ms: number;
  slowest_part_p99_ms: number;
  /** Per round: the answer's time minus its slowest part's. The goal: within 5 ms at p50. */
  over_slowest_p50_ms: number;
  over_slowest_p99_ms: number;
  within_5ms_at_p50: boolean;
  /** Which marketplace was the slowest part, how often. */
  slowest_part: Record<string, number>;
  upstream_requests: { first: number; cold: number; warm: number };
  warm_p50_ms: number;
  warm_p99_ms: number;
}

const live = { ...auth, 'cache-control': 'no-cache' };

export async function productBench(opts: { log?: (s: string) => void } = {}): Promise<ProductBenchResult> {
  const rounds = envInt('BENCH_PRODUCT_ROUNDS', 200);
  const up = await startProductUpstreams();
  const app = await buildApp({
    config: testConfig({ ...up.env, MARKETLENS_DEADLINE_MS: '30000', MARKETLENS_BREAKER_THRESHOLD: '10000' }),
  });
  await app.ready();
  const get = async (app_: FastifyInstance, url: string, headers: Record<string, string>) => {
    const res = await app_.inject({ url, headers });
    if (res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
  };
  const timed = async (work: () => Promise<unknown>) => {
    const t = performance.now();
    await work();
    return performance.now() - t;
  };
  const answer = (headers: Record<string, string>) => get(app, `/api/v1/products/${SKU}`, headers);
  const parts: Record<string, () => Promise<unknown>> = {
    'resale-a': async () => {
      await get(app, `/api/v1/scraper/resale-a/search?query=${SKU}`, live);
      await get(app, `/api/v1/scraper/resale-a/product?query=${STOCKX_SLUG}&country=US&currency=USD`, live);
    },
    'resale-b': () =>
      Promise.all([
        get(app, `/api/v1/scraper/resale-b/prices?query=${GOAT_ID}&country=US`, live),
        get(app, `/api/v1/scraper/resale-b/product?query=marketlens-runner-1-harbor-blue-dd1391-100`, live),
      ]),
    sportswear: () => get(app, `/api/v1/scraper/sportswear/product?query=${SKU}&country=US`, live),
  };
  try {
    let before = up.count();
    await answer(auth);
    const first = up.count() - before;
    for (let i = 0; i < 20; i++) await answer(live); // warm-up (JIT, connections)
    before = up.count();
    await answer(live);
    const cold = up.count() - before;

    const answers: number[] = [];
    const slowest: number[] = [];
    const over: number[] = [];
    const slowestPart: Record<string, number> = {};
    for (let i = 0; i < rounds; i++) {
      const a = await timed(() => answer(live));
      let worst = 0;
      let worstName = '';
      for (const [name, part] of Object.entries(parts)) {
        const ms = await timed(part);
        if (ms > worst) [worst, worstName] = [ms, name];
      }
      answers.push(a);
      slowest.push(worst);
      over.push(a - worst);
      slowestPart[worstName] = (slowestPart[worstName] ?? 0) + 1;
    }
    opts.log?.(`  ${rounds} cold rounds measured`);

    await answer(auth); // fills the cache
    before = up.count();
    const warm: number[] = [];
    for (let i = 0; i < rounds; i++) warm.push(await timed(() => answer(auth)));
    const warmRequests = (up.count() - before) / rounds;
    const over50 = round(quantile(over, 0.5));
    return {
      rounds,
      answer_p50_ms: round(quantile(answers, 0.5)),
      answer_p99_ms: round(quantile(answers, 0.99)),
      slowest_part_p50_ms: round(quantile(slowest, 0.5)),
      slowest_part_p99_ms: round(quantile(slowest, 0.99)),
      over_slowest_p50_ms: over50,
      over_slowest_p99_ms: round(quantile(over, 0.99)),
      within_5ms_at_p50: over50 <= 5,
      slowest_part: slowestPart,
      upstream_requests: { first, cold, warm: warmRequests },
      warm_p50_ms: round(quantile(warm, 0.5)),
      warm_p99_ms: round(quantile(warm, 0.99)),
    };
  } finally {
    await app.close();
    await up.stop();
  }
}

/**
 * Figure 4 — de-duplication: N concurrent identical lookups of a key that is not cached yet → how many upstream
 * requests the fake marketplace received (expected: 1; the others wait for it and answer `X-Cache: shared`).
 * The fake answers after a delay so all N requests are in flight together.
 */
import { buildApp } from '../src/server/app.js';
import { FakeUpstream } from '../test/support/fake-upstream.js';
import { auth, testConfig } from '../test/support/app.js';
import { captureOr } from './lib/payloads.js';
import { benchEnv } from './lib/scenarios.js';
import { envInt } from './lib/stats.js';

export interface DedupResult {
  concurrent_lookups: number;
  upstream_requests: number;
  statuses: Record<string, number>;
  x_cache: Record<string, number>;
  upstream_delay_ms: number;
  operation: string;
}

const BUY_BAR = '/web-api/v1/product_variants/buy_bar_data';

export async function dedup(opts: { n?: number; delayMs?: number } = {}): Promise<DedupResult> {
  const n = opts.n ?? envInt('BENCH_DEDUP_N', 100);
  const delayMs = opts.delayMs ?? envInt('BENCH_DEDUP_DELAY_MS', 200);
  const body = captureOr('goat/dewuapiparser_goat_1341930_buy_bar_data.json', 'resale-b/buy-bar-data.json').value;
  const fake = await new FakeUpstream().start();
  fake.serve('/', '<html><head><title>GOAT</title></head><body></body></html>');
  fake.on(BUY_BAR, (_req, res) => {
    setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(body), delayMs);
  });
  const app = await buildApp({ config: testConfig(benchEnv(fake.origin)) });
  await app.ready();
  try {
    const url = '/api/v1/scraper/resale-b/prices?query=1341930&country=US';
    const answers = await Promise.all(Array.from({ length: n }, () => app.inject({ url, headers: auth })));
    const statuses: Record<string, number> = {};
    const xCache: Record<string, number> = {};
    for (const a of answers) {
      statuses[a.statusCode] = (statuses[a.statusCode] ?? 0) + 1;
      const c = String(a.headers['x-cache'] ?? 'none');
      xCache[c] = (xCache[c] ?? 0) + 1;
    }
    return {
      operation: 'resale-b.prices',
      concurrent_lookups: n,
      upstream_requests: fake.count(BUY_BAR),
      statuses,
      x_cache: xCache,
      upstream_delay_ms: delayMs,
    };
  } finally {
    await app.close();
    await fake.stop();
  }
}

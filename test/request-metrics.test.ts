/**
 * `marketlens_http_requests_total{route, method, status}`: each request counted once, under the route it matched
 * (an operation's path or alias, HEAD apart from GET, a plugin's prefixed route), and `unmatched` for what no route
 * took (404 and 405 answers of the not-found handler).
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, testApp } from './support/app.js';
import { FakeUpstream } from './support/fake-upstream.js';
import { buyBar } from './support/upstream-fixtures.js';

const PRICES = '/api/v1/scraper/resale-b/prices';
const BUY_BAR = '/web-api/v1/product_variants/buy_bar_data';

describe('request metrics by route', () => {
  const goat = new FakeUpstream();
  let app: FastifyInstance;

  beforeAll(async () => {
    await goat.start();
    goat.serve(BUY_BAR, buyBar);
    app = await testApp({ MARKETLENS_RESALE_B_ORIGIN: goat.origin });
  });
  afterAll(async () => {
    await app.close();
    await goat.stop();
  });

  /** Every `marketlens_http_requests_total` series with its count, as `status method route`. */
  async function counts(): Promise<Map<string, number>> {
    const res = await app.inject({ url: '/metrics', headers: auth });
    const out = new Map<string, number>();
    for (const m of res.body.matchAll(
      /^marketlens_http_requests_total\{route="([^"]*)",method="([^"]*)",status="(\d+)"\} (\d+)$/gm,
    )) {
      out.set(`${m[3]} ${m[2]} ${m[1]}`, Number(m[4]));
    }
    return out;
  }

  it('counts each request once under the route it matched, HEAD apart, unmatched for the rest', async () => {
    const before = await counts();
    const sent: [string, string, Record<string, string>?][] = [
      ['GET', `${PRICES}?query=1341930`, auth],
      ['GET', `${PRICES}?query=1341930`, auth],
      ['HEAD', `${PRICES}?query=1341930`, auth],
      ['GET', `${PRICES}?query=1341930`],
      ['GET', '/docs/'],
      ['GET', '/no/such/route'],
      ['POST', PRICES],
    ];
    for (const [method, url, headers] of sent) await app.inject({ method: method as 'GET', url, headers });
    const after = await counts();
    const delta = new Map([...after].map(([k, v]) => [k, v - (before.get(k) ?? 0)]));
    // The /metrics read between the two snapshots counts too.
    expect(Object.fromEntries([...delta].filter(([, v]) => v !== 0))).toEqual({
      [`200 GET ${PRICES}`]: 2,
      [`200 HEAD ${PRICES}`]: 1,
      [`401 GET ${PRICES}`]: 1,
      '200 GET /docs': 1,
      '404 GET unmatched': 1,
      '405 POST unmatched': 1,
      '200 GET /metrics': 1,
    });
  });
});

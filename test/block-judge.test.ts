/**
 * Issue 14's defect: bot challenges served with status 200. The client judges every answer, whatever its status,
 * with the marketplace's markers and "real data looks like this" check, so a 200 challenge takes the same recovery
 * path as a 403 one: a new session (fresh cookie jar, warm-up again), retries within the deadline, the next tier
 * (browser included), and the circuit breaker. Chrono24 (Cloudflare), StockX (PerimeterX) and Best Buy (Akamai).
 */
import { SILENT_LOGGER } from '../src/platform/logger.js';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/server/app.js';
import type { BrowserFetcher } from '../src/upstream/browser.js';
import { createHttpClient } from '../src/upstream/create-client.js';
import { auth, testApp, testConfig } from './support/app.js';
import { FakeUpstream, type FakeHandler, type LoggedRequest } from './support/fake-upstream.js';
import { expectProblem } from './support/problem.js';
import { readFixture } from './support/fixtures.js';

const read = (path: string) => readFixture(`${path}`);
const SLUG = 'marketlens-runner-1-harbor-blue';
const SKU = '6500001';
const PX_PAGE =
  '<!DOCTYPE html><html><head><title>Access to this page has been denied</title></head><body><div id="px-captcha"></div></body></html>';

interface Case {
  name: string;
  env: string;
  url: string;
  /** The data requests a challenge may stand in for, with their real answers (path → body, content type). */
  real: Record<string, { body: string; type: string }>;
  /** Requests that always answer (not challenged). */
  always?: Record<string, FakeHandler>;
  challenge: string;
}

const CASES: Case[] = [
  {
    name: 'Chrono24 Cloudflare challenge',
    env: 'WATCHMARKET',
    url: '/api/v1/scraper/watchmarket/search?query=rolex',
    real: {
      '/search/index.htm': { body: read('watchmarket/search-2026-page1.html'), type: 'text/html; charset=utf-8' },
    },
    challenge: read('watchmarket/challenge.html'),
  },
  {
    name: 'StockX PerimeterX page',
    env: 'RESALE_A',
    url: `/api/v1/scraper/resale-a/product?query=${SLUG}`,
    real: { [`/${SLUG}`]: { body: read('resale-a/product-page.html'), type: 'text/html; charset=utf-8' } },
    always: {
      '/api/p/e': (_req, res) =>
        void res.writeHead(200, { 'content-type': 'application/json' }).end(read('resale-a/market-data.json')),
    },
    challenge: PX_PAGE,
  },
  {
    name: 'Best Buy Akamai page',
    env: 'ELECTRONICS',
    url: `/api/v1/scraper/electronics/product?query=${SKU}`,
    real: {
      [`/site/${SKU}.p`]: { body: read('electronics/page-apollo-rehydrate.html'), type: 'text/html; charset=utf-8' },
      '/pricing/v1/price/item': { body: read('electronics/pricing-item.json'), type: 'application/json' },
      '/priceview/query/sku': { body: read('electronics/priceview.json'), type: 'application/json' },
      '/ugc/v2/reviews': { body: read('electronics/reviews.json'), type: 'application/json' },
    },
    challenge: read('electronics/akamai-access-denied.html'),
  },
];

/**
 * A fake marketplace whose home page hands each visitor a session id (`sid=1`, `sid=2`, …) and whose data requests
 * answer the challenge, with status 200, to the sessions `challenged` picks.
 */
function serveSite(fake: FakeUpstream, c: Case, challenged: (sid: string | undefined) => boolean): void {
  let sessions = 0;
  fake.on('/', (_req, res) => {
    sessions += 1;
    res
      .writeHead(200, { 'content-type': 'text/html', 'set-cookie': `sid=${sessions}; Path=/` })
      .end('<!DOCTYPE html><html><head><title>Home</title></head><body>home</body></html>');
  });
  for (const [path, handler] of Object.entries(c.always ?? {})) fake.on(path, handler);
  for (const [path, real] of Object.entries(c.real)) {
    fake.on(path, (req, res) => {
      if (challenged(sidOf(req))) res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(c.challenge);
      else res.writeHead(200, { 'content-type': real.type }).end(real.body);
    });
  }
}

function sidOf(req: LoggedRequest): string | undefined {
  return /(?:^|;\s*)sid=(\d+)/.exec(String(req.headers.cookie ?? ''))?.[1];
}

describe.each(CASES)('$name served with HTTP 200', (c) => {
  const fake = new FakeUpstream();
  let app: FastifyInstance | undefined;
  const get = () => app!.inject({ url: c.url, headers: { ...auth, 'cache-control': 'no-cache' } });
  /** Session ids seen on the data requests the challenge stands in for. */
  const dataSessions = () => fake.requests.filter((r) => r.path in c.real).map(sidOf);

  const env = (extra: Record<string, string> = {}) => ({
    [`MARKETLENS_${c.env}_ORIGIN`]: fake.origin,
    MARKETLENS_DEADLINE_MS: '4000',
    MARKETLENS_RETRY_ATTEMPTS: '2',
    MARKETLENS_RETRY_BASE_MS: '1',
    MARKETLENS_BREAKER_THRESHOLD: '2',
    MARKETLENS_BREAKER_COOLDOWN_MS: '60000',
    MARKETLENS_STALE_IF_ERROR: '0',
    ...extra,
  });

  beforeAll(async () => {
    await fake.start();
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    fake.reset();
  });
  afterAll(async () => {
    await fake.stop();
  });

  it('challenged on the first session, real data on a new one → the lookup succeeds by a retry on a new session', async () => {
    serveSite(fake, c, (sid) => sid === undefined || sid === '1');
    app = await testApp(env());
    const res = await get();
    expect(res.statusCode, res.body).toBe(200);
    const seen = dataSessions();
    expect(seen).toContain('1'); // the challenged first session…
    expect(seen.at(-1)).not.toBe('1'); // …was replaced, its answer came on a fresh one
    expect(fake.count('/')).toBeGreaterThanOrEqual(2); // the new session warmed up again
  });

  it('always challenged → 503 upstream_blocked after the configured tiers and retries; then the breaker opens', async () => {
    serveSite(fake, c, () => true);
    app = await testApp(env());
    for (let i = 0; i < 2; i++) {
      const body = expectProblem(await get(), 503, 'upstream_blocked');
      expect(body.detail).toMatch(/Cloudflare|PerimeterX|Akamai/);
    }
    // Each lookup retried on a new session: two distinct sessions per data request kind at least.
    expect(new Set(dataSessions()).size).toBeGreaterThanOrEqual(2);
    const before = fake.requests.length;
    const open = expectProblem(await get(), 503, 'circuit_open');
    expect(open.detail).toMatch(/failing/);
    expect(fake.requests.length).toBe(before); // an open circuit spares the marketplace
  });

  it('direct always challenged, the browser tier answers → the lookup succeeds through the browser', async () => {
    serveSite(fake, c, () => true);
    const browserCalls: string[] = [];
    const browser: BrowserFetcher = {
      async fetch(req) {
        browserCalls.push(req.url);
        const path = new URL(req.url).pathname;
        const real = c.real[path];
        if (real) return { status: 200, url: req.url, headers: { 'content-type': real.type }, body: real.body };
        return { status: 404, url: req.url, headers: { 'content-type': 'text/html' }, body: 'not here' };
      },
    };
    const config = testConfig(env({ [`MARKETLENS_${c.env}_TIERS`]: 'direct,browser', MARKETLENS_RETRY_ATTEMPTS: '1' }));
    app = await buildApp({
      config,
      http: createHttpClient(config, undefined, { browser, logger: SILENT_LOGGER }),
    });
    await app.ready();
    const res = await get();
    expect(res.statusCode, res.body).toBe(200);
    expect(browserCalls.map((u) => new URL(u).pathname).filter((p) => p in c.real).length).toBeGreaterThan(0);
  });
});

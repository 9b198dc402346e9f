/**
 * GET /api/v1/status against a fake GOAT that answers, blocks, hangs and changes format, and a fake Nike whose page
 * changed: the figures say exactly what happened (lookups, codes, cache share, upstream requests and bytes, tier,
 * breaker with reopen time, last block and change). Then the key rule, and two instances sharing through Redis.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RedisConnection } from '../src/platform/redis-connection.js';
import type { StatusAggregator } from '../src/status/aggregator.js';
import { PUBLISH_EVERY_MS, SharedStatus } from '../src/status/shared-status.js';
import type { StatusView } from '../src/status/view.js';
import { auth, testApp } from './support/app.js';
import { FakeUpstream } from './support/fake-upstream.js';
import { expectProblem } from './support/problem.js';
import { TEST_REDIS_URL, deletePrefix, redisAvailable, uniquePrefix } from './support/redis.js';
import { BUY_BAR, buyBarFor } from './support/slow-goat.js';
import { CLOUDFLARE_CHALLENGE } from './support/upstream-fixtures.js';

type Mode = 'ok' | 'block' | 'hang' | 'changed';

describe('GET /api/v1/status', () => {
  const goat = new FakeUpstream();
  const nike = new FakeUpstream();
  let mode: Mode = 'ok';
  const apps: FastifyInstance[] = [];

  beforeAll(async () => {
    await Promise.all([goat.start(), nike.start()]);
    goat.on(BUY_BAR, (req, res) => {
      if (mode === 'ok')
        return void res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify(buyBarFor(req.query.get('productTemplateId') ?? '1')));
      if (mode === 'block')
        return void res
          .writeHead(403, { 'content-type': 'text/html', 'cf-mitigated': 'challenge' })
          .end(CLOUDFLARE_CHALLENGE);
      if (mode === 'changed')
        return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{"variants":[]}}');
    });
    nike.serve('/', '<html><body>home</body></html>');
    nike.otherwise(
      (_req, res) =>
        void res
          .writeHead(200, { 'content-type': 'text/html' })
          .end('<html><body><h1>A redesigned page</h1></body></html>'),
    );
  });
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((a) => a.close()));
    mode = 'ok';
    goat.requests.length = 0;
  });
  afterAll(async () => {
    await Promise.all([goat.stop(), nike.stop()]);
  });

  async function app(env: Record<string, string> = {}): Promise<FastifyInstance> {
    const a = await testApp({
      MARKETLENS_RESALE_B_ORIGIN: goat.origin,
      MARKETLENS_SPORTSWEAR_ORIGIN: nike.origin,
      MARKETLENS_RETRY_ATTEMPTS: '2',
      MARKETLENS_RESALE_B_TIMEOUT_MS: '300',
      MARKETLENS_BREAKER_THRESHOLD: '3',
      MARKETLENS_BREAKER_COOLDOWN_MS: '60000',
      ...env,
    });
    apps.push(a);
    return a;
  }
  const lookup = (a: FastifyInstance, url: string) => a.inject({ method: 'GET', url, headers: auth });
  const status = async (a: FastifyInstance) => {
    const res = await a.inject({ method: 'GET', url: '/api/v1/status', headers: auth });
    expect(res.statusCode, res.body).toBe(200);
    return JSON.parse(res.body);
  };

  it('counts answers, cache hits, blocks, timeouts, format changes and the breaker, per operation and marketplace', async () => {
    const a = await app();
    expect((await lookup(a, '/api/v1/scraper/resale-b/prices?query=101')).statusCode).toBe(200);
    expect((await lookup(a, '/api/v1/scraper/resale-b/prices?query=102')).statusCode).toBe(200);
    expect((await lookup(a, '/api/v1/scraper/resale-b/prices?query=101')).headers['x-cache']).toBe('hit');
    const okRequests = goat.count(BUY_BAR);
    const okBytes =
      Buffer.byteLength(JSON.stringify(buyBarFor('101'))) + Buffer.byteLength(JSON.stringify(buyBarFor('102')));
    mode = 'changed';
    expect((await lookup(a, '/api/v1/scraper/resale-b/prices?query=103')).statusCode).toBe(502);
    mode = 'hang';
    expect((await lookup(a, '/api/v1/scraper/resale-b/prices?query=104')).statusCode).toBe(504);
    mode = 'block';
    const before = Date.now();
    expect((await lookup(a, '/api/v1/scraper/resale-b/prices?query=105')).statusCode).toBe(503);
    expect((await lookup(a, '/api/v1/scraper/goat/prices?query=106')).statusCode).toBe(503);
    // Three failed lookups in a row (timeout, block, block) opened the circuit: this one never reaches GOAT.
    const refused = await lookup(a, '/api/v1/scraper/resale-b/prices?query=107');
    expectProblem(refused, 503, 'circuit_open');
    expect((await lookup(a, '/api/v1/scraper/nike/product?query=DD1391-100')).statusCode).toBe(502);

    const s = await status(a);
    expect(s.shared).toBe(false);
    expect(s.instances).toHaveLength(1);
    const goatStatus = s.total.marketplaces['resale-b'];
    expect(goatStatus.operations['resale-b.prices']['5m']).toEqual({
      lookups: 8,
      success_rate: 0.375,
      outcomes: { ok: 3, upstream_changed: 1, upstream_timeout: 1, upstream_blocked: 2, circuit_open: 1 },
      cache_share: 0.125,
      live_lookups: 7,
      upstream: expect.any(Object),
    });
    // Per operation, from the lookups themselves: the same requests and bytes (the only GOAT operation used), the
    // tier of each lookup's answer (2 ok and the changed format got one; blocks and the hang none).
    const opUp = goatStatus.operations['resale-b.prices']['5m'].upstream;
    expect(opUp).toMatchObject({
      requests: goat.count(BUY_BAR),
      bytes: okBytes + Buffer.byteLength('{"data":{"variants":[]}}'),
    });
    expect(opUp.tiers).toEqual({ direct: 3, proxy: 0, unblocker: 0, browser: 0 });
    expect(opUp.requests_per_live_lookup).toBe(Math.round((opUp.requests / 7) * 1000) / 1000);
    // A lookup's upstream time: the hang's two attempts waited out 300 ms each; the circuit_open refusal is no sample.
    expect(opUp.p95_ms).toBeGreaterThanOrEqual(600);
    expect(opUp.p50_ms).toBeLessThan(opUp.p95_ms);
    expect(goatStatus.operations['resale-b.product']['5m'].upstream).toMatchObject({
      requests: 0,
      p50_ms: null,
      requests_per_live_lookup: null,
    });
    expect(goatStatus.operations['resale-b.product']['5m']).toMatchObject({ lookups: 0, success_rate: null });
    expect(goatStatus.windows['1h'].lookups).toBe(8);
    const up = goatStatus.windows['5m'].upstream;
    // ok ×2, changed ×1, hang ×2 attempts, block ×2 × 2 attempts; the circuit_open lookup sent nothing.
    expect(up.requests).toBe(goat.count(BUY_BAR));
    expect(up.requests).toBe(okRequests + 1 + 2 + 4);
    expect(up.tiers).toEqual({ direct: okRequests + 1, proxy: 0, unblocker: 0, browser: 0 });
    expect(up.bytes).toBe(okBytes + Buffer.byteLength('{"data":{"variants":[]}}'));
    expect(up.requests_per_live_lookup).toBe(Math.round((up.requests / 7) * 1000) / 1000);
    expect(up.p95_ms).toBeGreaterThanOrEqual(300); // the hanging attempts waited out their 300 ms timeout
    expect(goatStatus.breaker.state).toBe('open');
    const reopens = Date.parse(goatStatus.breaker.reopens_at);
    expect(reopens).toBeGreaterThanOrEqual(before + 60_000);
    expect(reopens).toBeLessThanOrEqual(Date.now() + 60_000);
    expect(goatStatus.last_blocked).toMatchObject({
      operation: 'resale-b.prices',
      reason: expect.stringMatching(/resale-b answered with a .*challenge/i),
    });
    expect(goatStatus.last_changed).toMatchObject({
      operation: 'resale-b.prices',
      reason: expect.stringContaining('resale-b'),
    });
    const nikeStatus = s.total.marketplaces.sportswear;
    expect(nikeStatus.operations['sportswear.product']['5m'].outcomes).toEqual({ ok: 0, upstream_changed: 1 });
    expect(nikeStatus.last_changed.operation).toBe('sportswear.product');
    expect(nikeStatus.last_blocked).toBeNull();
    expect(nikeStatus.breaker).toEqual({ state: 'closed', reopens_at: null });
    expect(nikeStatus.windows['5m'].upstream.tiers.direct).toBe(1);
    const nikeOp = nikeStatus.operations['sportswear.product']['5m'].upstream;
    expect(nikeOp).toMatchObject({
      requests: nikeStatus.windows['5m'].upstream.requests,
      bytes: nikeStatus.windows['5m'].upstream.bytes,
      tiers: { direct: 1 },
    });
    expect(nikeOp.p50_ms).not.toBeNull();
    // Marketplaces nobody asked about: no figures invented.
    expect(s.total.marketplaces.electronics.windows['5m']).toMatchObject({
      lookups: 0,
      success_rate: null,
      cache_share: null,
    });
  });

  it('needs a key, unless MARKETLENS_METRICS_PUBLIC=true; documented under its own tag', async () => {
    const closed = await app();
    expectProblem(await closed.inject({ method: 'GET', url: '/api/v1/status' }), 401, 'missing_api_key');
    expectProblem(await closed.inject({ method: 'GET', url: '/status' }), 401, 'missing_api_key');
    expectProblem(await closed.inject({ method: 'POST', url: '/api/v1/status' }), 405, 'method_not_allowed');
    const spec = JSON.parse((await closed.inject({ method: 'GET', url: '/openapi.json' })).body);
    expect(spec.paths['/api/v1/status'].get.tags).toEqual(['Status']);
    expect(spec.paths['/status']).toBeUndefined();
    const open = await app({ MARKETLENS_METRICS_PUBLIC: 'true' });
    expect((await open.inject({ method: 'GET', url: '/api/v1/status' })).statusCode).toBe(200);
    const page = await open.inject({ method: 'GET', url: '/status' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
  });

  it.runIf(redisAvailable)(
    "with Redis: every instance's figures and their sum",
    async () => {
      const prefix = uniquePrefix();
      try {
        const env = { MARKETLENS_REDIS_URL: TEST_REDIS_URL, MARKETLENS_REDIS_PREFIX: prefix };
        const a = await app(env);
        const b = await app(env);
        await lookup(a, '/api/v1/scraper/resale-b/prices?query=201');
        await lookup(b, '/api/v1/scraper/resale-b/prices?query=202');
        await lookup(b, '/api/v1/scraper/resale-b/prices?query=203');
        mode = 'block';
        await lookup(b, '/api/v1/scraper/resale-b/prices?query=204');
        // Instances publish every PUBLISH_EVERY_MS (its cadence is checked below, with a fake clock): publish b's
        // figures now instead of waiting 5 s for its next publication.
        await b.marketlens.core.status.shared.publish();
        const s = await status(a);
        expect(s.shared).toBe(true);
        expect(s.instances).toHaveLength(2);
        const counts = s.instances
          .map((i: StatusView) => i.marketplaces['resale-b'].operations['resale-b.prices']?.['5m'].lookups)
          .sort();
        expect(counts).toEqual([1, 3]);
        expect(s.instances[0].instance).not.toBe(s.instances[1].instance);
        const total = s.total.marketplaces['resale-b'];
        expect(total.operations['resale-b.prices']['5m']).toMatchObject({
          lookups: 4,
          outcomes: { ok: 3, upstream_blocked: 1 },
        });
        expect(total.windows['5m'].upstream.requests).toBe(goat.count(BUY_BAR));
        expect(total.operations['resale-b.prices']['5m'].upstream.requests).toBe(goat.count(BUY_BAR));
        expect(total.last_blocked.operation).toBe('resale-b.prices');
        // A closed instance leaves the shared figures at once.
        await b.close();
        apps.splice(apps.indexOf(b), 1);
        const after = await status(a);
        expect(after.instances).toHaveLength(1);
        expect(after.total.marketplaces['resale-b'].operations['resale-b.prices']['5m'].lookups).toBe(1);
      } finally {
        await deletePrefix(prefix);
      }
    },
    20_000,
  );
});

describe('shared status publication', () => {
  it('publishes at start, then every PUBLISH_EVERY_MS until stopped', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      // Only the cadence: what a publication writes is checked against Redis above.
      const redis = { prefix: 'cadence:', isUp: false } as unknown as RedisConnection;
      const shared = new SharedStatus({} as StatusAggregator, redis, 'cadence');
      const publish = vi.spyOn(shared, 'publish').mockResolvedValue(undefined);
      shared.start();
      expect(publish).toHaveBeenCalledTimes(1);
      vi.advanceTimersByTime(PUBLISH_EVERY_MS - 1);
      expect(publish).toHaveBeenCalledTimes(1);
      vi.advanceTimersByTime(1);
      expect(publish).toHaveBeenCalledTimes(2);
      vi.advanceTimersByTime(PUBLISH_EVERY_MS);
      expect(publish).toHaveBeenCalledTimes(3);
      await shared.stop();
      vi.advanceTimersByTime(3 * PUBLISH_EVERY_MS);
      expect(publish).toHaveBeenCalledTimes(3);
    } finally {
      vi.useRealTimers();
    }
  });
});

/**
 * MARKETLENS_CANARY_INTERVAL: the doctor's lookups run on schedule through the service's lookup path, so they show in
 * /api/v1/status and reach the live-results seam (where alerts turn failures into `marketplace.changed`).
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import type { LiveFailure } from '../src/operations/live-results.js';
import { OPERATION_NAMES } from '../src/operations/types.js';
import { auth, testApp } from './support/app.js';
import { startFixtureMarketplaces, type FixtureMarketplaces } from './support/fixture-marketplaces.js';
import { RedisConnection } from '../src/cache/redis-connection.js';
import { redisCanaryClaim } from '../src/status/canaries.js';
import { TEST_REDIS_URL, deletePrefix, redisAvailable, uniquePrefix } from './support/redis.js';

describe('canaries', () => {
  let m: FixtureMarketplaces;
  let app: FastifyInstance | undefined;

  beforeAll(async () => {
    m = await startFixtureMarketplaces();
    // GOAT's product pages changed format: the canary for resale-b.product must say so.
    m.fakes['resale-b'].on('/sneakers/tazz-slipper-kids-sand-1143776k-san', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>A new storefront</body></html>');
    });
  });
  afterAll(async () => {
    await app?.close();
    await m.stop();
  });

  it('MARKETLENS_CANARY_INTERVAL: off by default; seconds or s/m/h; anything else names the variable', () => {
    expect(loadConfig({}).canaryIntervalMs).toBeNull();
    expect(loadConfig({ MARKETLENS_CANARY_INTERVAL: 'off' }).canaryIntervalMs).toBeNull();
    expect(loadConfig({ MARKETLENS_CANARY_INTERVAL: '300' }).canaryIntervalMs).toBe(300_000);
    expect(loadConfig({ MARKETLENS_CANARY_INTERVAL: '5m' }).canaryIntervalMs).toBe(300_000);
    expect(loadConfig({ MARKETLENS_CANARY_INTERVAL: '1h' }).canaryIntervalMs).toBe(3_600_000);
    expect(() => loadConfig({ MARKETLENS_CANARY_INTERVAL: 'often' })).toThrow(ConfigError);
    expect(() => loadConfig({ MARKETLENS_CANARY_INTERVAL: '0s' })).toThrow(/MARKETLENS_CANARY_INTERVAL/);
  });

  it('runs every operation live on schedule: the status counts them, the seam sees the failure', async () => {
    app = await testApp({ ...m.env, MARKETLENS_CANARY_INTERVAL: '1s' });
    const failures: LiveFailure[] = [];
    app.marketlens.liveResults.onFailure((f) => failures.push(f));
    const perOperation = async () => {
      const s = JSON.parse((await app!.inject({ method: 'GET', url: '/api/v1/status', headers: auth })).body);
      return Object.fromEntries(
        OPERATION_NAMES.map((n) => [n, s.total.marketplaces[n.split('.')[0]!].operations[n]['5m']]),
      ) as Record<string, { lookups: number; outcomes: Record<string, number> }>;
    };
    // Nothing before the first tick: canaries do not run at start-up.
    expect(Object.values(await perOperation()).every((f) => f.lookups === 0)).toBe(true);
    const deadline = Date.now() + 15_000;
    let figures = await perOperation();
    while (Object.values(figures).some((f) => f.lookups === 0) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      figures = await perOperation();
    }
    for (const name of OPERATION_NAMES) {
      if (name === 'resale-b.product') expect(figures[name]!.outcomes, name).toMatchObject({ ok: 0, upstream_changed: figures[name]!.lookups });
      else expect(figures[name]!.outcomes, name).toEqual({ ok: figures[name]!.lookups });
    }
    expect(failures.some((f) => f.operation === 'resale-b.product' && f.error.code === 'upstream_changed')).toBe(true);
    // Live lookups, not cache answers (each canary forces max_age=0).
    const s = JSON.parse((await app.inject({ method: 'GET', url: '/api/v1/status', headers: auth })).body);
    expect(s.total.marketplaces['resale-b'].windows['5m'].cache_share).toBe(0);
    expect(s.total.marketplaces.sportswear.windows['5m'].upstream.tiers.direct).toBeGreaterThan(0);
  }, 30_000);

  it.runIf(redisAvailable)('with Redis, instances take turns: one round per interval whatever the number of instances', async () => {
    const prefix = uniquePrefix();
    const quiet = { info() {}, warn() {}, error() {} };
    const a = new RedisConnection(TEST_REDIS_URL, prefix, quiet);
    const b = new RedisConnection(TEST_REDIS_URL, prefix, quiet);
    try {
      await Promise.all([a.waitUntilReady(), b.waitUntilReady()]);
      const claimA = redisCanaryClaim(a, 1000, 'a');
      const claimB = redisCanaryClaim(b, 1000, 'b');
      expect([await claimA(), await claimB(), await claimA()]).toEqual([true, false, false]);
      await new Promise((r) => setTimeout(r, 800)); // the claim expires just before the next interval
      expect([await claimB(), await claimA()]).toEqual([true, false]);
    } finally {
      await deletePrefix(prefix);
      await Promise.all([a.close(), b.close()]);
    }
  });
});

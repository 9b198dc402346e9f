/**
 * MARKETLENS_CANARY_INTERVAL: the doctor's lookups run on schedule through the service's lookup path, so they show in
 * /api/v1/status and reach the live-results seam (where alerts turn failures into `marketplace.changed`). They are
 * jobs of the price history's scheduler: with several instances, one round per interval.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import type { LiveFailure } from '../src/operations/live-results.js';
import { OPERATION_NAMES } from '../src/operations/types.js';
import { auth, testApp } from './support/app.js';
import { startFixtureMarketplaces, type FixtureMarketplaces } from './support/fixture-marketplaces.js';
import { listJobs } from '../src/jobs/index.js';
import { CANARY_JOB_ID, CANARY_KIND } from '../src/status/canaries.js';
import { TEST_REDIS_URL, deletePrefix, redisAvailable, uniquePrefix } from './support/redis.js';

describe('canaries', () => {
  let m: FixtureMarketplaces;
  let app: FastifyInstance | undefined;
  /** When each request for the product page arrived (Date.now()). */
  const productPageAt: number[] = [];

  beforeAll(async () => {
    m = await startFixtureMarketplaces();
    // GOAT's product pages changed format: the canary for resale-b.product must say so.
    m.fakes['resale-b'].on('/sneakers/tazz-slipper-kids-sand-1143776k-san', (_req, res) => {
      productPageAt.push(Date.now());
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
      if (name === 'resale-b.product')
        expect(figures[name]!.outcomes, name).toMatchObject({ ok: 0, upstream_changed: figures[name]!.lookups });
      else expect(figures[name]!.outcomes, name).toEqual({ ok: figures[name]!.lookups });
    }
    expect(failures.some((f) => f.operation === 'resale-b.product' && f.error.code === 'upstream_changed')).toBe(true);
    // Live lookups, not cache answers (each canary forces max_age=0).
    const s = JSON.parse((await app.inject({ method: 'GET', url: '/api/v1/status', headers: auth })).body);
    expect(s.total.marketplaces['resale-b'].windows['5m'].cache_share).toBe(0);
    expect(s.total.marketplaces.sportswear.windows['5m'].upstream.tiers.direct).toBeGreaterThan(0);
  }, 30_000);

  /**
   * Two instances sharing one database (and, with Redis, one BullMQ queue): the canary is one job of the shared
   * scheduler, so the fake GOAT product page (one request per round) sees one round per interval, not one per
   * instance. Rather than count rounds over a fixed window, wait for four rounds and measure their span: one round per
   * 1 s interval spans ~3 s (less only by the first round's lag: BullMQ aligns its slots to the clock); two own
   * timers interleave, so any four consecutive rounds of theirs span one interval plus their offset, under 2 s.
   */
  async function roundSpanOnTwoInstances(env: Record<string, string>): Promise<number> {
    const dataDir = mkdtempSync(join(tmpdir(), 'marketlens-canary-'));
    const shared = { ...m.env, MARKETLENS_CANARY_INTERVAL: '1s', MARKETLENS_DATA_DIR: dataDir, ...env };
    const a = await testApp(shared);
    const b = await testApp(shared);
    try {
      // Both wrote the job from their configuration: still one job.
      const jobs = await listJobs(a.history.store.db, CANARY_KIND);
      expect(jobs.map((j) => [j.id, j.intervalMs])).toEqual([[CANARY_JOB_ID, 1000]]);
      // Rounds from here on (one may have run while b started): both instances are up.
      const from = productPageAt.length;
      const deadline = Date.now() + 20_000;
      while (productPageAt.length < from + 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const rounds = productPageAt.slice(from, from + 4);
      expect(rounds).toHaveLength(4);
      return rounds[3]! - rounds[0]!;
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }

  it('two instances on one database (embedded scheduler): one round per interval', async () => {
    await app?.close();
    app = undefined;
    expect(await roundSpanOnTwoInstances({})).toBeGreaterThanOrEqual(2000);
  }, 30_000);

  it.runIf(redisAvailable)(
    'two instances on one database and Redis (BullMQ): one round per interval',
    async () => {
      await app?.close();
      app = undefined;
      const prefix = uniquePrefix();
      try {
        const span = await roundSpanOnTwoInstances({
          MARKETLENS_REDIS_URL: TEST_REDIS_URL,
          MARKETLENS_REDIS_PREFIX: prefix,
        });
        expect(span).toBeGreaterThanOrEqual(2000);
      } finally {
        await deletePrefix(prefix);
      }
    },
    30_000,
  );

  it('the job follows the configuration at start: re-timed when the interval changes, deleted when off', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'marketlens-canary-'));
    const start = async (interval: string) => {
      const a = await testApp({ ...m.env, MARKETLENS_CANARY_INTERVAL: interval, MARKETLENS_DATA_DIR: dataDir });
      const jobs = await listJobs(a.history.store.db, CANARY_KIND);
      await a.close();
      return jobs.map((j) => j.intervalMs);
    };
    expect(await start('1h')).toEqual([3_600_000]);
    expect(await start('1h')).toEqual([3_600_000]);
    expect(await start('10m')).toEqual([600_000]);
    expect(await start('off')).toEqual([]);
  }, 30_000);
});

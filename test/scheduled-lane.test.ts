/**
 * Issue 27 (item 5): scheduled refreshes (tracked products, canaries) never queue ahead of interactive lookups. The
 * per-marketplace limiter has two lanes: an interactive lookup takes the next upstream slot before any waiting
 * scheduled one, scheduled work has its own bounded queue (full → that refresh is deferred to its next interval,
 * counted, logged once), and an interactive lookup that joins a queued scheduled fetch of the same product promotes
 * it. A fake GOAT holds its answers until the test releases them, so the queues are built before anything moves; the
 * order is read from the fake's request log, never from wall-clock bounds.
 */
import { SILENT_LOGGER } from '../src/platform/logger.js';
import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { getOperation } from '../src/operations/registry.js';
import { listJobs } from '../src/jobs/index.js';
import { buildApp } from '../src/server/app.js';
import { createHttpClient } from '../src/upstream/create-client.js';
import type { HttpClient } from '../src/upstream/http-client.js';
import type { UpstreamEvent } from '../src/upstream/observer.js';
import { auth, testConfig } from './support/app.js';
import { FakeUpstream } from './support/fake-upstream.js';
import { readFixture } from './support/fixtures.js';

const BUY_BAR = '/web-api/v1/product_variants/buy_bar_data';
const BUY_BAR_BODY = readFixture('resale-b/buy-bar-data.json');
const op = getOperation('resale-b.prices')!;

/** Polls a condition of the system under test (not a clock): the queues and logs it reads change as work moves. */
async function until(what: string, check: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('scheduled lookups wait in their own lane', () => {
  const goat = new FakeUpstream();
  /** While true, buy-bar answers are held (the requests are logged as they arrive). */
  let holding = true;
  const held: ServerResponse[] = [];
  const answer = (res: ServerResponse) =>
    void res.writeHead(200, { 'content-type': 'application/json' }).end(BUY_BAR_BODY);
  const release = () => {
    holding = false;
    for (const res of held.splice(0)) answer(res);
  };
  /** The buy-bar requests in arrival order, as product ids. */
  const buyBarIds = () => goat.requests.filter((r) => r.path === BUY_BAR).map((r) => r.query.get('productTemplateId'));

  let app: FastifyInstance | undefined;
  let http: HttpClient;
  let events: UpstreamEvent[];
  let warnings: { obj: object; msg?: string }[];

  async function start(env: Record<string, string>): Promise<FastifyInstance> {
    const config = testConfig({ MARKETLENS_RESALE_B_ORIGIN: goat.origin, ...env });
    events = [];
    warnings = [];
    http = createHttpClient(
      config,
      { onUpstream: (e) => events.push(e) },
      { logger: { ...SILENT_LOGGER, warn: (obj, msg) => void warnings.push({ obj, msg }) } },
    );
    app = await buildApp({ config, http });
    await app.ready();
    return app;
  }
  const queued = () => http.queued!('resale-b');
  const scheduledLookup = (id: number) =>
    app!.marketlens.lookup.run(op, op.params.parse({ query: String(id), country: 'US' }), {
      maxAgeSeconds: 0,
      lane: 'scheduled',
    });

  beforeAll(async () => {
    await goat.start();
  });
  afterEach(async () => {
    release();
    await app?.close();
    app = undefined;
    goat.reset();
    holding = true;
  });
  afterAll(async () => {
    await goat.stop();
  });

  function serveGoat(): void {
    goat.serve('/', '<!DOCTYPE html><html><head><title>GOAT</title></head><body></body></html>');
    goat.on(BUY_BAR, (_req, res) => {
      if (holding) held.push(res);
      else answer(res);
    });
  }

  it('an interactive lookup takes the next upstream slot ahead of 300 queued scheduled ones; all of them still complete', async () => {
    serveGoat();
    await start({
      MARKETLENS_RESALE_B_CONCURRENCY: '2',
      MARKETLENS_RESALE_B_MIN_INTERVAL_MS: '2',
      MARKETLENS_RESALE_B_SCHEDULED_MAX_QUEUE: '300',
    });
    const scheduled = Array.from({ length: 300 }, (_, i) => scheduledLookup(1000 + i));
    await until(
      'two scheduled lookups are on the wire and 298 wait',
      () => held.length === 2 && queued().scheduled === 298,
    );

    // Another caller's interactive lookup of another product: it must not wait behind the scheduled lane.
    const interactive = app!.inject({ url: '/api/v1/scraper/resale-b/prices?query=999&country=US', headers: auth });
    await until('the interactive lookup waits for a slot', () => queued().interactive === 1);
    const before = buyBarIds().length;
    release();
    const res = await interactive;
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['x-cache']).toBe('miss');
    // Next after it arrived, or within one slot (the other slot's scheduled lookup may reach the wire first).
    const after = buyBarIds().slice(before);
    expect(after.indexOf('999'), after.slice(0, 5).join(',')).toBeGreaterThanOrEqual(0);
    expect(after.indexOf('999')).toBeLessThanOrEqual(1);

    // Nothing starved, nothing lost: every scheduled lookup is answered, each product fetched once.
    const results = await Promise.all(scheduled);
    expect(results.every((r) => r.cache === 'miss')).toBe(true);
    const ids = buyBarIds();
    expect(ids.length).toBe(301);
    expect(new Set(ids).size).toBe(301);
  });

  it('an interactive lookup that joins a queued scheduled fetch of the same product promotes it: fetched next, once', async () => {
    serveGoat();
    await start({
      MARKETLENS_RESALE_B_CONCURRENCY: '2',
      MARKETLENS_RESALE_B_MIN_INTERVAL_MS: '2',
      MARKETLENS_RESALE_B_SCHEDULED_MAX_QUEUE: '300',
    });
    const scheduled = Array.from({ length: 300 }, (_, i) => scheduledLookup(1000 + i));
    await until(
      'two scheduled lookups are on the wire and 298 wait',
      () => held.length === 2 && queued().scheduled === 298,
    );

    // 1299 is the last scheduled lookup in the queue; the interactive caller shares its fetch.
    const interactive = app!.inject({ url: '/api/v1/scraper/resale-b/prices?query=1299&country=US', headers: auth });
    await until('the shared fetch moved to the interactive lane', () => queued().interactive === 1);
    expect(queued().scheduled).toBe(297);
    const before = buyBarIds().length;
    release();
    const res = await interactive;
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['x-cache']).toBe('shared');
    const after = buyBarIds().slice(before);
    expect(after.indexOf('1299')).toBeGreaterThanOrEqual(0);
    expect(after.indexOf('1299')).toBeLessThanOrEqual(1);

    await Promise.all(scheduled);
    expect(buyBarIds().filter((id) => id === '1299')).toHaveLength(1);
    expect(buyBarIds()).toHaveLength(300);
  });

  it('tracked products beyond the scheduled queue are deferred (counted, logged once) and never fill the interactive queue', async () => {
    serveGoat();
    await start({
      MARKETLENS_RESALE_B_CONCURRENCY: '1',
      MARKETLENS_RESALE_B_MAX_QUEUE: '1',
      MARKETLENS_RESALE_B_SCHEDULED_MAX_QUEUE: '2',
    });
    for (let i = 0; i < 10; i++) {
      const res = await app!.inject({
        method: 'POST',
        url: '/api/v1/db/products',
        headers: auth,
        payload: { operation: 'resale-b.prices', query: String(2000 + i), country: 'US', interval: 60 },
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    const deferred = () => events.filter((e) => e.outcome === 'scheduled_deferred').length;
    // One on the wire, two waiting, seven deferred to their next interval.
    await until(
      'seven refreshes are deferred',
      () => deferred() === 7 && held.length === 1 && queued().scheduled === 2,
    );

    // The interactive queue (one place) is still free for a caller.
    const interactive = app!.inject({ url: '/api/v1/scraper/resale-b/prices?query=999&country=US', headers: auth });
    await until('the interactive lookup waits for a slot', () => queued().interactive === 1);
    const before = buyBarIds().length;
    release();
    const res = await interactive;
    expect(res.statusCode, res.body).toBe(200);
    expect(buyBarIds().slice(before)[0]).toBe('999');

    // Every job ran its slot: three fetched, seven skipped without an error (no log line per job).
    await until('all ten slots are recorded', async () =>
      (await listJobs(app!.history.store.db)).every((j) => j.runs === 1),
    );
    const jobs = await listJobs(app!.history.store.db);
    expect(jobs.map((j) => j.lastError)).toEqual(Array(10).fill(null));
    expect(buyBarIds().filter((id) => id !== '999')).toHaveLength(3);
    expect(deferred()).toBe(7);
    const lines = warnings.filter((w) => /scheduled/.test(w.msg ?? ''));
    expect(lines, JSON.stringify(lines)).toHaveLength(1);
    expect(lines[0]!.obj).toMatchObject({ marketplace: 'resale-b' });
  });
});

/**
 * Issue 27 across instances: with MARKETLENS_REDIS_URL one instance fetches a key for all (the in-flight lock). When
 * that instance's fetch is a scheduled refresh still waiting in its own scheduled lane, an interactive caller on
 * another instance must not wait behind it: it fetches on its own. The fake GOAT holds the request that keeps the
 * first instance's only slot busy, so the scheduled fetch stays queued while the other instance answers.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getOperation } from '../src/operations/registry.js';
import { buildApp } from '../src/server/app.js';
import { createHttpClient } from '../src/upstream/create-client.js';
import type { HttpClient } from '../src/upstream/http-client.js';
import { auth, testApp, testConfig } from './support/app.js';
import { FakeUpstream } from './support/fake-upstream.js';
import { readFixture } from './support/fixtures.js';
import { TEST_REDIS_URL, deletePrefix, redisAvailable, uniquePrefix } from './support/redis.js';

const BUY_BAR = '/web-api/v1/product_variants/buy_bar_data';
const BUY_BAR_BODY = readFixture('resale-b/buy-bar-data.json');
const op = getOperation('resale-b.prices')!;

async function until(what: string, check: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe.skipIf(!redisAvailable)('a scheduled fetch queued on another instance', () => {
  const goat = new FakeUpstream();
  const prefix = uniquePrefix();
  /** Answers for product 1 are held until the end: it occupies instance A's only slot. */
  const held: ServerResponse[] = [];
  const answer = (res: ServerResponse) =>
    void res.writeHead(200, { 'content-type': 'application/json' }).end(BUY_BAR_BODY);
  let a: FastifyInstance;
  let b: FastifyInstance;
  let httpA: HttpClient;

  beforeAll(async () => {
    await goat.start();
    goat.serve('/', '<!DOCTYPE html><html><head><title>GOAT</title></head><body></body></html>');
    goat.on(BUY_BAR, (req, res) => {
      if (req.query.get('productTemplateId') === '1') held.push(res);
      else answer(res);
    });
    const env = {
      MARKETLENS_RESALE_B_ORIGIN: goat.origin,
      MARKETLENS_REDIS_URL: TEST_REDIS_URL,
      MARKETLENS_REDIS_PREFIX: prefix,
    };
    const configA = testConfig({ ...env, MARKETLENS_RESALE_B_CONCURRENCY: '1' });
    httpA = createHttpClient(configA);
    a = await buildApp({ config: configA, http: httpA });
    await a.ready();
    b = await testApp(env);
  });
  afterAll(async () => {
    for (const res of held.splice(0)) answer(res);
    await a?.close();
    await b?.close();
    await goat.stop();
    await deletePrefix(prefix);
  });

  it('an interactive caller on instance B fetches on its own instead of waiting for A’s queued scheduled fetch', async () => {
    const scheduled = (id: string) =>
      a.marketlens.lookup.run(op, op.params.parse({ query: id, country: 'US' }), {
        maxAgeSeconds: 0,
        lane: 'scheduled',
      });
    const first = scheduled('1');
    const second = scheduled('2');
    // A's slot is busy with product 1; product 2's fetch holds the cluster's lock and waits in A's scheduled lane.
    await until('A has one request on the wire and one scheduled lookup queued', () => {
      return held.length === 1 && httpA.queued!('resale-b').scheduled === 1;
    });

    const res = await b.inject({ url: '/api/v1/scraper/resale-b/prices?query=2&country=US', headers: auth });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['x-cache']).toBe('miss');
    // Answered while A's scheduled fetch of the same product still waits.
    expect(httpA.queued!('resale-b').scheduled).toBe(1);
    expect(held).toHaveLength(1);

    for (const r of held.splice(0)) answer(r);
    await Promise.all([first, second]);
  });
});

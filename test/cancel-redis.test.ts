/**
 * A withdrawn lookup (an MCP call cancelled: src/operations/caller-scope.ts) on an instance that leads a shared fetch
 * through Redis: it lets the lock go without telling its peers an error, so an instance waiting on the same lookup
 * takes it over and answers, rather than failing with the withdrawn caller's `cancelled`.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withCallerScope } from '../src/operations/caller-scope.js';
import { auth, testApp } from './support/app.js';
import { FakeUpstream } from './support/fake-upstream.js';
import { TEST_REDIS_URL, deletePrefix, redisAvailable, uniquePrefix } from './support/redis.js';
import { BUY_BAR, PRICES, buyBarFor } from './support/slow-goat.js';

describe.skipIf(!redisAvailable)('cancellation with Redis de-duplication', () => {
  const prefix = uniquePrefix();
  const goat = new FakeUpstream();
  let a: FastifyInstance;
  let b: FastifyInstance;
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const arrivals: (() => void)[] = [];
  const arrived = [1, 2].map(() => new Promise<void>((r) => arrivals.push(r)));

  beforeAll(async () => {
    await goat.start();
    goat.on(BUY_BAR, async (req, res) => {
      arrivals.shift()?.();
      await released;
      if (res.destroyed) return;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(buyBarFor(req.query.get('productTemplateId') ?? '0')));
    });
    const env = {
      MARKETLENS_RESALE_B_ORIGIN: goat.origin,
      MARKETLENS_REDIS_URL: TEST_REDIS_URL,
      MARKETLENS_REDIS_PREFIX: prefix,
    };
    [a, b] = await Promise.all([testApp(env), testApp(env)]);
  });
  afterAll(async () => {
    release();
    await Promise.all([a?.close(), b?.close()]);
    await goat.stop();
    await deletePrefix(prefix);
  });

  /** `app.inject` in its callback form, so the request runs in the caller scope of the code calling it. */
  const inject = (app: FastifyInstance, url: string) =>
    new Promise<LightMyRequestResponse>((resolve, reject) =>
      app.inject({ url, headers: auth }, (err, res) => (err || !res ? reject(err) : resolve(res))),
    );

  it("a peer waiting on the withdrawn leader's fetch fetches for itself and answers", async () => {
    const url = `${PRICES}?query=8800001`;
    const withdraw = new AbortController();
    const fromA = withCallerScope({ withdrawn: withdraw.signal }, () => inject(a, url));
    await arrived[0]; // A holds the lock and is fetching
    let bWaits!: () => void;
    const bWaiting = new Promise<void>((r) => (bWaits = r));
    const fromB = withCallerScope({ onUpstreamWait: () => bWaits() }, () => inject(b, url));
    await bWaiting;
    withdraw.abort();
    const answerA = await fromA;
    expect(answerA.statusCode).toBe(499);
    expect(answerA.json().code).toBe('cancelled');
    await arrived[1]; // B took the lock over and asked GOAT itself
    release();
    const answerB = await fromB;
    expect(answerB.statusCode, answerB.body).toBe(200);
    expect(goat.count(BUY_BAR)).toBe(2);
  });
});

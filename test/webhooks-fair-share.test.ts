/**
 * One key's dead receivers do not starve anyone (issue 27, item 5: "300 webhook receivers that never answer … a
 * healthy receiver of the same key got its test delivery 41.9 s late, another key's 37.0 s late"). Real receivers
 * that accept and never answer, with the embedded delivery loop and with BullMQ dispatch:
 * - 300 hanging subscriptions of key A on one host: a healthy receiver of key A and one of key B get their test
 *   delivery well within the send timeout (a key's sends to one host hold a few slots, not all of them);
 * - 300 hanging subscriptions of key A spread over 40 hosts: key B's healthy receiver is still served at once (a key
 *   holds at most its share of the slots);
 * - the hanging deliveries are not lost: they stay queued for their retries.
 * Arrivals are awaited on the receivers themselves; the bound is measured from queueing the healthy test deliveries.
 */
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { Subscription } from '../src/alerts/subscriptions.js';
import { hashKey } from '../src/keys/key-store.js';
import { TEST_KEY, testApp } from './support/app.js';
import { TEST_REDIS_URL, deletePrefix, redisAvailable, uniquePrefix } from './support/redis.js';
import {
  startHangingReceiver,
  startReceiver,
  type HangingReceiver,
  type Receiver,
} from './support/webhook-receiver.js';

const KEY_B = 'ml_fair_share_key_b_0123456789abcdef';
/** The key ids the env keys get (never the keys themselves). */
const keyIdOf = (key: string) => `env-${hashKey(key).toString('hex').slice(0, 8)}`;
const keyA = keyIdOf(TEST_KEY);
const keyB = keyIdOf(KEY_B);
const HANGING = 300;
/** Each hanging send lasts this long; before the fix a healthy delivery waited several of them. */
const SEND_TIMEOUT_MS = 6_000;
/**
 * Healthy deliveries must arrive within this: half the send timeout, so no hanging send can have ended first. Measured
 * 6-720 ms with three copies of this file running at once (the most with BullMQ, whose healthy job is taken after
 * the hanging ones' jobs are put back).
 */
const BOUND_MS = 3_000;

const MODES = [
  { name: 'embedded delivery loop', redis: false },
  { name: 'BullMQ dispatch', redis: true },
] as const;

describe.each(MODES)('$name', ({ redis }) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  async function setup() {
    const prefix = uniquePrefix();
    const app: FastifyInstance = await testApp(
      {
        MARKETLENS_API_KEYS: `${TEST_KEY},${KEY_B}`,
        MARKETLENS_MAX_WEBHOOKS_PER_KEY: String(HANGING + 10),
        MARKETLENS_WEBHOOK_ALLOW_HTTP: 'true',
        MARKETLENS_WEBHOOK_ALLOW_PRIVATE: 'true',
        ...(redis ? { MARKETLENS_REDIS_URL: TEST_REDIS_URL, MARKETLENS_REDIS_PREFIX: prefix } : {}),
      },
      { alerts: { timeoutMs: SEND_TIMEOUT_MS } },
    );
    const hanging: HangingReceiver[] = [];
    const healthy: Receiver[] = [];
    cleanups.push(async () => {
      // Cut the held connections first: the sends end at once and the app closes without waiting them out.
      for (const h of hanging) await h.stop();
      await app.close();
      for (const r of healthy) await r.stop();
      if (redis) await deletePrefix(prefix);
    });
    const subscribe = (keyId: string, url: string) =>
      app.alerts.subscriptions.create(keyId, { url, events: ['price.changed'], filter: {}, description: null });
    return { app, hanging, healthy, subscribe };
  }

  /** Queues a test delivery for each healthy subscription and says how long each took to arrive. */
  async function healthyDelays(app: FastifyInstance, subs: [Subscription, Receiver][]): Promise<number[]> {
    const started = Date.now();
    for (const [sub] of subs) await app.alerts.sendTest(sub);
    const ids = await Promise.all(subs.map(async ([sub]) => (await app.alerts.queue.list(sub.id, 1))[0]!.id));
    return Promise.all(subs.map(async ([, r], i) => (await r.arrival(ids[i]!)).at - started));
  }

  it.skipIf(redis && !redisAvailable)(
    "300 hanging receivers of key A on one host: key A's and key B's healthy receivers are served in time",
    async () => {
      const { app, hanging, healthy, subscribe } = await setup();
      const dead = await startHangingReceiver();
      hanging.push(dead);
      const deadSubs: Subscription[] = [];
      for (let i = 0; i < HANGING; i++) deadSubs.push(await subscribe(keyA, dead.url(`/dead/${i}`)));
      const [okA, okB] = [await startReceiver(), await startReceiver()];
      healthy.push(okA, okB);
      const subA = await subscribe(keyA, okA.url);
      const subB = await subscribe(keyB, okB.url);

      for (const sub of deadSubs) await app.alerts.sendTest(sub);
      await dead.waitForRequests(4); // the dead receivers hold sends now
      const delays = await healthyDelays(app, [
        [subA, okA],
        [subB, okB],
      ]);
      expect(delays[0], `key A's healthy receiver after ${delays[0]} ms`).toBeLessThan(BOUND_MS);
      expect(delays[1], `key B's healthy receiver after ${delays[1]} ms`).toBeLessThan(BOUND_MS);
      // Nothing lost: every hanging delivery is still queued (in flight or waiting), none given up.
      const statuses = await Promise.all(deadSubs.map(async (s) => (await app.alerts.queue.list(s.id, 1))[0]!.status));
      expect(statuses.every((s) => s === 'pending' || s === 'inflight')).toBe(true);
    },
    30_000,
  );

  it.skipIf(redis && !redisAvailable)(
    "300 hanging receivers of key A over 40 hosts: key B's healthy receiver is served in time",
    async () => {
      const { app, hanging, healthy, subscribe } = await setup();
      for (let i = 0; i < 40; i++) hanging.push(await startHangingReceiver());
      const deadSubs: Subscription[] = [];
      for (let i = 0; i < HANGING; i++) deadSubs.push(await subscribe(keyA, hanging[i % 40]!.url(`/dead/${i}`)));
      const okB = await startReceiver();
      healthy.push(okB);
      const subB = await subscribe(keyB, okB.url);

      for (const sub of deadSubs) await app.alerts.sendTest(sub);
      // Many hosts: the key's share is what holds (at least 16 of them hang now).
      await Promise.all(hanging.slice(0, 16).map((h) => h.waitForRequests(1)));
      const [delay] = await healthyDelays(app, [[subB, okB]]);
      expect(delay, `key B's healthy receiver after ${delay} ms`).toBeLessThan(BOUND_MS);
    },
    30_000,
  );
});

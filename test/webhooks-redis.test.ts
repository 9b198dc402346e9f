/**
 * Instances deployed together — shared Redis (MARKETLENS_REDIS_URL) and shared PostgreSQL — so deliveries are
 * dispatched through BullMQ. Two in one process both observing the same answers: every event reaches the receiver
 * exactly once, in order. Then separate processes (test/support/alerts-instance.ts) with the database sweep 10 min
 * away, so only BullMQ can move deliveries: two instances queueing to three subscriptions at once deliver each
 * delivery once, in each subscription's order; an instance killed (-9) with deliveries pending while the receiver is
 * down loses none once another one starts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { startInstance, type Instance } from './support/alerts-instance.js';
import { auth, testApp } from './support/app.js';
import { TEST_REDIS_URL, deletePrefix, redisAvailable, uniquePrefix } from './support/redis.js';
import { createTestDatabase, postgresAvailable, type TestDatabase } from './support/stores.js';
import { priceObservation } from './support/observations.js';
import { startReceiver, type Receiver } from './support/webhook-receiver.js';

const observed = priceObservation;

describe.skipIf(!redisAvailable || !postgresAvailable)('two instances on Redis and PostgreSQL', () => {
  let a: FastifyInstance;
  let b: FastifyInstance;
  let receiver: Receiver;
  let database: TestDatabase;
  const prefix = uniquePrefix();

  beforeAll(async () => {
    receiver = await startReceiver();
    database = await createTestDatabase('postgres');
    const env = {
      ...database.env,
      MARKETLENS_REDIS_URL: TEST_REDIS_URL,
      MARKETLENS_REDIS_PREFIX: prefix,
      MARKETLENS_WEBHOOK_ALLOW_HTTP: 'true',
      MARKETLENS_WEBHOOK_ALLOW_PRIVATE: 'true',
    };
    const deps = { alerts: { timing: { baseDelayMs: 40, pollMs: 20 } } };
    a = await testApp(env, deps);
    b = await testApp(env, deps);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await receiver?.stop();
    await database?.drop();
    await deletePrefix(prefix);
  });

  it('each event is delivered once', async () => {
    const created = await a.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: auth,
      payload: { url: receiver.url, events: ['price.changed'] },
    });
    expect(created.statusCode, created.body).toBe(201);
    receiver.setSecret(created.json().secret);
    // The other instance sees the subscription too (one database).
    expect((await b.inject({ url: '/api/v1/webhooks', headers: auth })).json().data).toHaveLength(1);
    const amounts = [100, 105, 110, 100, 95, 120, 130, 125];
    amounts.forEach((amount, n) => {
      a.alerts.handleObservations(observed(n, amount));
      b.alerts.handleObservations(observed(n, amount));
    });
    for (let i = 0; i < 3; i++)
      await b.inject({ method: 'POST', url: `/api/v1/webhooks/${created.json().id}/test`, headers: auth });
    await receiver.waitFor(amounts.length - 1 + 3);
    await new Promise((r) => setTimeout(r, 400));
    const got = receiver.messages();
    expect(got).toHaveLength(amounts.length - 1 + 3);
    expect(new Set(receiver.all.map((r) => r.id)).size).toBe(receiver.all.length);
    expect(got.filter((m) => m.type === 'price.changed').map((m) => m.data.new)).toEqual(amounts.slice(1));
  });
});

describe.skipIf(!redisAvailable || !postgresAvailable)(
  'instances in separate processes on Redis and PostgreSQL',
  () => {
    const prefix = uniquePrefix();
    let database: TestDatabase;
    let env: Record<string, string>;
    const instances: Instance[] = [];
    const receivers: Receiver[] = [];
    /** Retries 200–400 ms apart, leases (and BullMQ locks) of 2 s, and no database sweep within the test. */
    const timing = { baseDelayMs: 200, maxDelayMs: 400, leaseMs: 2_000, pollMs: 600_000, sweepMs: 600_000 };

    beforeAll(async () => {
      database = await createTestDatabase('postgres');
      env = {
        ...database.env,
        MARKETLENS_REDIS_URL: TEST_REDIS_URL,
        MARKETLENS_REDIS_PREFIX: prefix,
        MARKETLENS_WEBHOOK_ALLOW_HTTP: 'true',
        MARKETLENS_WEBHOOK_ALLOW_PRIVATE: 'true',
      };
    });
    afterEach(async () => {
      for (const i of instances.splice(0)) if (i.child.exitCode === null && i.child.signalCode === null) i.child.kill();
      for (const r of receivers.splice(0)) await r.stop();
    });
    afterAll(async () => {
      await database?.drop();
      await deletePrefix(prefix);
    });

    const start = async () => {
      const instance = await startInstance(env, timing);
      instances.push(instance);
      return instance;
    };
    const api = async <T = unknown>(instance: Instance, method: string, path: string, body?: object): Promise<T> => {
      const res = await fetch(`${instance.base}/api/v1/webhooks${path}`, {
        method,
        headers: { ...auth, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body && JSON.stringify(body),
      });
      expect(res.status, await res.clone().text()).toBeLessThan(300);
      return (await res.json()) as T;
    };
    /** A subscription (and its receiver) created through `instance`. */
    const subscribe = async (instance: Instance) => {
      const receiver = await startReceiver();
      receivers.push(receiver);
      const sub = await api<{ id: string; secret: string }>(instance, 'POST', '', {
        url: receiver.url,
        events: ['price.changed'],
      });
      receiver.setSecret(sub.secret);
      return { id: sub.id, receiver };
    };
    /** The subscription's deliveries as the database orders them (oldest first). */
    const deliveries = async (instance: Instance, id: string) =>
      (
        await api<{ data: { id: string; status: string; attempts: number }[] }>(
          instance,
          'GET',
          `/${id}/deliveries?limit=500`,
        )
      ).data.reverse();

    it("two instances: each delivery once, in its subscription's order", async () => {
      const [a, b] = await Promise.all([start(), start()]);
      const subs = await Promise.all([subscribe(a), subscribe(b), subscribe(a)]);
      const perSub = 8;
      // Every subscription gets test deliveries queued alternately through both instances, all subscriptions at once.
      await Promise.all(
        subs.map(async (s) => {
          for (let n = 0; n < perSub; n++) await api(n % 2 ? b : a, 'POST', `/${s.id}/test`);
        }),
      );
      for (const s of subs) await s.receiver.waitFor(perSub, 10_000);
      await new Promise((r) => setTimeout(r, 300)); // nothing else arrives
      for (const s of subs) {
        expect(s.receiver.all.every((r) => r.verified)).toBe(true);
        const queued = await deliveries(a, s.id);
        expect(queued.map((d) => d.status)).toEqual(Array(perSub).fill('delivered'));
        // Exactly once, and in the order they were queued.
        expect(s.receiver.all.map((r) => r.id)).toEqual(queued.map((d) => d.id));
      }
    }, 60_000);

    it('kill -9 with deliveries pending (receiver down): another instance started later delivers them all, in order', async () => {
      const a = await start();
      const { id, receiver } = await subscribe(a);
      await receiver.stop();
      for (let n = 0; n < 5; n++) await api(a, 'POST', `/${id}/test`);
      // The head is being retried (connection refused) — by delayed BullMQ jobs, the sweep being 10 min away.
      const deadline = Date.now() + 10_000;
      while ((await deliveries(a, id))[0]!.attempts < 3) {
        expect(Date.now()).toBeLessThan(deadline);
        await new Promise((r) => setTimeout(r, 50));
      }
      a.child.kill('SIGKILL');
      await new Promise((r) => a.child.once('exit', r));
      await receiver.restart();
      const b = await start();
      await receiver.waitFor(5, 15_000);
      await new Promise((r) => setTimeout(r, 300));
      const queued = await deliveries(b, id);
      expect(queued.map((d) => d.status)).toEqual(Array(5).fill('delivered'));
      expect(receiver.messages().map((m) => m.type)).toEqual(Array(5).fill('webhook.test'));
      expect(receiver.received.map((r) => r.id)).toEqual(queued.map((d) => d.id));
      expect(queued[0]!.attempts).toBeGreaterThan(3);
    }, 60_000);
  },
);

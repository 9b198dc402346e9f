/**
 * Deliveries dispatched through BullMQ (Redis configured), on PostgreSQL: the rows stay in the database, BullMQ jobs
 * carry them. With the database loop's sweep 10 min away, deliveries still go out at once and retries come through
 * delayed jobs (seen in the queue's own event stream); with the queue's keys flushed, or Redis unreachable, the
 * sweep delivers and enqueueing neither fails nor waits; a subscription enabled again (PATCH) moves at once. Each
 * test has its own Redis prefix and database.
 */
import { SILENT_LOGGER } from '../src/platform/logger.js';
import { QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { AlertEngine } from '../src/alerts/engine.js';
import { auth, testApp } from './support/app.js';
import type { AlertTables } from '../src/alerts/schema.js';
import type { DeliveryTiming } from '../src/alerts/worker.js';
import { priceObservation } from './support/observations.js';
import { TEST_REDIS_URL, deletePrefix, redisAvailable, uniquePrefix } from './support/redis.js';
import { createTestDatabase, openTestStore, postgresAvailable } from './support/stores.js';
import { startReceiver, type Receiver } from './support/webhook-receiver.js';

const silent = SILENT_LOGGER;
/** The database loop out of the picture: anything delivered within a test's few seconds went through BullMQ. */
const BULLMQ_ONLY: Partial<DeliveryTiming> = {
  baseDelayMs: 100,
  maxDelayMs: 200,
  pollMs: 600_000,
  sweepMs: 600_000,
  leaseMs: 2_000,
};

let minute = 0;
const observed = (amount: number) => priceObservation(++minute, amount);

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.skipIf(!redisAvailable || !postgresAvailable)('webhook deliveries through BullMQ', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  async function setup(timing: Partial<DeliveryTiming>, redisUrl = TEST_REDIS_URL) {
    const prefix = uniquePrefix();
    const store = await openTestStore('postgres');
    const receiver: Receiver = await startReceiver();
    const engine = new AlertEngine({
      db: store.db as unknown as Kysely<AlertTables>,
      policy: { allowHttp: true, allowPrivate: true },
      log: silent,
      timing,
      redis: { url: redisUrl, prefix },
    });
    engine.start();
    // The queue's event stream from its start: which jobs BullMQ completed (they are removed once completed).
    const events = new QueueEvents('webhooks', {
      connection: new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null }),
      prefix: `${prefix}bull`,
      lastEventId: '0-0',
    });
    const completed: string[] = [];
    const delayed: string[] = [];
    events.on('completed', ({ jobId }) => completed.push(jobId));
    events.on('delayed', ({ jobId }) => delayed.push(jobId));
    await events.waitUntilReady();
    cleanups.push(async () => {
      await engine.close();
      await events.close();
      await receiver.stop();
      await store.close();
      await deletePrefix(prefix);
    });
    const sub = await engine.subscriptions.create('key-a', {
      url: receiver.url,
      events: ['price.changed'],
      filter: {},
      description: null,
    });
    receiver.setSecret(sub.secret);
    /** The subscription's deliveries, oldest first. */
    const deliveries = async () => (await engine.queue.list(sub.id, 100)).reverse();
    return { prefix, engine, receiver, sub, completed, delayed, deliveries };
  }

  it('an event is delivered at once by a BullMQ job while the database sweep is 10 min away', async () => {
    const { engine, receiver, completed, deliveries } = await setup(BULLMQ_ONLY);
    const started = Date.now();
    for (const amount of [100, 110, 120]) engine.handleObservations(observed(amount));
    await engine.idle();
    await receiver.waitFor(2, 5_000);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(receiver.messages().map((m) => m.data.new)).toEqual([110, 120]);
    expect(receiver.all.every((r) => r.verified)).toBe(true);
    // (the receiver has the POST a moment before the sender records its outcome)
    await until('both recorded as delivered', async () => (await deliveries()).every((d) => d.status === 'delivered'));
    const rows = await deliveries();
    expect(rows.map((d) => d.status)).toEqual(['delivered', 'delivered']);
    // Both were enqueued in one batch: one job named after the first; the second followed its delivery.
    await until('the jobs completed', () => completed.length >= 2);
    expect(completed).toEqual(expect.arrayContaining([rows[0]!.id, `${rows[0]!.id}.next`]));
  });

  it('a receiver failing, then recovering: retries come through delayed jobs, in order', async () => {
    const { engine, receiver, delayed, completed, deliveries } = await setup(BULLMQ_ONLY);
    let failing = true;
    receiver.answer = () => ({ status: failing ? 503 : 204 });
    for (const amount of [100, 101, 102, 103, 104]) engine.handleObservations(observed(amount));
    await engine.idle();
    await until('three failed attempts', () => receiver.all.length >= 3);
    failing = false;
    await receiver.waitFor(4, 5_000);
    await new Promise((r) => setTimeout(r, 200)); // nothing else arrives
    expect(receiver.messages().map((m) => m.data.new)).toEqual([101, 102, 103, 104]);
    // Every attempt before the recovery was of the head, with its one webhook-id.
    const failed = receiver.all.filter((r) => !receiver.received.includes(r));
    expect(new Set(failed.map((r) => r.id))).toEqual(new Set([receiver.received[0]!.id]));
    await until('all recorded as delivered', async () => (await deliveries()).every((d) => d.status === 'delivered'));
    const rows = await deliveries();
    expect(rows.every((d) => d.status === 'delivered')).toBe(true);
    expect(rows[0]!.attempts).toBe(failed.length + 1);
    // Each retry was a delayed job named after the head and its attempt, and BullMQ ran it.
    const head = rows[0]!.id;
    await until('the retry jobs completed', () => completed.includes(`${head}.r${failed.length}`));
    for (let n = 1; n <= failed.length; n++) {
      expect(delayed).toContain(`${head}.r${n}`);
      expect(completed).toContain(`${head}.r${n}`);
    }
  });

  it("Redis flushed (this test's prefix): the database sweep still delivers", async () => {
    // Retries ~1 s apart; the sweep every 300 ms is what finds the head once its retry is due.
    const { prefix, engine, receiver, delayed, deliveries } = await setup({
      ...BULLMQ_ONLY,
      baseDelayMs: 1_000,
      maxDelayMs: 1_000,
      sweepMs: 300,
    });
    await receiver.stop();
    for (const amount of [100, 101, 102, 103]) engine.handleObservations(observed(amount));
    await engine.idle();
    await until('the first retry scheduled in BullMQ', async () => delayed.length > 0);
    const [head] = await deliveries();
    expect(delayed).toEqual([`${head!.id}.r1`]);
    await deletePrefix(prefix);
    const admin = new Redis(TEST_REDIS_URL);
    try {
      expect(await admin.keys(`${prefix}*`)).toEqual([]); // the retry job is gone
    } finally {
      admin.disconnect();
    }
    await receiver.restart();
    await receiver.waitFor(3, 5_000);
    expect(receiver.messages().map((m) => m.data.new)).toEqual([101, 102, 103]);
    // (the receiver has the last POST a moment before the sender records its outcome)
    await until('all recorded as delivered', async () => (await deliveries()).every((d) => d.status === 'delivered'));
    expect((await deliveries()).map((d) => d.status)).toEqual(['delivered', 'delivered', 'delivered']);
  });

  it('Redis unreachable: enqueueing neither fails nor waits, and the database sweep delivers', async () => {
    const { engine, receiver, sub } = await setup({ ...BULLMQ_ONLY, sweepMs: 200 }, 'redis://127.0.0.1:1');
    const started = Date.now();
    for (const amount of [100, 110]) engine.handleObservations(observed(amount));
    await engine.idle();
    await engine.sendTest(sub);
    expect(Date.now() - started).toBeLessThan(1_000);
    await receiver.waitFor(2, 5_000);
    expect(receiver.messages().map((m) => m.type)).toEqual(['price.changed', 'webhook.test']);
  });

  it('a subscription enabled again (PATCH) delivers what it has queued at once, not at the next sweep', async () => {
    const prefix = uniquePrefix();
    const receiver = await startReceiver();
    const database = await createTestDatabase('postgres');
    const app = await testApp(
      {
        ...database.env,
        MARKETLENS_REDIS_URL: TEST_REDIS_URL,
        MARKETLENS_REDIS_PREFIX: prefix,
        MARKETLENS_WEBHOOK_ALLOW_HTTP: 'true',
        MARKETLENS_WEBHOOK_ALLOW_PRIVATE: 'true',
      },
      { alerts: { timing: BULLMQ_ONLY } },
    );
    cleanups.push(async () => {
      await app.close();
      await receiver.stop();
      await database.drop();
      await deletePrefix(prefix);
    });
    const created = await app.inject({
      method: 'POST',
      url: '/api/v1/webhooks',
      headers: auth,
      payload: { url: receiver.url, events: ['price.changed'] },
    });
    const { id, secret } = created.json<{ id: string; secret: string }>();
    receiver.setSecret(secret);
    const patch = (enabled: boolean) =>
      app.inject({ method: 'PATCH', url: `/api/v1/webhooks/${id}`, headers: auth, payload: { enabled } });
    expect((await patch(false)).statusCode).toBe(200);
    const test = await app.inject({ method: 'POST', url: `/api/v1/webhooks/${id}/test`, headers: auth });
    expect(test.statusCode).toBe(202);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.all).toHaveLength(0); // queued, but a disabled subscription's deliveries wait
    expect((await patch(true)).statusCode).toBe(200);
    await receiver.waitFor(1, 5_000);
    expect(receiver.messages().map((m) => m.type)).toEqual(['webhook.test']);
  });
});

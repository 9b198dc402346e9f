/**
 * The job runner (src/jobs) on both of its backends, the same scenarios each: the database alone (no Redis), and
 * BullMQ on the real Redis under a prefix of this test's own. Recurring jobs: one job run once per interval by two
 * runners sharing the store (and Redis); a paused job not run. Ordered deliveries (a lane over the alert deliveries'
 * rows): a group's items in order although its head is retried first; an item queued before a runner stopped run by
 * the next runner started. On the database the recurring slots follow an injected clock, ticked by the test; BullMQ
 * keeps Redis's time, so there intervals are short and the test waits for runs, never for time.
 */
import { SILENT_LOGGER } from '../src/platform/logger.js';
import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deliveryStore, type LaneDelivery } from '../src/alerts/delivery-lane.js';
import { DeliveryQueue, type Outcome } from '../src/alerts/queue.js';
import type { AlertTables } from '../src/alerts/schema.js';
import { Subscriptions } from '../src/alerts/subscriptions.js';
import { addJob, createJobRunner, setJobPaused, type JobRunner, type LaneSpec } from '../src/jobs/index.js';
import { DbRecurring } from '../src/jobs/recurring-db.js';
import { TEST_REDIS_URL, deletePrefix, redisAvailable, uniquePrefix } from './support/redis.js';
import { engineAvailable, openTestStore, type TestStore } from './support/stores.js';

const BACKENDS = ['database', 'bullmq'] as const;
type Backend = (typeof BACKENDS)[number];
const available = (b: Backend) => engineAvailable('sqlite') && (b === 'database' || redisAvailable);

/** Recurring interval on BullMQ (real time); the database's is on the injected clock. */
const INTERVAL_MS = 200;
const silent = SILENT_LOGGER;

/** Something that happened, and waiting until enough of it has. */
class Events<T> {
  readonly seen: T[] = [];
  private readonly waiters: (() => void)[] = [];

  push(e: T): void {
    this.seen.push(e);
    for (const w of this.waiters.splice(0)) w();
  }

  /** Resolves once `done(seen)` holds (checked on every push). */
  until(what: string, done: (seen: T[]) => boolean, ms = 10_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what} (have ${this.seen.length})`)), ms);
      const check = () => {
        if (!done(this.seen)) return void this.waiters.push(check);
        clearTimeout(timer);
        resolve();
      };
      check();
    });
  }
}

describe.each(BACKENDS)('job runner on the %s backend', (backend) => {
  let store: TestStore;
  let prefix: string;
  let now: number;
  const runners: JobRunner[] = [];

  beforeEach(async () => {
    if (!available(backend)) return;
    store = await openTestStore('sqlite');
    prefix = uniquePrefix();
    now = 1_000_000;
  });
  afterEach(async () => {
    if (!available(backend)) return;
    await Promise.all(runners.splice(0).map((r) => r.stop()));
    await store.close();
    if (backend === 'bullmq') await deletePrefix(prefix);
  });

  /** A runner on the shared store (and Redis); `clocked`: the database backend on the test's clock. */
  function runner(clocked: boolean): JobRunner {
    const r = createJobRunner({
      config:
        backend === 'bullmq'
          ? { redisUrl: TEST_REDIS_URL, redisPrefix: prefix }
          : { redisUrl: undefined, redisPrefix: '' },
      db: store.db,
      ...(clocked ? { clock: () => now } : {}),
      // The database is ticked by the test; BullMQ syncs the job table at start (and when told it changed).
      recurringPollMs: 60_000,
    });
    runners.push(r);
    return r;
  }

  /**
   * Lets recurring jobs run until `done` holds: on the database each runner ticks at the clock's slot and then the
   * clock moves one interval on; on BullMQ the runners are started and Redis's time goes by.
   */
  async function runRecurring<T>(rs: JobRunner[], runs: Events<T>, done: (seen: T[]) => boolean): Promise<void> {
    if (backend === 'bullmq') {
      for (const r of rs) r.start();
      return runs.until('recurring runs', done, 15_000);
    }
    for (let slot = 0; !done(runs.seen); slot++) {
      if (slot > 100) throw new Error('recurring runs never came');
      for (const r of rs) {
        if (!(r.recurring instanceof DbRecurring)) throw new Error('expected the database backend');
        await r.recurring.tick();
      }
      for (const r of rs) await (r.recurring as DbRecurring).idle();
      now += INTERVAL_MS;
    }
  }

  /** The clock recurring runs are stamped with: the injected one on the database, Redis's (the wall) on BullMQ. */
  const clock = () => (backend === 'bullmq' ? Date.now() : now);

  it.skipIf(!available(backend))('a recurring job runs once per interval across two runners', async () => {
    const runs = new Events<{ at: number; by: string }>();
    const [a, b] = [runner(true), runner(true)];
    a.handle('track', async () => runs.push({ at: clock(), by: 'a' }));
    b.handle('track', async () => runs.push({ at: clock(), by: 'b' }));
    await addJob(store.db, { kind: 'track', payload: {}, intervalMs: INTERVAL_MS }, now);
    const started = clock();
    await runRecurring([a, b], runs, (seen) => seen.length >= 6);
    const elapsed = clock() - started;
    // One run per slot: two runners each running every slot would make 6 runs in half the time.
    expect(runs.seen.length).toBeLessThanOrEqual(Math.floor(elapsed / INTERVAL_MS) + 2);
    if (backend === 'database') {
      // The clock is the test's: exactly one run per slot, a slot apart.
      expect(runs.seen.map((r) => r.at - started)).toEqual([0, 1, 2, 3, 4, 5].map((n) => n * INTERVAL_MS));
    }
  });

  it.skipIf(!available(backend))('a paused job does not run while another job keeps its cadence', async () => {
    const runs = new Events<string>();
    const r = runner(true);
    r.handle('track', async (job) => runs.push(job.id));
    const steady = await addJob(store.db, { kind: 'track', payload: {}, intervalMs: INTERVAL_MS }, now);
    const held = await addJob(store.db, { kind: 'track', payload: {}, intervalMs: INTERVAL_MS }, now);
    await setJobPaused(store.db, held.id, true, undefined, now);
    await runRecurring([r], runs, (seen) => seen.filter((id) => id === steady.id).length >= 4);
    expect(runs.seen.filter((id) => id === held.id)).toEqual([]);
  });

  /** A lane over the alert deliveries' rows whose runs answer with `answer` and record each attempt once recorded. */
  async function deliveries() {
    const db = store.db as unknown as Kysely<AlertTables>;
    const queue = new DeliveryQueue(db);
    const sub = await new Subscriptions(db).create('key-a', {
      url: 'https://receiver.invalid/hook',
      events: ['price.changed'],
      filter: {},
      description: null,
    });
    const attempts = new Events<{ payload: string; attempt: number; by: string }>();
    const spec = (by: string, answer: (c: LaneDelivery) => Outcome): LaneSpec<LaneDelivery> => ({
      name: 'deliveries',
      label: 'test',
      store: deliveryStore(queue),
      run: async (c) => {
        const outcome = answer(c);
        const recorded = await queue.complete(c, outcome);
        attempts.push({ payload: c.payload, attempt: c.attempts, by });
        return recorded ? outcome : undefined;
      },
      timing: {
        // Only BullMQ moves items on the bullmq backend: its database sweep is 10 min away.
        pollMs: backend === 'bullmq' ? 600_000 : 20,
        sweepMs: 600_000,
        leaseMs: 5_000,
        concurrency: 4,
        deferMs: 100,
      },
      log: silent,
    });
    const enqueue = async (lane: { queued(items: { id: string; group: string }[]): void }, ...payloads: string[]) => {
      const queued = await queue.enqueue(
        payloads.map((payload) => ({ subscriptionId: sub.id, eventType: 't', payload })),
      );
      lane.queued(queued.map((q) => ({ id: q.id, group: q.subscriptionId })));
    };
    const delivered = { kind: 'delivered', responseCode: 204, latencyMs: 1 } as const;
    const retryIn = (ms: number): Outcome => ({
      kind: 'retry',
      nextAttemptAt: Date.now() + ms,
      responseCode: 503,
      latencyMs: 1,
      error: 'HTTP 503',
    });
    return { sub, queue, attempts, spec, enqueue, delivered, retryIn };
  }

  it.skipIf(!available(backend))("one group's items run in order, its head retried first", async () => {
    const { attempts, spec, enqueue, delivered, retryIn } = await deliveries();
    const r = runner(false);
    const lane = r.lane(spec('a', (c) => (c.payload === 'first' && c.attempts < 3 ? retryIn(50) : delivered)));
    r.start();
    await enqueue(lane, 'first', 'second', 'third');
    await attempts.until('every item delivered', (seen) => seen.length >= 5);
    expect(attempts.seen.map((a) => `${a.payload}#${a.attempt}`)).toEqual([
      'first#1',
      'first#2',
      'first#3',
      'second#1',
      'third#1',
    ]);
  });

  it.skipIf(!available(backend))('an item queued before stop() runs once a new runner starts', async () => {
    const { queue, attempts, spec, enqueue, delivered, retryIn } = await deliveries();
    // The first runner's receiver is down: its head is retried, and the item behind it waits.
    const first = runner(false);
    const lane = first.lane(spec('first', () => retryIn(100)));
    first.start();
    await enqueue(lane, 'one');
    await attempts.until('the first attempt', (seen) => seen.length >= 1);
    await enqueue(lane, 'two');
    await first.stop();
    const before = attempts.seen.length;
    expect(await queue.pendingCount()).toBe(2);

    const second = runner(false);
    second.lane(spec('second', () => delivered));
    second.start();
    await attempts.until('both delivered by the new runner', (seen) => seen.length >= before + 2);
    expect(attempts.seen.slice(before).map((a) => `${a.payload} by ${a.by}`)).toEqual([
      'one by second',
      'two by second',
    ]);
    expect(await queue.pendingCount()).toBe(0);
  });
});

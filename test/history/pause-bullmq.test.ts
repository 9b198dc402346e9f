/**
 * Pausing with the clustered scheduler (BullMQ on Redis at 127.0.0.1:6379): a paused job has no job scheduler, so it
 * never fires while another job on the same queue keeps its cadence; resumed, it runs again; paused while running,
 * it stops. Intervals are scaled down to 150 ms; the test waits on runs, not on time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BullmqRecurring } from '../../src/jobs/recurring-bullmq.js';
import { addJob, setJobPaused } from '../../src/jobs/index.js';
import { deletePrefix, redisAvailable, TEST_REDIS_URL, uniquePrefix } from '../support/redis.js';
import { engineAvailable, openTestStore, type TestStore } from '../support/stores.js';

const INTERVAL_MS = 150;

/** Resolves once `count()` reaches `n` (checked on every run the handler records). */
function runsReach(count: () => number, n: number, waiters: Array<() => void>, ms = 8000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${n} runs (have ${count()})`)), ms);
    const check = () => {
      if (count() < n) return waiters.push(check);
      clearTimeout(timer);
      resolve();
    };
    check();
  });
}

describe.skipIf(!redisAvailable || !engineAvailable('sqlite'))('BullMQ scheduler and paused jobs', () => {
  const prefix = uniquePrefix();
  let store: TestStore;
  let scheduler: BullmqRecurring;
  const runs: string[] = [];
  const waiters: Array<() => void> = [];
  const ran = (id: string) => () => runs.filter((r) => r === id).length;

  beforeAll(async () => {
    store = await openTestStore('sqlite');
    scheduler = new BullmqRecurring(store.db, { redisUrl: TEST_REDIS_URL, prefix, syncMs: 60_000 });
    scheduler.handle('track', async (job) => {
      runs.push(job.id);
      for (const w of waiters.splice(0)) w();
    });
  });
  afterAll(async () => {
    await scheduler?.stop();
    await store?.close();
    await deletePrefix(prefix);
  });

  it('does not fire a paused job; resumed it runs; paused while running it stops', async () => {
    const steady = await addJob(store.db, { kind: 'track', payload: {}, intervalMs: INTERVAL_MS });
    const held = await addJob(store.db, { kind: 'track', payload: {}, intervalMs: INTERVAL_MS });
    await setJobPaused(store.db, held.id, true);
    scheduler.start();

    await runsReach(ran(steady.id), 4, waiters);
    expect(ran(held.id)()).toBe(0);

    await setJobPaused(store.db, held.id, false);
    await scheduler.sync();
    await runsReach(ran(held.id), 2, waiters);

    await setJobPaused(store.db, held.id, true);
    await scheduler.sync();
    const heldRuns = ran(held.id)();
    await runsReach(ran(steady.id), ran(steady.id)() + 4, waiters);
    expect(ran(held.id)()).toBe(heldRuns);
  }, 15_000);
});

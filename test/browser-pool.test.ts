/**
 * The browser tier's page pool without a browser (stand-in pages): the bound, the max-concurrency counter,
 * round-robin fairness between marketplaces, aborted waiters, page reuse and eviction.
 */
import { describe, expect, it } from 'vitest';
import { PagePool } from '../src/upstream/browser/page-pool.js';

class FakePage {
  closed = false;
  constructor(readonly id: number) {}
  isClosed(): boolean {
    return this.closed;
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

function opener(): { open: () => Promise<FakePage>; opened: FakePage[] } {
  const opened: FakePage[] = [];
  return {
    opened,
    open: async () => {
      const p = new FakePage(opened.length + 1);
      opened.push(p);
      return p;
    },
  };
}

/** A signal that never fires (a fresh one per call, as each lookup has its own). */
const live = (): AbortSignal => new AbortController().signal;
const tick = (ms = 0): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('page pool', () => {
  it('never has more than its size busy under 20 concurrent users, and the counter shows it full', async () => {
    const pool = new PagePool<FakePage>(4);
    const { open } = opener();
    let busy = 0;
    let max = 0;
    await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const lease = await pool.acquire(i % 2 ? 'resale-a' : 'watchmarket', live(), open);
        busy++;
        max = Math.max(max, busy);
        await tick(5 + (i % 3));
        busy--;
        lease.release(true);
      }),
    );
    expect(max).toBe(4);
    expect(pool.stats()).toMatchObject({ size: 4, busy: 0, waiting: 0, peak: 4 });
    expect(pool.stats().idle).toBeLessThanOrEqual(4);
  });

  it('serves waiting marketplaces round-robin, oldest first within one', async () => {
    const pool = new PagePool<FakePage>(1);
    const { open } = opener();
    const first = await pool.acquire('watchmarket', live(), open);
    const order: string[] = [];
    const wait = (key: string, name: string): Promise<void> =>
      pool.acquire(key, live(), open).then(async (lease) => {
        order.push(name);
        await tick();
        lease.release(true);
      });
    const all = [
      wait('watchmarket', 'w1'),
      wait('watchmarket', 'w2'),
      wait('watchmarket', 'w3'),
      wait('resale-a', 'a1'),
      wait('resale-a', 'a2'),
    ];
    expect(pool.stats().waiting).toBe(5);
    first.release(true);
    await Promise.all(all);
    expect(order).toEqual(['w1', 'a1', 'w2', 'a2', 'w3']);
  });

  it('an aborted waiter leaves the queue with its reason and takes no slot', async () => {
    const pool = new PagePool<FakePage>(1);
    const { open } = opener();
    const held = await pool.acquire('resale-b', live(), open);
    const ac = new AbortController();
    const waiting = pool.acquire('resale-b', ac.signal, open);
    ac.abort(new Error('deadline'));
    await expect(waiting).rejects.toThrow('deadline');
    expect(pool.stats()).toMatchObject({ busy: 1, waiting: 0 });
    held.release(true);
    expect(pool.stats().busy).toBe(0);
    await expect(pool.acquire('resale-b', AbortSignal.abort(new Error('late')), open)).rejects.toThrow('late');
  });

  it('reuses an idle page of the same marketplace, evicts another marketplace’s idle page when full, and closes dropped pages', async () => {
    const pool = new PagePool<FakePage>(2);
    const { open, opened } = opener();
    const a = await pool.acquire('watchmarket', live(), open);
    const b = await pool.acquire('watchmarket', live(), open);
    a.release(true);
    b.release(false); // a failed page is never reused
    expect(opened[1]!.closed).toBe(true);
    b.release(true); // idempotent: no double free
    expect(pool.stats()).toMatchObject({ busy: 0, idle: 1 });

    const again = await pool.acquire('watchmarket', live(), open);
    expect(again.page).toBe(opened[0]); // reused, not reopened
    again.release(true);

    const other = await pool.acquire('resale-a', live(), open);
    const other2 = await pool.acquire('resale-a', live(), open);
    expect(opened[0]!.closed).toBe(true); // evicted so busy + idle stays within the size
    expect(pool.stats()).toMatchObject({ busy: 2, idle: 0 });
    other.release(true);
    other2.release(true);
    pool.drop('resale-a');
    expect(opened.slice(2).every((p) => p.closed)).toBe(true);
    expect(pool.stats().idle).toBe(0);
  });

  it('gives the slot back when a page cannot be opened', async () => {
    const pool = new PagePool<FakePage>(1);
    await expect(pool.acquire('sportswear', live(), () => Promise.reject(new Error('browser died')))).rejects.toThrow(
      'browser died',
    );
    expect(pool.stats().busy).toBe(0);
    const { open } = opener();
    const lease = await pool.acquire('sportswear', live(), open);
    expect(lease.page.id).toBe(1);
  });
});

import { describe, expect, it } from 'vitest';
import { MarketplaceLimiter } from './limiter.js';

describe('MarketplaceLimiter', () => {
  it('queues up to maxQueue, refuses beyond with overloaded, and a waiter leaves the queue when its deadline fires', async () => {
    const limiter = new MarketplaceLimiter('resale-b', { concurrency: 1, minIntervalMs: 0, maxQueue: 1 });
    let release!: () => void;
    const first = limiter.run(new AbortController().signal, () => new Promise<void>((r) => (release = r)));
    const ac = new AbortController();
    const second = limiter.run(ac.signal, async () => 'ran');
    await expect(limiter.run(new AbortController().signal, async () => 'x')).rejects.toMatchObject({
      code: 'overloaded',
    });
    ac.abort(new Error('deadline'));
    await expect(second).rejects.toThrow('deadline');
    expect(limiter.queued).toBe(0);
    const third = limiter.run(new AbortController().signal, async () => 'third');
    release();
    await first;
    await expect(third).resolves.toBe('third');
  });
});

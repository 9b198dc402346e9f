import { describe, expect, it } from 'vitest';
import { isScheduledDeferral, Lane } from './lane.js';
import { MarketplaceLimiter, type LimiterOptions } from './limiter.js';

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
    expect(limiter.queued).toEqual({ interactive: 0, scheduled: 0 });
    const third = limiter.run(new AbortController().signal, async () => 'third');
    release();
    await first;
    await expect(third).resolves.toBe('third');
  });
});

describe('MarketplaceLimiter lanes', () => {
  const never = () => new AbortController().signal;
  const limiterWith = (o: Partial<LimiterOptions>) =>
    new MarketplaceLimiter('resale-b', {
      concurrency: 1,
      minIntervalMs: 0,
      maxQueue: 100,
      scheduledMaxQueue: 100,
      ...o,
    });
  /** Takes the one slot until `free` is called, so everything after it queues. */
  function occupy(limiter: MarketplaceLimiter, lane?: Lane) {
    let free!: () => void;
    const held = new Promise<void>((r) => (free = r));
    const done = limiter.run(never(), () => held, lane);
    return { done, free };
  }
  /** A lookup that records when it got its slot and gives it back at once (the slot passes to the next waiter). */
  const lookup = (limiter: MarketplaceLimiter, order: string[], name: string, lane?: Lane) =>
    limiter.run(never(), async () => void order.push(name), lane);

  it('a freed slot goes to the oldest interactive waiter first; scheduled keeps 1 turn in 5 while both wait, all of them when alone', async () => {
    const limiter = limiterWith({});
    const order: string[] = [];
    const first = occupy(limiter);
    const all = [
      ...Array.from({ length: 4 }, (_, i) => lookup(limiter, order, `s${i}`, new Lane('scheduled'))),
      ...Array.from({ length: 8 }, (_, i) => lookup(limiter, order, `i${i}`)),
    ];
    expect(limiter.queued).toEqual({ interactive: 8, scheduled: 4 });
    first.free();
    await Promise.all([first.done, ...all]);
    expect(order).toEqual(['i0', 'i1', 'i2', 'i3', 's0', 'i4', 'i5', 'i6', 'i7', 's1', 's2', 's3']);
  });

  it('past scheduledMaxQueue a scheduled lookup is deferred, and the interactive queue stays free', async () => {
    const limiter = limiterWith({ maxQueue: 1, scheduledMaxQueue: 2 });
    const order: string[] = [];
    const first = occupy(limiter, new Lane('scheduled'));
    const queued = [
      lookup(limiter, order, 's0', new Lane('scheduled')),
      lookup(limiter, order, 's1', new Lane('scheduled')),
    ];
    const refused = limiter.run(never(), async () => 'ran', new Lane('scheduled'));
    await expect(refused).rejects.toSatisfy(isScheduledDeferral);
    await expect(refused).rejects.toMatchObject({ code: 'overloaded' });
    const interactive = lookup(limiter, order, 'interactive');
    expect(limiter.queued).toEqual({ interactive: 1, scheduled: 2 });
    first.free();
    await Promise.all([first.done, interactive, ...queued]);
    expect(order).toEqual(['interactive', 's0', 's1']);
  });

  it('a promoted scheduled waiter moves to the back of the interactive queue', async () => {
    const limiter = limiterWith({});
    const order: string[] = [];
    const first = occupy(limiter);
    const lane = new Lane('scheduled');
    const all = [
      lookup(limiter, order, 's0', new Lane('scheduled')),
      lookup(limiter, order, 'promoted', lane),
      lookup(limiter, order, 'i0'),
    ];
    lane.promote();
    expect(limiter.queued).toEqual({ interactive: 2, scheduled: 1 });
    first.free();
    await Promise.all([first.done, ...all]);
    expect(order).toEqual(['i0', 'promoted', 's0']);
  });

  it('wire starts: after the minimum interval an interactive request goes before scheduled ones already waiting', async () => {
    const limiter = limiterWith({ concurrency: 10, minIntervalMs: 5 });
    const order: string[] = [];
    const start = (name: string, lane?: Lane) => limiter.pace(never(), lane).then(() => void order.push(name));
    await Promise.all([
      start('s0', new Lane('scheduled')),
      start('s1', new Lane('scheduled')),
      start('s2', new Lane('scheduled')),
      start('i0'),
    ]);
    expect(order).toEqual(['s0', 'i0', 's1', 's2']);
  });

  it('wire starts: each one at least the minimum interval after the previous one', async () => {
    const limiter = limiterWith({ concurrency: 10, minIntervalMs: 40 });
    const granted: number[] = [];
    await Promise.all(
      Array.from({ length: 4 }, () => limiter.pace(never()).then(() => void granted.push(performance.now()))),
    );
    // Timers never fire early (the limiter counts whole milliseconds of Date.now, hence up to 2 ms short on performance.now); each grant sets the next start from its own
    // time, so a late timer pushes the later starts back rather than bunching them.
    for (let i = 1; i < granted.length; i++) expect(granted[i]! - granted[i - 1]!).toBeGreaterThanOrEqual(38);
    expect(granted.at(-1)! - granted[0]!).toBeGreaterThanOrEqual(3 * 40 - 3);
  });
});

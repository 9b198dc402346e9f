/**
 * Politeness per marketplace: at most `concurrency` lookups talk to it at once, wire requests start at least
 * `minIntervalMs` apart, and at most `maxQueue` interactive lookups wait — beyond that 503 `overloaded` at once, so a
 * flood cannot pile up behind a slow marketplace. Waiting spends from the lookup's deadline.
 *
 * Two lanes (lane.ts, lane-queue.ts): a slot and a wire start go to a waiting interactive lookup before a waiting
 * scheduled one (with 1 turn in SCHEDULED_TURN_EVERY kept for scheduled work while both wait), and scheduled lookups
 * wait in a queue of their own of at most `scheduledMaxQueue`: past it a scheduled lookup is refused with
 * ScheduledDeferral (its job runs again next interval), never taking a place an interactive caller needs.
 */
import { MarketlensError } from '../errors.js';
import { ScheduledDeferral, type Lane } from './lane.js';
import { LaneQueue } from './lane-queue.js';

export interface LimiterOptions {
  concurrency: number;
  minIntervalMs: number;
  maxQueue: number;
  /** How many scheduled lookups may wait (their own queue; default: none). */
  scheduledMaxQueue?: number;
}

/** A lookup waiting for a slot or a wire start. */
interface Waiter {
  readonly lane?: Lane;
  /** Gives the waiter its turn (and forgets its listeners). */
  grant(): void;
}

export class MarketplaceLimiter {
  private active = 0;
  private readonly slots = new LaneQueue<Waiter>();
  private readonly starts = new LaneQueue<Waiter>();
  private nextStart = 0;
  private startTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly name: string,
    private readonly opts: LimiterOptions,
  ) {}

  /**
   * Runs `fn` holding a concurrency slot; `lane` absent = interactive.
   * @example await limiter.run(signal, () => fetchSomething(), ctx.lane)
   */
  async run<T>(signal: AbortSignal, fn: () => Promise<T>, lane?: Lane): Promise<T> {
    await this.acquire(signal, lane);
    try {
      return await fn();
    } finally {
      this.release();
    }
  }

  /** Resolves when the next wire request may start (minimum interval between starts; interactive lane first). */
  pace(signal: AbortSignal, lane?: Lane): Promise<void> {
    if (this.opts.minIntervalMs <= 0) return Promise.resolve();
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.starts.length === 0 && Date.now() >= this.nextStart) {
      this.nextStart = Date.now() + this.opts.minIntervalMs;
      return Promise.resolve();
    }
    const wait = this.wait(this.starts, signal, lane);
    this.armStartTimer();
    return wait;
  }

  /** Lookups waiting for a slot, by lane. */
  get queued(): { interactive: number; scheduled: number } {
    return { interactive: this.slots.size('interactive'), scheduled: this.slots.size('scheduled') };
  }

  private acquire(signal: AbortSignal, lane: Lane | undefined): Promise<void> {
    signal.throwIfAborted();
    if (this.active < this.opts.concurrency) {
      this.active += 1;
      return Promise.resolve();
    }
    if (lane?.name === 'scheduled') {
      const waiting = this.slots.size('scheduled');
      if (waiting >= (this.opts.scheduledMaxQueue ?? 0))
        return Promise.reject(new ScheduledDeferral(this.name, waiting));
    } else if (this.slots.size('interactive') >= this.opts.maxQueue) {
      return Promise.reject(
        new MarketlensError(
          'overloaded',
          `${this.name} has ${this.slots.size('interactive')} requests queued already`,
          { retryAfter: 1 },
        ),
      );
    }
    return this.wait(this.slots, signal, lane);
  }

  private release(): void {
    const next = this.slots.next();
    if (next)
      next.grant(); // the slot passes straight to the next waiter
    else this.active -= 1;
  }

  /** Queues a waiter until `grant`; its deadline takes it out, a promotion moves it to the interactive queue. */
  private wait(queue: LaneQueue<Waiter>, signal: AbortSignal, lane: Lane | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        forget();
        queue.remove(waiter);
        reject(signal.reason);
      };
      const stopListening = lane?.name === 'scheduled' ? lane.onPromote(() => queue.promote(waiter)) : undefined;
      const forget = () => {
        signal.removeEventListener('abort', onAbort);
        stopListening?.();
      };
      const waiter: Waiter = {
        lane,
        grant: () => {
          forget();
          resolve();
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      queue.push(waiter);
    });
  }

  /** One timer for the whole start queue: at `nextStart` the next waiter's request may go. */
  private armStartTimer(): void {
    if (this.startTimer) return;
    this.startTimer = setTimeout(
      () => {
        this.startTimer = undefined;
        const next = this.starts.next();
        if (!next) return;
        this.nextStart = Date.now() + this.opts.minIntervalMs;
        next.grant();
        if (this.starts.length > 0) this.armStartTimer();
      },
      Math.max(0, this.nextStart - Date.now()),
    );
  }
}

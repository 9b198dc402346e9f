/**
 * Politeness per marketplace: at most `concurrency` lookups talk to it at once, wire requests start at least
 * `minIntervalMs` apart, and at most `maxQueue` lookups wait — beyond that 503 `overloaded` at once, so a flood
 * cannot pile up behind a slow marketplace. Waiting spends from the lookup's deadline.
 */
import { MarketlensError } from '../errors.js';
import { sleep } from './retry.js';

export interface LimiterOptions {
  concurrency: number;
  minIntervalMs: number;
  maxQueue: number;
}

export class MarketplaceLimiter {
  private active = 0;
  private readonly waiting: { resolve: () => void; reject: (e: unknown) => void; signal: AbortSignal }[] = [];
  private nextStart = 0;
  private paceChain: Promise<void> = Promise.resolve();

  constructor(
    private readonly name: string,
    private readonly opts: LimiterOptions,
  ) {}

  /**
   * Runs `fn` holding a concurrency slot.
   * @example await limiter.run(signal, () => fetchSomething())
   */
  async run<T>(signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
    await this.acquire(signal);
    try {
      return await fn();
    } finally {
      this.release();
    }
  }

  /** Resolves when the next wire request may start (minimum interval between starts). */
  pace(signal: AbortSignal): Promise<void> {
    if (this.opts.minIntervalMs <= 0) return Promise.resolve();
    const turn = this.paceChain.then(async () => {
      const wait = this.nextStart - Date.now();
      if (wait > 0) await sleep(wait, signal);
      this.nextStart = Date.now() + this.opts.minIntervalMs;
    });
    // A waiter aborted by its deadline must not stall the ones behind it.
    this.paceChain = turn.catch(() => undefined);
    return turn;
  }

  get queued(): number {
    return this.waiting.length;
  }

  private acquire(signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    if (this.active < this.opts.concurrency) {
      this.active += 1;
      return Promise.resolve();
    }
    if (this.waiting.length >= this.opts.maxQueue) {
      return Promise.reject(
        new MarketlensError('overloaded', `${this.name} has ${this.waiting.length} requests queued already`, {
          retryAfter: 1,
        }),
      );
    }
    return new Promise<void>((resolve, reject) => {
      const entry = { resolve, reject, signal };
      const onAbort = () => {
        const i = this.waiting.indexOf(entry);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(signal.reason);
      };
      entry.resolve = () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(entry);
    });
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next)
      next.resolve(); // the slot passes straight to the next waiter
    else this.active -= 1;
  }
}

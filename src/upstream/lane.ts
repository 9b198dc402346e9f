/**
 * Which lane a lookup waits in for its marketplace's upstream slots (limiter.ts). Interactive lookups (a caller is
 * waiting for the answer) go before scheduled ones (tracked-product refreshes, canaries: nobody waits on them), and
 * scheduled lookups have a queue of their own, so a schedule of thousands never fills the queue callers are refused
 * by.
 *
 * A lookup's lane travels in its RequestContext from LookupService to the limiter (never through a global). It can
 * change once, one way: when an interactive caller joins a scheduled lookup's fetch of the same record (single
 * flight, src/cache/lookup-cache.ts), the fetch is promoted, and a waiting one moves to the interactive queue.
 */
import { MarketlensError } from '../errors.js';

export type LaneName = 'interactive' | 'scheduled';

export class Lane {
  private listeners: (() => void)[] = [];

  constructor(private current: LaneName = 'interactive') {}

  get name(): LaneName {
    return this.current;
  }

  /** From now on interactive (an interactive caller waits for this fetch); tells whoever holds it waiting. */
  promote(): void {
    if (this.current === 'interactive') return;
    this.current = 'interactive';
    const listeners = this.listeners;
    this.listeners = [];
    for (const l of listeners) l();
  }

  /** Calls `listener` once on promotion; returns a function that forgets it (the waiter left the queue). */
  onPromote(listener: () => void): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }
}

/**
 * The scheduled lane of a marketplace is full: this refresh is skipped until its job's next interval. Not a failure
 * of the marketplace nor of the lookup (nothing was fetched): the client counts it (`scheduled_deferred`) and logs it
 * once, the job handlers swallow it, and it never reaches the after-fetch seam.
 */
export class ScheduledDeferral extends MarketlensError {
  readonly deferred = true;

  constructor(marketplace: string, waiting: number) {
    super(
      'overloaded',
      `${marketplace} has ${waiting} scheduled lookups queued already: this one waits for its next interval`,
      { retryAfter: 1, logContext: { lane: 'scheduled' } },
    );
  }
}

export function isScheduledDeferral(e: unknown): e is ScheduledDeferral {
  return e instanceof ScheduledDeferral;
}

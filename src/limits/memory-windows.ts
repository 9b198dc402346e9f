/**
 * Fixed-window counters in process memory, synchronous: the in-memory limits (rate and usage) answer without a
 * promise, so a cached lookup's guard runs in one pass. Same semantics as rate-limiter-flexible's memory limiter,
 * which the Redis path keeps using: a window starts at a key's first count and lasts its duration; counting past a
 * limit still counts (the caller compares).
 */

export interface WindowCount {
  /** Counted in the current window (0 when none is open). */
  points: number;
  /** Milliseconds until the current window ends (0 when none is open). */
  msBeforeNext: number;
}

interface Window {
  points: number;
  endsAt: number;
}

/** Expired windows are dropped on access, and in a sweep once the map has grown by this many since the last one. */
const SWEEP_EVERY = 1024;

export class MemoryWindows {
  private readonly windows = new Map<string, Window>();
  private addedSinceSweep = 0;

  /** Adds `points` to `key`'s window, opening one of `durationMs` if none is open. */
  add(key: string, points: number, durationMs: number, now = Date.now()): WindowCount {
    let w = this.open(key, now);
    if (!w) {
      w = { points: 0, endsAt: now + durationMs };
      this.windows.set(key, w);
      if (++this.addedSinceSweep >= SWEEP_EVERY) this.sweep(now);
    }
    w.points += points;
    return { points: w.points, msBeforeNext: w.endsAt - now };
  }

  get(key: string, now = Date.now()): WindowCount {
    const w = this.open(key, now);
    return w ? { points: w.points, msBeforeNext: w.endsAt - now } : { points: 0, msBeforeNext: 0 };
  }

  /** Replaces `key`'s count with a window of `durationMs` from now. */
  set(key: string, points: number, durationMs: number, now = Date.now()): void {
    this.windows.set(key, { points, endsAt: now + durationMs });
  }

  private open(key: string, now: number): Window | undefined {
    const w = this.windows.get(key);
    if (w && w.endsAt <= now) {
      this.windows.delete(key);
      return undefined;
    }
    return w;
  }

  private sweep(now: number): void {
    this.addedSinceSweep = 0;
    for (const [k, w] of this.windows) if (w.endsAt <= now) this.windows.delete(k);
  }
}

/**
 * A bounded pool of browser pages shared by every marketplace. At most `size` pages exist at once (busy + idle);
 * waiting lookups are served round-robin by marketplace, so a burst on one site cannot starve another. Idle pages
 * are kept per marketplace (they sit on the site's origin, ready for in-page API calls) and evicted when another
 * marketplace needs the slot.
 */

/** The part of a Playwright Page the pool needs (tests use stand-ins). */
export interface PooledPage {
  isClosed(): boolean;
  close(): Promise<void>;
}

export interface Lease<P extends PooledPage> {
  readonly page: P;
  /** Gives the slot back; `reuse` keeps the page for the next lookup of the same marketplace. Idempotent. */
  release(reuse: boolean): void;
}

export interface PoolStats {
  size: number;
  busy: number;
  idle: number;
  waiting: number;
  /** Most pages ever busy at once (the max-concurrency counter). */
  peak: number;
}

interface Waiter {
  grant: () => void;
}

export class PagePool<P extends PooledPage> {
  private busy = 0;
  private peak = 0;
  private readonly idle = new Map<string, P[]>();
  private readonly waiters = new Map<string, Waiter[]>();
  /** Keys with waiters, in service order: the head is served next, then goes to the back if it still waits. */
  private readonly rotation: string[] = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`pool size must be a positive integer, got ${size}`);
  }

  /**
   * Waits for a slot (aborted by `signal`), then hands out an idle page of `key` or a new one from `open`.
   * @example const lease = await pool.acquire('watchmarket', signal, () => context.newPage()); … lease.release(true)
   */
  async acquire(key: string, signal: AbortSignal, open: () => Promise<P>): Promise<Lease<P>> {
    signal.throwIfAborted();
    // Queue behind earlier waiters even when a slot looks free: first come, first served within a marketplace.
    if (this.busy >= this.size || this.rotation.length > 0)
      await this.wait(key, signal); // the slot is handed over
    else this.busy++;
    this.peak = Math.max(this.peak, this.busy);
    let page: P;
    try {
      page = this.takeIdle(key) ?? (this.evictForNew(), await open());
    } catch (e) {
      this.free();
      throw e;
    }
    let released = false;
    const lease: Lease<P> = {
      page,
      release: (reuse) => {
        if (released) return;
        released = true;
        if (reuse && !page.isClosed()) this.idlePages(key).push(page);
        else void page.close().catch(() => undefined);
        this.free();
      },
    };
    if (signal.aborted) {
      lease.release(true);
      signal.throwIfAborted();
    }
    return lease;
  }

  /** Forgets (and closes) the idle pages of `key`, e.g. when its browser context went away. */
  drop(key: string): void {
    for (const p of this.idle.get(key) ?? []) void p.close().catch(() => undefined);
    this.idle.delete(key);
  }

  stats(): PoolStats {
    let idle = 0;
    for (const list of this.idle.values()) idle += list.length;
    let waiting = 0;
    for (const list of this.waiters.values()) waiting += list.length;
    return { size: this.size, busy: this.busy, idle, waiting, peak: this.peak };
  }

  /** Starts a new measuring window for `peak` (tests, metrics). */
  resetPeak(): void {
    this.peak = this.busy;
  }

  private wait(key: string, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        const list = this.waiters.get(key);
        const i = list?.indexOf(waiter) ?? -1;
        if (list && i >= 0) list.splice(i, 1);
        if (list?.length === 0) this.forgetKey(key);
        reject(signal.reason);
      };
      const waiter: Waiter = {
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      let list = this.waiters.get(key);
      if (!list) {
        list = [];
        this.waiters.set(key, list);
        this.rotation.push(key);
      }
      list.push(waiter);
    });
  }

  /**
   * A slot came free: the next marketplace in the rotation gets it (its oldest waiter). The slot is handed over
   * synchronously (busy stays counted), so no newcomer can slip in before the waiter resumes.
   */
  private free(): void {
    const key = this.rotation.shift();
    if (key === undefined) {
      this.busy--;
      return;
    }
    const list = this.waiters.get(key)!;
    const next = list.shift()!;
    if (list.length > 0) this.rotation.push(key);
    else this.waiters.delete(key);
    next.grant();
  }

  private forgetKey(key: string): void {
    this.waiters.delete(key);
    const i = this.rotation.indexOf(key);
    if (i >= 0) this.rotation.splice(i, 1);
  }

  private idlePages(key: string): P[] {
    let list = this.idle.get(key);
    if (!list) {
      list = [];
      this.idle.set(key, list);
    }
    return list;
  }

  private takeIdle(key: string): P | undefined {
    const list = this.idle.get(key);
    while (list && list.length > 0) {
      const p = list.pop()!;
      if (!p.isClosed()) return p;
    }
    return undefined;
  }

  /** Keeps busy + idle ≤ size: a new page for one marketplace closes the oldest idle page (any marketplace). */
  private evictForNew(): void {
    let idle = 0;
    for (const list of this.idle.values()) idle += list.length;
    if (this.busy + idle <= this.size) return;
    for (const list of this.idle.values()) {
      const p = list.shift();
      if (p) {
        void p.close().catch(() => undefined);
        return;
      }
    }
  }
}

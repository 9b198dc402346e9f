/**
 * Cross-instance de-duplication: the instance that takes `<prefix>l:<key>` (SET NX PX) fetches; the others wait for
 * its notification on the `<prefix>flights` channel, then read the answer from the shared store.
 *
 * - The lock lives LOCK_TTL_MS and the leader extends it every LOCK_HEARTBEAT_MS while it fetches, so a crashed
 *   leader's lock disappears within seconds.
 * - A waiting instance re-tries the lock every LOCK_HEARTBEAT_MS even without a notification (the timeout fallback):
 *   when the leader died or a notification was lost, it takes over instead of waiting for its deadline.
 * - Any Redis failure makes `tryLock` answer `undefined`: the caller then fetches on its own, as in memory mode.
 * - The lock's value says whether its holder fetches for scheduled work (`s:` before the token): that fetch may wait
 *   in its instance's scheduled lane, so an interactive caller elsewhere fetches on its own instead of waiting for it.
 */
import { randomUUID } from 'node:crypto';
import type { ErrorCode } from '../errors.js';
import type { RedisConnection } from '../platform/redis-connection.js';

export const LOCK_TTL_MS = 3000;
export const LOCK_HEARTBEAT_MS = 1000;
/** Starts the lock's value when its holder fetches for scheduled work. */
const SCHEDULED_MARK = 's:';
const SUBSCRIBE_WAIT_MS = 1000;

/** What a leader tells the waiting instances. */
export type FlightOutcome = { ok: true } | { ok: false; code: ErrorCode; message: string };

/** Deletes or extends the lock only while it still holds our token (another leader may own it after expiry). */
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;
const EXTEND = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;

export interface FlightListener {
  /** The next outcome for the key, or 'timeout' after `ms`. */
  next(ms: number): Promise<FlightOutcome | 'timeout'>;
  close(): void;
}

export class RedisFlights {
  private readonly channel: string;
  private readonly lockPrefix: string;
  private readonly listeners = new Map<string, Set<(o: FlightOutcome) => void>>();
  private subscribing?: Promise<boolean>;
  private subscribed = false;
  private handlerAttached = false;

  constructor(private readonly redis: RedisConnection) {
    this.channel = `${redis.prefix}flights`;
    this.lockPrefix = `${redis.prefix}l:`;
  }

  /** Whether cross-instance coordination can be attempted now. */
  get usable(): boolean {
    return this.redis.isUp;
  }

  /** Subscribes ahead of the first lookup (not awaited: start-up never waits on Redis). */
  start(): void {
    void this.subscribe();
  }

  /**
   * Starts listening for `key` before the lock is tried, so an outcome published in between is not missed. Without
   * a working subscription the listener only ever times out, and the caller falls back to re-trying the lock.
   */
  async listen(key: string): Promise<FlightListener> {
    await this.subscribe();
    const queue: FlightOutcome[] = [];
    let wake: (() => void) | undefined;
    const onOutcome = (o: FlightOutcome) => {
      queue.push(o);
      wake?.();
    };
    let set = this.listeners.get(key);
    if (!set) this.listeners.set(key, (set = new Set()));
    set.add(onOutcome);
    return {
      next: async (ms) => {
        if (queue.length === 0) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, ms);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          wake = undefined;
        }
        return queue.shift() ?? 'timeout';
      },
      close: () => {
        set.delete(onOutcome);
        if (set.size === 0 && this.listeners.get(key) === set) this.listeners.delete(key);
      },
    };
  }

  /**
   * A token when we now hold the lock, null when another instance holds it, undefined when Redis failed. `scheduled`:
   * the fetch is scheduled work (heldForScheduled tells the other instances).
   */
  async tryLock(key: string, scheduled = false): Promise<string | null | undefined> {
    if (!this.redis.isUp) return undefined;
    const token = (scheduled ? SCHEDULED_MARK : '') + randomUUID();
    try {
      const ok = await this.redis.client.set(this.lockPrefix + key, token, 'PX', LOCK_TTL_MS, 'NX');
      return ok === 'OK' ? token : null;
    } catch (e) {
      this.redis.reportFailure('in-flight lock', e);
      return undefined;
    }
  }

  /** Whether the lock on `key` is held for scheduled work (false when free, interactive, or Redis failed). */
  async heldForScheduled(key: string): Promise<boolean> {
    try {
      return (await this.redis.client.get(this.lockPrefix + key))?.startsWith(SCHEDULED_MARK) ?? false;
    } catch (e) {
      this.redis.reportFailure('in-flight lock', e);
      return false;
    }
  }

  /** Keeps the lock alive while the leader fetches; returns a function that stops doing so. */
  keepAlive(key: string, token: string): () => void {
    const timer = setInterval(() => {
      this.redis.client.eval(EXTEND, 1, this.lockPrefix + key, token, String(LOCK_TTL_MS)).catch(() => undefined);
    }, LOCK_HEARTBEAT_MS);
    timer.unref();
    return () => clearInterval(timer);
  }

  async release(key: string, token: string): Promise<void> {
    try {
      await this.redis.client.eval(RELEASE, 1, this.lockPrefix + key, token);
    } catch {
      // The lock expires by itself within LOCK_TTL_MS.
    }
  }

  async publish(key: string, outcome: FlightOutcome): Promise<void> {
    try {
      await this.redis.client.publish(this.channel, `${key}\n${JSON.stringify(outcome)}`);
    } catch {
      // Waiting instances fall back to re-trying the lock.
    }
  }

  /** Subscribes once; waits at most SUBSCRIBE_WAIT_MS (a subscription queued while Redis is away completes later). */
  private subscribe(): Promise<boolean> {
    if (this.subscribed) return Promise.resolve(true);
    if (!this.subscribing) {
      const sub = this.redis.subscriber;
      if (!this.handlerAttached) {
        this.handlerAttached = true;
        sub.on('message', (channel: string, message: string) => this.onMessage(channel, message));
      }
      this.subscribing = sub.subscribe(this.channel).then(
        () => (this.subscribed = true),
        (e: unknown) => {
          this.redis.reportFailure('in-flight subscribe', e);
          this.subscribing = undefined; // try again on a later lookup
          return false;
        },
      );
    }
    return Promise.race([
      this.subscribing,
      new Promise<boolean>((r) => setTimeout(r, SUBSCRIBE_WAIT_MS, false).unref()),
    ]);
  }

  private onMessage(channel: string, message: string): void {
    if (channel !== this.channel) return;
    const nl = message.indexOf('\n');
    const set = this.listeners.get(message.slice(0, nl));
    if (!set) return;
    let outcome: FlightOutcome;
    try {
      outcome = JSON.parse(message.slice(nl + 1)) as FlightOutcome;
    } catch {
      return;
    }
    for (const l of set) l(outcome);
  }
}

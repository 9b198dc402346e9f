/**
 * Requests per key per UTC day and month, counted whether or not the key has a quota, so `marketlens keys list` and
 * `GET /api/v1/usage` can show usage. Quotas compare against these counts. In process memory (synchronous:
 * MemoryWindows) or shared in Redis (rate-limiter-flexible; counter keys `<prefix>qd:<key id>:<YYYY-MM-DD>` and
 * `<prefix>qm:<key id>:<YYYY-MM>`).
 */
import { RateLimiterRedis, type RateLimiterAbstract, type RateLimiterRes } from 'rate-limiter-flexible';
import type { MaybePromise } from '../cache/store.js';
import type { RedisConnection } from '../platform/redis-connection.js';
import { dayWindow, monthWindow, secondsUntil } from './calendar.js';
import { MemoryWindows } from './memory-windows.js';

/** The counters never reject by themselves: quotas differ per key and are compared by the caller. */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

export interface UsageCount {
  daily: number;
  monthly: number;
  dayResetAt: number;
  monthResetAt: number;
}

export interface UsageCounters {
  /** Counts one request; a shared store's failure rejects (an Error). */
  consume(keyId: string, now?: number): MaybePromise<UsageCount>;
  /** Takes back one counted request (one refused for its quota is not usage). */
  refund(keyId: string, now?: number): MaybePromise<void>;
  /** Current counts without counting. */
  read(keyId: string, now?: number): MaybePromise<UsageCount>;
  /** Sets counts (memory mode: from the database's durable totals at start-up and after each write). */
  set(keyId: string, count: { daily: number; monthly: number }, now?: number): MaybePromise<void>;
}

/** @example usageCounters() // in-process; usageCounters(redisConnection) // shared */
export function usageCounters(redis?: RedisConnection): UsageCounters {
  return redis ? new RedisUsageCounters(redis) : new MemoryUsageCounters();
}

export class MemoryUsageCounters implements UsageCounters {
  private readonly daily = new MemoryWindows();
  private readonly monthly = new MemoryWindows();

  consume(keyId: string, now = Date.now()): UsageCount {
    return this.add(keyId, 1, now);
  }

  refund(keyId: string, now = Date.now()): void {
    this.add(keyId, -1, now);
  }

  read(keyId: string, now = Date.now()): UsageCount {
    return this.add(keyId, 0, now);
  }

  set(keyId: string, count: { daily: number; monthly: number }, now = Date.now()): void {
    const d = dayWindow(now);
    const m = monthWindow(now);
    this.daily.set(`${keyId}:${d.id}`, count.daily, d.resetAt - now, now);
    this.monthly.set(`${keyId}:${m.id}`, count.monthly, m.resetAt - now, now);
  }

  private add(keyId: string, points: number, now: number): UsageCount {
    const d = dayWindow(now);
    const m = monthWindow(now);
    const daily =
      points === 0
        ? this.daily.get(`${keyId}:${d.id}`, now)
        : this.daily.add(`${keyId}:${d.id}`, points, d.resetAt - now, now);
    const monthly =
      points === 0
        ? this.monthly.get(`${keyId}:${m.id}`, now)
        : this.monthly.add(`${keyId}:${m.id}`, points, m.resetAt - now, now);
    return {
      daily: Math.max(0, daily.points),
      monthly: Math.max(0, monthly.points),
      dayResetAt: d.resetAt,
      monthResetAt: m.resetAt,
    };
  }
}

export class RedisUsageCounters implements UsageCounters {
  private readonly daily: RateLimiterAbstract;
  private readonly monthly: RateLimiterAbstract;

  constructor(redis: RedisConnection) {
    const make = (name: string): RateLimiterAbstract =>
      new RateLimiterRedis({
        storeClient: redis.client,
        keyPrefix: `${redis.prefix}${name}`,
        points: UNBOUNDED,
        duration: 86_400,
        rejectIfRedisNotReady: true,
      });
    this.daily = make('qd');
    this.monthly = make('qm');
  }

  async consume(keyId: string, now = Date.now()): Promise<UsageCount> {
    const d = dayWindow(now);
    const m = monthWindow(now);
    const [dr, mr] = await Promise.all([
      this.daily.consume(`${keyId}:${d.id}`, 1, { customDuration: secondsUntil(d.resetAt, now) }),
      this.monthly.consume(`${keyId}:${m.id}`, 1, { customDuration: secondsUntil(m.resetAt, now) }),
    ]);
    return { daily: dr.consumedPoints, monthly: mr.consumedPoints, dayResetAt: d.resetAt, monthResetAt: m.resetAt };
  }

  async refund(keyId: string, now = Date.now()): Promise<void> {
    const d = dayWindow(now);
    const m = monthWindow(now);
    await Promise.all([
      this.daily.reward(`${keyId}:${d.id}`, 1, { customDuration: secondsUntil(d.resetAt, now) }),
      this.monthly.reward(`${keyId}:${m.id}`, 1, { customDuration: secondsUntil(m.resetAt, now) }),
    ]);
  }

  async read(keyId: string, now = Date.now()): Promise<UsageCount> {
    const d = dayWindow(now);
    const m = monthWindow(now);
    const [dr, mr] = await Promise.all([this.daily.get(`${keyId}:${d.id}`), this.monthly.get(`${keyId}:${m.id}`)]);
    return { daily: consumed(dr), monthly: consumed(mr), dayResetAt: d.resetAt, monthResetAt: m.resetAt };
  }

  async set(keyId: string, count: { daily: number; monthly: number }, now = Date.now()): Promise<void> {
    const d = dayWindow(now);
    const m = monthWindow(now);
    await this.daily.set(`${keyId}:${d.id}`, count.daily, secondsUntil(d.resetAt, now));
    await this.monthly.set(`${keyId}:${m.id}`, count.monthly, secondsUntil(m.resetAt, now));
  }
}

function consumed(r: RateLimiterRes | null): number {
  return r ? Math.max(0, r.consumedPoints) : 0;
}

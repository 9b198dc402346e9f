/**
 * Requests per key per UTC day and month, counted with rate-limiter-flexible (memory or Redis) whether or not the
 * key has a quota, so `marketlens keys list` and `GET /api/v1/usage` can show usage. Quotas compare against these
 * counts. Counter keys: `<prefix>qd:<key id>:<YYYY-MM-DD>` and `<prefix>qm:<key id>:<YYYY-MM>`.
 */
import {
  RateLimiterMemory,
  RateLimiterRedis,
  type RateLimiterAbstract,
  type RateLimiterRes,
} from 'rate-limiter-flexible';
import type { RedisConnection } from '../cache/redis-connection.js';
import { dayWindow, monthWindow, secondsUntil } from './calendar.js';

/** The counters never reject by themselves: quotas differ per key and are compared by the caller. */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

export interface UsageCount {
  daily: number;
  monthly: number;
  dayResetAt: number;
  monthResetAt: number;
}

export class UsageCounters {
  readonly daily: RateLimiterAbstract;
  readonly monthly: RateLimiterAbstract;

  /** @example new UsageCounters() // in-process; new UsageCounters(redisConnection) // shared */
  constructor(redis?: RedisConnection) {
    const make = (name: string): RateLimiterAbstract =>
      redis
        ? new RateLimiterRedis({
            storeClient: redis.client,
            keyPrefix: `${redis.prefix}${name}`,
            points: UNBOUNDED,
            duration: 86_400,
            rejectIfRedisNotReady: true,
          })
        : new RateLimiterMemory({ keyPrefix: name, points: UNBOUNDED, duration: 86_400 });
    this.daily = make('qd');
    this.monthly = make('qm');
  }

  /** Counts one request; rejects (an Error) when the store fails. */
  async consume(keyId: string, now = Date.now()): Promise<UsageCount> {
    const d = dayWindow(now);
    const m = monthWindow(now);
    const [dr, mr] = await Promise.all([
      this.daily.consume(`${keyId}:${d.id}`, 1, { customDuration: secondsUntil(d.resetAt, now) }),
      this.monthly.consume(`${keyId}:${m.id}`, 1, { customDuration: secondsUntil(m.resetAt, now) }),
    ]);
    return { daily: dr.consumedPoints, monthly: mr.consumedPoints, dayResetAt: d.resetAt, monthResetAt: m.resetAt };
  }

  /** Takes back one counted request (one refused for its quota is not usage). */
  async refund(keyId: string, now = Date.now()): Promise<void> {
    const d = dayWindow(now);
    const m = monthWindow(now);
    await Promise.all([
      this.daily.reward(`${keyId}:${d.id}`, 1, { customDuration: secondsUntil(d.resetAt, now) }),
      this.monthly.reward(`${keyId}:${m.id}`, 1, { customDuration: secondsUntil(m.resetAt, now) }),
    ]);
  }

  /** Current counts without counting. */
  async read(keyId: string, now = Date.now()): Promise<UsageCount> {
    const d = dayWindow(now);
    const m = monthWindow(now);
    const [dr, mr] = await Promise.all([this.daily.get(`${keyId}:${d.id}`), this.monthly.get(`${keyId}:${m.id}`)]);
    return { daily: consumed(dr), monthly: consumed(mr), dayResetAt: d.resetAt, monthResetAt: m.resetAt };
  }

  /** Sets counts (memory mode: from the database's durable totals at start-up and after each write). */
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

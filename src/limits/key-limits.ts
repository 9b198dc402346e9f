/**
 * Per-key request rate and daily/monthly quotas (CONTRACT §2), in memory or shared through Redis.
 *
 * - Rate: a key's own `rate_limit` wins over MARKETLENS_RATE_LIMIT; `0` = unlimited. Fixed windows
 *   (rate-limiter-flexible), counted per key id (never the key itself).
 * - Quotas: `daily_quota` / `monthly_quota` of the key, else MARKETLENS_DAILY_QUOTA / _MONTHLY_QUOTA; 0 = none.
 *   Calendar windows in UTC. Requests refused with 429 are not counted as usage.
 * - Headers: `RateLimit-Limit/Remaining/Reset` describe the policy closest to exhaustion (rate, daily or monthly
 *   quota), as the IETF RateLimit header draft recommends; `Reset` is in seconds. Absent only when the key has
 *   neither a rate nor a quota.
 * - Redis failing: MARKETLENS_RATE_LIMIT_ON_REDIS_ERROR=allow (default) keeps serving — the rate falls back to a
 *   per-instance in-memory limiter and quotas are not counted meanwhile — and logs an error (throttled);
 *   `deny` refuses requests with 429 `rate_limited` until Redis is back.
 */
import type { Kysely } from 'kysely';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Logger } from '../platform/logger.js';
import type { RedisConnection } from '../platform/redis-connection.js';
import { rateSpec, type Config, type RateSpec } from '../config.js';
import { MarketlensError } from '../errors.js';
import type { StoredKey } from '../keys/key-store.js';
import type { Database, StoreHealth } from '../store/index.js';
import { dayWindow, monthWindow, secondsUntil } from './calendar.js';
import { MemoryWindows } from './memory-windows.js';
import { usageCounters, type UsageCount, type UsageCounters } from './usage-counters.js';
import { UsageLedger } from './usage-ledger.js';

export interface RateLimitHeaders {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  reset: number;
}

export interface LimitCheck {
  headers?: RateLimitHeaders;
  /** Set when the request must be refused (429). */
  error?: MarketlensError;
}

/** Requests counted in a key's current rate window, and when it ends. */
interface RateCount {
  consumed: number;
  msBeforeNext: number;
}

/** A rate window's counter name: per policy (a key whose rate changes starts afresh) and key id (never the key). */
function rateKey(spec: NonNullable<RateSpec>, keyId: string): string {
  return `${spec.points}/${spec.durationSeconds}:${keyId}`;
}

export interface KeyPolicy {
  rate: RateSpec;
  daily: number;
  monthly: number;
}

export interface QuotaReport {
  /** null = no quota */
  limit: number | null;
  used: number;
  remaining: number | null;
  /** Seconds until the window resets (UTC midnight / first of next month). */
  reset: number;
  reset_at: string;
}

export interface UsageReport {
  plan: string;
  rate_limit: string | null;
  limit: number | null;
  remaining: number | null;
  reset: number | null;
  daily: QuotaReport;
  monthly: QuotaReport;
}

export interface KeyLimitsOptions {
  config: Config;
  redis?: RedisConnection;
  /** Where the durable daily/monthly counts live (usage-ledger.ts). */
  db: Kysely<Database>;
  log: Logger;
  /** The store's health, told when usage counts wait for the database (/readyz). */
  health?: StoreHealth;
}

const DENY_RETRY_AFTER_SECONDS = 5;

export class KeyLimits {
  /** The counts quotas are checked against: in memory, or shared in Redis. */
  readonly usage: UsageCounters;
  /** The durable counts in the database, written off the request path. */
  readonly ledger: UsageLedger;
  /** Shared rate limiters (Redis mode), one per policy. */
  private readonly rateLimiters = new Map<string, RateLimiterAbstract>();
  /** Rate windows in memory mode, keyed by policy and key id. */
  private readonly memoryRate = new MemoryWindows();
  private readonly parsedRates = new Map<string, RateSpec>();

  private constructor(private readonly o: KeyLimitsOptions) {
    this.usage = usageCounters(o.redis);
    // Without Redis, each write also pulls in what other instances counted, so quotas hold across instances
    // sharing one database (within a flush interval).
    this.ledger = new UsageLedger(o.db, o.log, o.redis ? undefined : (ids) => this.syncFromDatabase(ids), o.health);
  }

  /** Memory mode starts from today's and this month's durable counts. */
  static async create(o: KeyLimitsOptions): Promise<KeyLimits> {
    const limits = new KeyLimits(o);
    if (!o.redis) {
      const now = Date.now();
      const rows = await o.db
        .selectFrom('usage_counts')
        .select('key_id')
        .distinct()
        .where('period', 'in', [dayWindow(now).id, monthWindow(now).id])
        .execute();
      await limits.syncFromDatabase(rows.map((r) => r.key_id));
    }
    return limits;
  }

  /** True when `check` answers synchronously (in-memory limits, no Redis). */
  get synchronous(): boolean {
    return !this.o.redis;
  }

  /** The limits that apply to a key. */
  policy(key: StoredKey): KeyPolicy {
    const { config } = this.o;
    return {
      rate: key.rate_limit === undefined ? config.rateLimit : this.parseRate(key.rate_limit),
      daily: key.daily_quota ?? config.dailyQuota,
      monthly: key.monthly_quota ?? config.monthlyQuota,
    };
  }

  /**
   * Counts one request of `key` and decides whether it may proceed. In memory mode the answer is synchronous (no
   * promise on a cached lookup's path); with Redis it is a promise.
   */
  check(key: StoredKey): LimitCheck | Promise<LimitCheck> {
    if (!this.o.redis) return this.checkInMemory(key);
    return this.checkShared(key.id, this.policy(key), Date.now());
  }

  /** `check` in memory mode (`synchronous`): what the cached-hit path calls. */
  checkInMemory(key: StoredKey): LimitCheck {
    if (this.o.redis) throw new Error('limits are shared through Redis: use check()');
    const now = Date.now();
    const p = this.policy(key);
    const rate = p.rate
      ? this.memoryRate.add(rateKey(p.rate, key.id), 1, p.rate.durationSeconds * 1000, now)
      : undefined;
    const usage = this.usage.consume(key.id, now) as UsageCount;
    const { check, refund } = this.decide(
      key.id,
      p,
      rate && { consumed: rate.points, msBeforeNext: rate.msBeforeNext },
      usage,
      now,
    );
    if (refund) void this.usage.refund(key.id, now);
    return check;
  }

  private async checkShared(keyId: string, p: KeyPolicy, now: number): Promise<LimitCheck> {
    const [rate, usage] = await Promise.all([
      p.rate ? settle(this.rateLimiter(p.rate).consume(keyId)) : undefined,
      Promise.resolve(this.usage.consume(keyId, now)).catch((e: unknown) =>
        e instanceof Error ? e : new Error(String(e)),
      ),
    ]);
    const failure = rate instanceof Error ? rate : usage instanceof Error ? usage : undefined;
    if (failure) {
      this.o.redis?.reportFailure('rate limits', failure);
      if (this.o.config.rateLimitOnRedisError === 'deny') {
        return {
          error: new MarketlensError(
            'rate_limited',
            'Rate limits cannot be checked right now (shared state unavailable); retry shortly',
            { retryAfter: DENY_RETRY_AFTER_SECONDS },
          ),
        };
      }
    }
    const counted = usage instanceof Error ? undefined : usage;
    const rateCount =
      rate instanceof RateLimiterRes ? { consumed: rate.consumedPoints, msBeforeNext: rate.msBeforeNext } : undefined;
    const { check, refund } = this.decide(keyId, p, rateCount, counted, now);
    if (refund) await Promise.resolve(this.usage.refund(keyId, now)).catch(() => undefined);
    return check;
  }

  /**
   * The verdict on one counted request: refused for its rate (usage given back), refused for a quota (given back),
   * or accepted (then durable usage: refused requests never reach the ledger, so they are not usage).
   */
  private decide(
    keyId: string,
    p: KeyPolicy,
    rate: RateCount | undefined,
    counted: UsageCount | undefined,
    now: number,
  ): { check: LimitCheck; refund: boolean } {
    if (p.rate && rate && rate.consumed > p.rate.points) {
      const reset = Math.max(1, Math.ceil(rate.msBeforeNext / 1000));
      return {
        refund: counted !== undefined,
        check: {
          headers: { limit: p.rate.points, remaining: 0, reset },
          error: new MarketlensError(
            'rate_limited',
            `Rate limit of ${describeRate(p.rate)} exceeded; retry in ${reset} s`,
            { retryAfter: reset },
          ),
        },
      };
    }
    if (counted) {
      const over = quotaExceeded(p, counted, now);
      if (over) {
        return {
          refund: true,
          check: {
            headers: { limit: over.limit, remaining: 0, reset: over.reset },
            error: new MarketlensError(
              'quota_exceeded',
              `${over.label} quota of ${over.limit} requests used up; it resets at ${new Date(over.resetAt).toISOString()}`,
              { retryAfter: over.reset },
            ),
          },
        };
      }
    }
    this.ledger.add(keyId, 1, now);
    return { refund: false, check: { headers: closestToExhaustion(p, rate, counted, now) } };
  }

  /** Current limits and usage of `key`, without counting a request (GET /api/v1/usage). */
  async report(key: StoredKey): Promise<UsageReport> {
    const now = Date.now();
    const p = this.policy(key);
    let rate: RateCount | undefined;
    let counted: UsageCount | undefined;
    // In memory, other processes' counts (cluster workers, instances on one database) arrive only with this
    // process's next write: read them now, so the report is exact once every process has written (FLUSH_MS).
    if (!this.o.redis) await this.syncFromDatabase([key.id]).catch(() => undefined);
    try {
      [rate, counted] = await Promise.all([
        p.rate ? this.currentRate(p.rate, key.id, now) : undefined,
        this.usage.read(key.id, now),
      ]);
    } catch (e) {
      this.o.redis?.reportFailure('usage report', e);
      counted = undefined;
    }
    const rateRemaining = p.rate ? Math.max(0, p.rate.points - (rate?.consumed ?? 0)) : null;
    const rateReset = p.rate
      ? rate
        ? Math.max(0, Math.ceil(rate.msBeforeNext / 1000))
        : p.rate.durationSeconds
      : null;
    const plan = [
      p.rate ? describeRate(p.rate) : 'unlimited rate',
      p.daily > 0 ? `${p.daily}/day` : '',
      p.monthly > 0 ? `${p.monthly}/month` : '',
    ]
      .filter(Boolean)
      .join(', ');
    const quota = (limit: number, used: number, resetAt: number): QuotaReport => ({
      limit: limit > 0 ? limit : null,
      used,
      remaining: limit > 0 ? Math.max(0, limit - used) : null,
      reset: secondsUntil(resetAt, now),
      reset_at: new Date(resetAt).toISOString(),
    });
    const fallback = {
      daily: 0,
      monthly: 0,
      dayResetAt: dayWindow(now).resetAt,
      monthResetAt: monthWindow(now).resetAt,
    };
    const c = counted ?? fallback;
    return {
      plan,
      rate_limit: p.rate ? describeRate(p.rate) : null,
      limit: p.rate?.points ?? null,
      remaining: rateRemaining,
      reset: rateReset,
      daily: quota(p.daily, c.daily, c.dayResetAt),
      monthly: quota(p.monthly, c.monthly, c.monthResetAt),
    };
  }

  /** Writes every counted request (SIGTERM loses none). */
  async close(): Promise<void> {
    await this.ledger.close();
  }

  /** The rate window of a key as it stands (undefined when none is open). */
  private async currentRate(spec: NonNullable<RateSpec>, keyId: string, now: number): Promise<RateCount | undefined> {
    if (!this.o.redis) {
      const w = this.memoryRate.get(rateKey(spec, keyId), now);
      return w.msBeforeNext > 0 ? { consumed: w.points, msBeforeNext: w.msBeforeNext } : undefined;
    }
    const r = await this.rateLimiter(spec).get(keyId);
    return r ? { consumed: r.consumedPoints, msBeforeNext: r.msBeforeNext } : undefined;
  }

  /** Memory mode: the quota counters become the database totals plus what this process has not written yet. */
  private async syncFromDatabase(keyIds: string[]): Promise<void> {
    const now = Date.now();
    const totals = await this.ledger.totals(keyIds, now);
    for (const [id, t] of totals) {
      const unwritten = this.ledger.unwritten(id, now);
      await this.usage.set(id, { daily: t.daily + unwritten.daily, monthly: t.monthly + unwritten.monthly }, now);
    }
  }

  private parseRate(text: string): RateSpec {
    let spec = this.parsedRates.get(text);
    if (spec === undefined && !this.parsedRates.has(text)) {
      const parsed = rateSpec.safeParse(text);
      if (!parsed.success)
        this.o.log.warn({ rate_limit: text }, 'a key has an invalid rate_limit; using MARKETLENS_RATE_LIMIT');
      spec = parsed.success ? parsed.data : this.o.config.rateLimit;
      this.parsedRates.set(text, spec);
    }
    return spec ?? null;
  }

  /** The shared (Redis) rate limiter of a policy. */
  private rateLimiter(spec: NonNullable<RateSpec>): RateLimiterAbstract {
    const id = `${spec.points}/${spec.durationSeconds}`;
    let limiter = this.rateLimiters.get(id);
    if (!limiter) {
      const redis = this.o.redis!;
      const { config } = this.o;
      const opts = { points: spec.points, duration: spec.durationSeconds };
      limiter = new RateLimiterRedis({
        ...opts,
        storeClient: redis.client,
        keyPrefix: `${redis.prefix}rl:${id}`,
        rejectIfRedisNotReady: true,
        // allow: keep limiting per instance while Redis is away, rather than not at all.
        insuranceLimiter:
          config.rateLimitOnRedisError === 'allow'
            ? new RateLimiterMemory({ ...opts, keyPrefix: `rl:${id}` })
            : undefined,
      });
      this.rateLimiters.set(id, limiter);
    }
    return limiter;
  }
}

/** `60/min`, `10/s`, `1000/h`, `5000/day` */
export function describeRate(spec: NonNullable<RateSpec>): string {
  const unit =
    spec.durationSeconds === 1
      ? 's'
      : spec.durationSeconds === 60
        ? 'min'
        : spec.durationSeconds === 3600
          ? 'h'
          : 'day';
  return `${spec.points}/${unit}`;
}

/** A consume result: the RateLimiterRes whether allowed or over the limit, or the store's Error. */
async function settle(p: Promise<RateLimiterRes>): Promise<RateLimiterRes | Error> {
  try {
    return await p;
  } catch (e) {
    return e instanceof RateLimiterRes ? e : e instanceof Error ? e : new Error(String(e));
  }
}

function quotaExceeded(p: KeyPolicy, c: UsageCount, now: number) {
  if (p.daily > 0 && c.daily > p.daily)
    return { label: 'Daily', limit: p.daily, resetAt: c.dayResetAt, reset: secondsUntil(c.dayResetAt, now) };
  if (p.monthly > 0 && c.monthly > p.monthly) {
    return { label: 'Monthly', limit: p.monthly, resetAt: c.monthResetAt, reset: secondsUntil(c.monthResetAt, now) };
  }
  return undefined;
}

function closestToExhaustion(
  p: KeyPolicy,
  rate: RateCount | undefined,
  c: UsageCount | undefined,
  now: number,
): RateLimitHeaders | undefined {
  let best: RateLimitHeaders | undefined;
  if (p.rate && rate) {
    best = {
      limit: p.rate.points,
      remaining: Math.max(0, p.rate.points - rate.consumed),
      reset: Math.max(0, Math.ceil(rate.msBeforeNext / 1000)),
    };
  }
  if (c) {
    for (const [limit, used, resetAt] of [
      [p.daily, c.daily, c.dayResetAt],
      [p.monthly, c.monthly, c.monthResetAt],
    ] as const) {
      if (limit <= 0) continue;
      const remaining = Math.max(0, limit - used);
      if (!best || remaining < best.remaining) best = { limit, remaining, reset: secondsUntil(resetAt, now) };
    }
  }
  return best;
}

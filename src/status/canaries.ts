/**
 * Canaries (MARKETLENS_CANARY_INTERVAL): the doctor's lookups, run live on a timer through the service's own lookup
 * path, so their answers and failures reach every subscriber of the live-results seam — /api/v1/status, history, and
 * the alerts' `marketplace.changed` event — exactly as a caller's lookups do. The timer is in-process; with Redis,
 * instances take turns (one claim per interval), so N instances still send one round per interval, not N.
 */
import type { RedisConnection } from '../cache/redis-connection.js';
import type { LookupService } from '../operations/lookup.js';
import { OPERATIONS } from '../operations/registry.js';
import { OPERATION_NAMES } from '../operations/types.js';
import { DOCTOR_DEFAULTS } from './doctor.js';

export interface CanaryLog {
  warn(obj: object, msg?: string): void;
}

export class Canaries {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly lookup: LookupService,
    private readonly intervalMs: number,
    private readonly log: CanaryLog,
    /** Answers whether this instance runs this interval's round (default: always). */
    private readonly claim: () => Promise<boolean> = async () => true,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      // A round slower than the interval is not doubled up: the next tick finds it still running and skips.
      if (!this.running) this.running = this.claimedRound().finally(() => (this.running = undefined));
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  private async claimedRound(): Promise<void> {
    if (await this.claim()) await this.round();
  }

  /** One lookup per operation, one at a time (a canary must never be a burst), each forced live (max_age=0). */
  async round(): Promise<void> {
    for (const name of OPERATION_NAMES) {
      if (this.stopped) return;
      const op = OPERATIONS[name];
      try {
        const params = op.params.parse(DOCTOR_DEFAULTS[name]) as Record<string, unknown>;
        await this.lookup.run(op, params, { maxAgeSeconds: 0 });
      } catch (e) {
        // Already counted through the seam; the log line says which canary failed.
        this.log.warn({ canary: name, code: (e as { code?: string }).code }, 'canary lookup failed');
      }
    }
  }
}

/**
 * With several instances on one Redis: the first to claim an interval runs its round (SET NX with an expiry just under
 * the interval). If Redis cannot answer, the instance runs its round anyway: duplicate canaries beat none.
 */
export function redisCanaryClaim(redis: RedisConnection, intervalMs: number, instance: string): () => Promise<boolean> {
  const key = `${redis.prefix}status:canary-round`;
  const ttl = Math.max(500, intervalMs - 250);
  return async () => {
    try {
      return (await redis.client.set(key, instance, 'PX', ttl, 'NX')) === 'OK';
    } catch (e) {
      redis.reportFailure('canary claim', e);
      return true;
    }
  };
}

/**
 * Several instances behind a load balancer each see only their own traffic. With Redis configured, every instance
 * publishes its raw counters every few seconds under a key that expires, and lists itself in a sorted set scored by
 * publication time; reading gathers every instance seen recently. Without Redis, only this instance is known.
 */
import type { RedisConnection } from '../platform/redis-connection.js';
import type { RawSnapshot, StatusAggregator } from './aggregator.js';

export const PUBLISH_EVERY_MS = 5_000;
/** An instance that has not published for this long is gone (crashed or scaled down): its figures drop out. */
export const INSTANCE_TTL_MS = 15_000;

export class SharedStatus {
  private timer?: NodeJS.Timeout;
  private readonly setKey: string;

  constructor(
    private readonly aggregator: StatusAggregator,
    private readonly redis: RedisConnection | undefined,
    private readonly instance: string,
  ) {
    this.setKey = `${redis?.prefix ?? ''}status:instances`;
  }

  private keyOf(instance: string): string {
    return `${this.redis!.prefix}status:instance:${instance}`;
  }

  start(): void {
    if (!this.redis || this.timer) return;
    void this.publish();
    this.timer = setInterval(() => void this.publish(), PUBLISH_EVERY_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    if (!this.redis?.isUp) return;
    // A clean shutdown leaves at once instead of lingering for INSTANCE_TTL_MS.
    await Promise.all([
      this.redis.client.del(this.keyOf(this.instance)),
      this.redis.client.zrem(this.setKey, this.instance),
    ]).catch(() => undefined);
  }

  async publish(): Promise<void> {
    if (!this.redis?.isUp) return;
    const now = Date.now();
    try {
      await this.redis.client
        .multi()
        .set(this.keyOf(this.instance), JSON.stringify(this.aggregator.raw()), 'PX', INSTANCE_TTL_MS)
        .zadd(this.setKey, now, this.instance)
        .zremrangebyscore(this.setKey, '-inf', now - INSTANCE_TTL_MS)
        .exec();
    } catch (e) {
      this.redis.reportFailure('status publish', e);
    }
  }

  /** Every live instance's raw figures, this one's always fresh from memory; `shared` is false without Redis. */
  async gather(): Promise<{ shared: boolean; raws: RawSnapshot[] }> {
    const own = this.aggregator.raw();
    if (!this.redis) return { shared: false, raws: [own] };
    try {
      const ids = (await this.redis.client.zrangebyscore(this.setKey, Date.now() - INSTANCE_TTL_MS, '+inf')).filter(
        (id) => id !== this.instance,
      );
      const texts = ids.length > 0 ? await this.redis.client.mget(ids.map((id) => this.keyOf(id))) : [];
      const others = texts.flatMap((t) => (t ? [JSON.parse(t) as RawSnapshot] : []));
      return { shared: true, raws: [own, ...others] };
    } catch (e) {
      // Redis down: this instance's figures still answer, marked as not shared.
      this.redis.reportFailure('status read', e);
      return { shared: false, raws: [own] };
    }
  }
}

/** The shared store: answers in Redis under `<prefix>c:<cache key>`, expiring with PX. Failures are misses. */
import type { RedisConnection } from '../platform/redis-connection.js';
import { decodeAnswer, encodeAnswer, type CachedAnswer, type Store } from './store.js';

export class RedisStore implements Store {
  readonly kind = 'redis' as const;
  private readonly keyPrefix: string;

  constructor(private readonly redis: RedisConnection) {
    this.keyPrefix = `${redis.prefix}c:`;
  }

  async get(key: string): Promise<CachedAnswer | undefined> {
    if (!this.redis.isUp) return undefined;
    try {
      return decodeAnswer(await this.redis.client.getBuffer(this.keyPrefix + key));
    } catch (e) {
      this.redis.reportFailure('cache read', e);
      return undefined;
    }
  }

  async set(key: string, answer: CachedAnswer, retainSeconds: number): Promise<void> {
    if (retainSeconds <= 0 || !this.redis.isUp) return;
    try {
      await this.redis.client.set(this.keyPrefix + key, encodeAnswer(answer), 'PX', Math.round(retainSeconds * 1000));
    } catch (e) {
      this.redis.reportFailure('cache write', e);
    }
  }
}

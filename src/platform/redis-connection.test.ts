import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { COMMAND_TIMEOUT_MS, RedisConnection } from './redis-connection.js';

describe('the Redis command timeout', () => {
  it('is MARKETLENS_REDIS_COMMAND_TIMEOUT_MS (default 500 ms), on the commands connection and not the subscriber', async () => {
    expect(loadConfig({}).redisCommandTimeoutMs).toBe(COMMAND_TIMEOUT_MS);
    expect(COMMAND_TIMEOUT_MS).toBe(500);
    const ms = loadConfig({ MARKETLENS_REDIS_COMMAND_TIMEOUT_MS: '5000' }).redisCommandTimeoutMs;
    expect(ms).toBe(5000);
    expect(() => loadConfig({ MARKETLENS_REDIS_COMMAND_TIMEOUT_MS: '0' })).toThrow(
      /MARKETLENS_REDIS_COMMAND_TIMEOUT_MS/,
    );
    // Port 1: nothing listens; the options are what matters.
    const redis = new RedisConnection('redis://127.0.0.1:1', 'test:', pino({ level: 'silent' }), ms);
    try {
      expect(redis.client.options.commandTimeout).toBe(5000);
      expect(redis.subscriber.options.commandTimeout).toBeUndefined();
    } finally {
      await redis.close();
    }
  });
});

/** The Redis test helper itself: with CI set an unreachable Redis fails the Redis suites instead of skipping them. */
import { describe, expect, it } from 'vitest';
import { pingRedis, requireRedis } from './support/redis.js';

describe('requireRedis', () => {
  it('throws when CI is set and Redis is unreachable', async () => {
    await expect(requireRedis('redis://127.0.0.1:1', { CI: 'true' })).rejects.toThrow(
      /CI is set but Redis is unreachable/,
    );
  });

  it('outside CI it answers false (the suites skip, with a notice)', async () => {
    expect(await requireRedis('redis://127.0.0.1:1', {})).toBe(false);
  });

  it('an unreachable address does not answer a PING', async () => {
    expect(await pingRedis('redis://127.0.0.1:1', 500)).toBe(false);
  });
});

/**
 * Redis for the Redis-backed suites: the machine's server at 127.0.0.1:6379 (or MARKETLENS_TEST_REDIS_URL).
 * Outside CI an unreachable server skips those suites with a visible notice; when CI is set it is a failure.
 * Every suite writes under its own random key prefix and deletes it afterwards, so parallel runs never collide.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';

export const TEST_REDIS_URL = process.env.MARKETLENS_TEST_REDIS_URL || 'redis://127.0.0.1:6379';

/** True when a PING answers within `timeoutMs`. */
export async function pingRedis(url: string, timeoutMs = 1500): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await Promise.race([
      client.connect().then(() => client.ping()),
      new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), timeoutMs)),
    ]);
    return true;
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/**
 * Whether the Redis suites can run. Throws when `env.CI` is set and Redis is unreachable (CI must not silently
 * skip them); otherwise prints a notice and answers false.
 */
export async function requireRedis(
  url: string,
  env: Record<string, string | undefined> = process.env,
): Promise<boolean> {
  if (await pingRedis(url)) return true;
  if (env.CI) throw new Error(`CI is set but Redis is unreachable at ${url}: the Redis tests cannot run`);
  console.warn(
    `\n[marketlens] NOTICE: Redis unreachable at ${url} — Redis tests are skipped (they fail when CI is set).\n`,
  );
  return false;
}

export const redisAvailable = await requireRedis(TEST_REDIS_URL);

/** A key prefix no other test run uses. */
export function uniquePrefix(): string {
  return `marketlens-test:${randomUUID().slice(0, 8)}:`;
}

/** Deletes every key under `prefix`. */
export async function deletePrefix(prefix: string, url = TEST_REDIS_URL): Promise<void> {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await client.del(...keys);
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
}

/**
 * Usage counts for `marketlens keys list` (a separate process from the server): from Redis when
 * MARKETLENS_REDIS_URL is set, else from the usage file the server writes in the data directory.
 */
import { RedisConnection } from '../cache/redis-connection.js';
import type { Config } from '../config.js';
import { UsageCounters } from './usage-counters.js';
import { readUsageFile } from './usage-file.js';

export interface KeyUsage {
  used_today: number;
  used_this_month: number;
}

/**
 * @example await readUsageCounts(loadConfig(), ['env-1a2b3c4d']) // Map { 'env-1a2b3c4d' => { used_today: 3, used_this_month: 41 } }
 */
export async function readUsageCounts(config: Config, keyIds: string[]): Promise<Map<string, KeyUsage>> {
  const out = new Map<string, KeyUsage>();
  if (!config.redisUrl) {
    const file = readUsageFile(config.dataDir);
    for (const id of keyIds) {
      const c = file.get(id);
      out.set(id, { used_today: c?.daily ?? 0, used_this_month: c?.monthly ?? 0 });
    }
    return out;
  }
  const quiet = { info() {}, warn() {}, error() {} };
  const redis = new RedisConnection(config.redisUrl, config.redisPrefix, quiet);
  try {
    if (!(await redis.waitUntilReady(2000))) throw new Error(`Redis at ${config.redisUrl} is unreachable: usage counts are unavailable`);
    const counters = new UsageCounters(redis);
    for (const id of keyIds) {
      const c = await counters.read(id);
      out.set(id, { used_today: c.daily, used_this_month: c.monthly });
    }
    return out;
  } finally {
    await redis.close();
  }
}
